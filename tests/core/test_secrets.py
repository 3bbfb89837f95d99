"""The secret patterns: every registry provider's key shape is scrubbed, ordinary text is not.

Tests the private module ``agentcore._core.secrets``: the secret patterns and scrubbing."""

from __future__ import annotations

import json
import re
import string
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agentcore import from_dict, to_dict
from agentcore._core.secrets import (
    REDACTED,
    SECRET_PATTERN,
    has_secret,
    holds_secret,
    scrub,
    scrub_bytes,
    scrub_event,
)
from agentcore.errors import InvalidEventError
from agentcore.events import ErrorReceived, TextDelta
from agentcore.testing import registered_events

HEX = "0123456789abcdef"
SHAPES = {
    "openai project": "sk-proj-" + "Ab3dE" * 10,
    "openai service account": "sk-svcacct-" + "Xy7" * 12,
    "openai legacy": "sk-" + "T3BlbkFJ" * 6,
    "openai, no digit": "sk-proj-ABCDEFGHIJKLMNOPQRSTUV",
    "anthropic": "sk-ant-api03-" + "aB_-9" * 18 + "AA",
    "openrouter": "sk-or-v1-" + HEX * 4,
    "deepseek": "sk-" + HEX * 2,
    "short": "sk-abc123XYZ",
    "groq": "gsk_" + "Q2wE4rT6yU8i" * 4 + "Op0a",
    "together": "tgp_v1_" + "kJ8_hG6-fD4s" * 3 + "aZ",
    "google": "AIza" + "SyD3xQ-bC9_mN7pL5kJ2hG4fD6sA8qW1eR",
    "bearer jwt": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig",
    "bearer lowercase": "bearer 1a2b3c4d5e6f7a8b",
    "bearer upper": "BEARER abcd1234efgh",
}
"""One key of each shape agentcore scrubs (made up, of the real length and alphabet)."""

ORDINARY = [
    "task-force meeting at 10",
    "pip install sk-learn and scikit-learn",
    "the bearer of bad news",
    "Bearer instruments are negotiable.",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "risk-adjusted returns; desk-bound",
    "sk-abcdefgh has no digit",
    "gsk_ too short",
    "the AIza prefix alone",
    "xsk-proj-ABCDEFGHIJKLMNOPQRSTUV1 is inside a longer token",
    "a-sk-1234567890abcdefghijk follows a hyphen",
]


@pytest.mark.parametrize("key", SHAPES.values(), ids=SHAPES.keys())
def test_every_key_shape_is_scrubbed_in_text_and_bytes(key: str) -> None:
    text = f'error: invalid x-api-key: {key}; "key": "{key}"'
    assert key not in scrub(text)
    assert scrub(text).count(REDACTED) == 2
    assert scrub_bytes(text.encode()) == scrub(text).encode()
    assert has_secret(text.encode())


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert scrub(text) == text
    assert not has_secret(text.encode())


def test_scrub_event_scrubs_fields_and_returns_a_clean_event_unchanged() -> None:
    key = SHAPES["groq"]
    event = ErrorReceived(f"HTTP 401 invalid api key {key}", "AUTHENTICATION_ERROR")
    assert scrub_event(event).message == f"HTTP 401 invalid api key {REDACTED}"
    clean = TextDelta("nothing secret here", 0, timestamp=3)
    assert scrub_event(clean) is clean


TOKEN_CHARS = string.ascii_letters + string.digits + "_-"


@settings(max_examples=200)
@given(
    before=st.text(alphabet=" .,;:\n'\"=(", max_size=3),
    prefix=st.sampled_from(["sk-", "sk-proj-", "sk-ant-api03-", "sk-or-v1-", "gsk_", "tgp_v1_"]),
    body=st.text(alphabet=TOKEN_CHARS, min_size=20, max_size=60).filter(lambda b: b[0] != "_"),
    after=st.text(alphabet=" .,;:\n'\")", max_size=3),
)
def test_a_long_key_of_any_prefix_is_scrubbed_whatever_surrounds_it(
    before: str, prefix: str, body: str, after: str
) -> None:
    key = prefix + (body if prefix != "gsk_" else body.replace("-", "a").replace("_", "b"))
    assert scrub(before + key + after) == before + REDACTED + after


@settings(max_examples=200)
@given(st.text(max_size=80))
def test_scrub_is_idempotent_and_bytes_agree(text: str) -> None:
    once = scrub(text)
    assert scrub(once) == once
    encoded = text.encode("utf-8", "surrogatepass")
    assert scrub_bytes(encoded) == once.encode("utf-8", "surrogatepass")
    assert has_secret(encoded) == (once != text)


@settings(max_examples=200)
@given(st.text(alphabet=string.ascii_lowercase + " ,.", max_size=200))
def test_prose_is_never_scrubbed(text: str) -> None:
    """Words, spaces and punctuation hold no key shape: nothing is eaten."""
    assert scrub(text) == text


