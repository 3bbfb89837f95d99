"""The text guard on its own: surrogates joined across deltas, exact keys held and redacted.

Tests the private module ``agentcore.drivers._common.guard``: the text guard every driver
streams through."""

from __future__ import annotations

import itertools

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from agentcore.drivers._common.guard import (
    MIN_KEY_LENGTH,
    REDACTED,
    Held,
    clean,
    clean_error,
    close_block,
    flush_held,
    guard,
    secret_keys,
    valid,
)
from agentcore.events import InputJsonDelta, TextDelta, ThinkingDelta

KEY = "sk-live-" + "Zq9" * 10
OTHER = "gsk_" + "Mw4" * 10


def stream(pieces: list[str], keys: tuple[str, ...], index: int = 0) -> tuple[list[str], Held]:
    """What the guard lets out for ``pieces`` of one block, then what closing it releases."""
    held: Held = ()
    out = []
    for piece in pieces:
        held, text = guard(held, keys, TextDelta, index, piece)
        out.append(text)
    held, released = close_block(held, index, 0)
    out += [e.text for e in released]
    return out, held


def fixed(text: str) -> str:
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


code_points = st.one_of(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),  # lone surrogates
    st.sampled_from(list("ab s\n")),
    st.characters(),
)


@settings(max_examples=300)
@given(st.lists(st.lists(code_points, max_size=5).map("".join), max_size=8))
def test_any_code_points_come_out_as_the_whole_text_decoded_once(pieces: list[str]) -> None:
    """Split anywhere, lone surrogates anywhere: the output is what decoding the whole
    text as UTF-16 gives (pairs joined, the rest U+FFFD), and every piece is encodable."""
    out, held = stream(pieces, ())
    assert "".join(out) == fixed("".join(pieces))
    assert held == ()
    for text in out:
        text.encode("utf-8")


key_texts = st.lists(
    st.sampled_from(["sk-", "sk", "s", KEY, KEY[:10], KEY[10:], "Zq9", " ", "x", "😀", OTHER]),
    max_size=10,
).map("".join)


@settings(max_examples=300)
@given(
    key_texts, st.lists(st.integers(1, 60), max_size=12), st.sampled_from([(KEY,), (KEY, OTHER)])
)
def test_keys_are_redacted_however_the_text_is_cut(
    text: str, cuts: list[int], keys: tuple[str, ...]
) -> None:
    bounds = [0, *sorted({c for c in cuts if c < len(text)}), len(text)]
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    out, _ = stream(pieces, keys)
    expected = text
    for key in keys:
        expected = expected.replace(key, REDACTED)
    assert "".join(out) == expected  # nothing lost, nothing reordered
    assert not any(key in "".join(out) for key in keys)


def test_a_suffix_that_could_start_the_key_is_held_until_it_cannot() -> None:
    held, text = guard((), (KEY,), TextDelta, 3, "pay with sk-li")
    assert text == "pay with " and held == ((3, TextDelta, "sk-li"),)
    held, text = guard(held, (KEY,), TextDelta, 3, "ve later")  # "sk-live l..." is no key
    assert (text, held) == ("sk-live later", ())


def test_each_block_holds_its_own_text_and_releases_it_as_its_own_event() -> None:
    held, _ = guard((), (KEY,), ThinkingDelta, 0, "think sk")
    held, _ = guard(held, (KEY,), InputJsonDelta, 1, '{"k": "sk-')
    held, released = close_block(held, 0, 5)
    assert released == (ThinkingDelta("sk", 0, timestamp=5),)
    held, rest = flush_held(held, 6)
    assert (held, rest) == ((), (InputJsonDelta("sk-", 1, timestamp=6),))


def test_a_high_surrogate_is_held_then_joined_or_replaced() -> None:
    held, text = guard((), (), TextDelta, 0, "smile \ud83d")
    assert (text, held) == ("smile ", ((0, TextDelta, "\ud83d"),))
    assert guard(held, (), TextDelta, 0, "\ude00!") == ((), "😀!")
    assert close_block(held, 0, 1)[1] == (TextDelta("\ufffd", 0, timestamp=1),)


def test_nothing_held_means_the_same_held_object_back() -> None:
    empty: Held = ()
    held, text = guard(empty, (KEY,), TextDelta, 0, "plain text")
    assert held is empty and text == "plain text"
    held, text = guard(empty, (KEY,), TextDelta, 0, "plain words")  # "s" may start the key
    assert (held, text) == (((0, TextDelta, "s"),), "plain word")
    assert close_block(empty, 0, 1) == ((), ())


def test_secret_keys_drops_short_empty_and_repeated_keys() -> None:
    assert secret_keys([None, "", "k", "x" * (MIN_KEY_LENGTH - 1), KEY, KEY, OTHER]) == (KEY, OTHER)


def test_clean_and_clean_error() -> None:
    assert clean(f"id-{KEY}-\ud83d", (KEY,)) == f"id-{REDACTED}-\ufffd"
    assert valid("ok") == "ok"
    shaped = "sk-ant-api03-" + "a1" * 20
    assert clean_error(f"bad {KEY} and {shaped}", (KEY,)) == f"bad {REDACTED} and {REDACTED}"


@pytest.mark.parametrize("short", ["k", "abc", "1234567"])
def test_short_keys_are_not_scrubbed_from_ordinary_text(short: str) -> None:
    keys = secret_keys([short])
    assert keys == ()
    assert stream([f"a {short} b"], keys)[0] == [f"a {short} b"]