def _string_paths(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    if isinstance(value, str):
        return [path]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _string_paths(v, (*path, i))]
    if isinstance(value, dict):
        media = value.get("type") in _MEDIA
        return [
            p
            for k, v in value.items()
            if k != "type" and not (media and k == "data")  # media bytes are never scrubbed
            for p in _string_paths(v, (*path, k))
        ]
    return []


_MEDIA = {"image", "document", "audio"}
"""Wire types whose base64 ``data`` scrubbing leaves alone (a key shape in bytes is noise)."""


def _replaced(wire: Any, path: tuple[object, ...], text: str) -> Any:
    if not path:
        return text
    head, rest = path[0], path[1:]
    if isinstance(wire, list):
        return [_replaced(v, rest, text) if i == head else v for i, v in enumerate(wire)]
    return {k: _replaced(v, rest, text) if k == head else v for k, v in wire.items()}


@settings(max_examples=300, deadline=None)
@given(registered_events(), st.sampled_from(sorted(SHAPES.values())), st.data())
def test_scrub_event_finds_a_key_in_any_string_of_any_event(
    event: Any, key: str, data: st.DataObject
) -> None:
    """The check on the objects agrees with the wire form: an event holding no key comes
    back as itself, and a key put in any string field (nested ones too) is scrubbed."""
    wire = to_dict(event)
    if not has_secret(json.dumps(wire).encode()):
        assert scrub_event(event) is event
    paths = _string_paths(wire)
    assume(paths)
    path = data.draw(st.sampled_from(paths))
    try:
        with_key = from_dict(_replaced(wire, path, f"x {key} y"))
    except InvalidEventError:
        assume(False)  # a field that takes only some strings (a Literal)
    scrubbed = to_dict(scrub_event(with_key))
    assert not has_secret(json.dumps(scrubbed).encode())


@given(
    st.builds(
        lambda before, prefix, body: before + prefix + body,
        st.text(alphabet=" xk-", max_size=3),
        st.sampled_from(["sk-", "gsk_", "tgp_v1_", "AIza", "Bearer ", "BEARER ", ""]),
        st.text(alphabet="abXY09_-=.", max_size=35),
    )
)
def test_holds_secret_agrees_with_the_pattern_at_every_length(text: str) -> None:
    """The shortcuts of ``holds_secret`` (length, fixed parts) never hide a match."""
    assert holds_secret(text) == (re.search(SECRET_PATTERN, text) is not None)


_nested = st.recursive(
    st.none()
    | st.integers()
    | st.floats()
    | st.booleans()
    | st.text(max_size=12)
    | st.builds(
        lambda a, key, b: a + key + b,
        st.text(max_size=4),
        st.sampled_from(sorted(SHAPES.values())),
        st.text(max_size=4),
    ),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(
            st.text(max_size=6) | st.sampled_from(sorted(SHAPES.values())), inner, max_size=4
        )
    ),
    max_leaves=12,
)


@given(_nested)
def test_the_json_shortcut_of_the_object_check_never_hides_a_key(value: Any) -> None:
    """``scrub_event``'s check on objects reads most values as one JSON text first; it
    says "may hold one" whenever a string anywhere in the value (a dict key too) holds
    a key, as the walk over every value does."""
    from agentcore._core.secrets import _may_contain, _walk

    assert _walk(value) == _contains_key(value)
    if _contains_key(value):
        assert _may_contain(value)


def _contains_key(value: Any) -> bool:
    if isinstance(value, str):
        return re.search(SECRET_PATTERN, value) is not None
    if isinstance(value, list | tuple):
        return any(_contains_key(v) for v in value)
    if isinstance(value, dict):
        return any(_contains_key(k) or _contains_key(v) for k, v in value.items())
    return False


@settings(max_examples=200, deadline=None)
@given(st.lists(registered_events(), min_size=1, max_size=3), st.data())
def test_a_tuple_of_events_is_looked_at_by_each_event_s_scan(
    events: list[Any], data: st.DataObject
) -> None:
    """A tuple (a prompt's messages) is read item by item with each class's scan: a key
    in any string of any of its events is seen, and a tuple whose events hold no key is
    passed over unless one of their strings holds a fixed part of a pattern."""
    from agentcore._core.secrets import _may_contain

    position = data.draw(st.integers(0, len(events) - 1))
    wire = to_dict(events[position])
    paths = _string_paths(wire)
    if paths:
        path = data.draw(st.sampled_from(paths))
        key = data.draw(st.sampled_from(sorted(SHAPES.values())))
        try:
            events[position] = from_dict(_replaced(wire, path, f"x {key} y"))
        except InvalidEventError:
            assume(False)  # a field that takes only some strings (a Literal)
        assert _may_contain(tuple(events))
    if not any(has_secret(json.dumps(to_dict(e)).encode()) for e in events):
        assert not _may_contain(tuple(events)) or any(
            _may_hold_any(json.dumps(to_dict(e))) for e in events
        )


def _may_hold_any(text: str) -> bool:
    """Whether ``text`` holds a fixed part of a pattern (what a scan may stop at)."""
    return any(part in text for part in ("sk-", "sk_", "tgp_", "AIza", "earer", "EARER"))
