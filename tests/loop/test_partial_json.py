"""Partial JSON: any chunking of a JSON text shows prefixes of its value, then the value."""

from __future__ import annotations

import itertools
import json
from typing import Any

import jiter
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.loop import PartialJson, is_prefix, json_in_text, parse_partial
from agentcore.testing import chunked, json_objects, json_values

_objects = json_objects(12) | st.lists(json_values(6), max_size=4).map(lambda v: {"items": v})
_texts = st.tuples(_objects, st.booleans()).map(
    lambda p: json.dumps(p[0], ensure_ascii=p[1], indent=2 if p[1] else None)
)


def _shown(chunks: list[str]) -> list[Any]:
    """Every distinct value a ``PartialJson`` shows while ``chunks`` arrive."""
    partial, shown = PartialJson(), []
    for chunk in [*chunks, None]:  # None: the text is over, settle it
        partial = partial.settled() if chunk is None else partial.extend(chunk)
        if partial.value is not None and (not shown or partial.value != shown[-1]):
            shown.append(partial.value)
    return shown


@settings(max_examples=300, deadline=None)
@given(st.data(), _texts)
def test_any_chunking_shows_prefixes_then_the_whole_value(data: st.DataObject, text: str) -> None:
    chunks = data.draw(chunked(text))
    shown = _shown(chunks)
    final = jiter.from_json(text.encode())
    assert shown and shown[-1] == final  # the same final object whatever the chunking
    for before, after in itertools.pairwise(shown):
        assert is_prefix(before, after), (before, after)
    assert all(is_prefix(v, final) for v in shown)


@settings(max_examples=200, deadline=None)
@given(_texts, st.data())
def test_every_prefix_shows_a_prefix_of_the_value(text: str, data: st.DataObject) -> None:
    final = json.loads(text)
    cut = data.draw(st.integers(0, len(text)))
    assert is_prefix(parse_partial(text[:cut]), final)


def test_numbers_and_literals_appear_only_once_complete() -> None:
    assert parse_partial('{"a": 12') == {}
    assert parse_partial('{"a": 12,') == {"a": 12}
    assert parse_partial('{"a": tr') == {}
    assert parse_partial('{"a": "caf') == {"a": "caf"}
    assert parse_partial('{"a": [1, 2') == {"a": [1]}
    assert parse_partial("") is None and parse_partial("Hello") is None


def test_prose_and_a_code_fence_around_the_json_are_ignored() -> None:
    assert parse_partial('Here it is:\n```json\n{"a": "x') == {"a": "x"}
    assert json_in_text('Sure:\n```json\n{"a": [1, {"b": null}]}\n```\nDone.') == {
        "a": [1, {"b": None}]
    }


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("no json here", "holds no JSON object"),
        ('{"a": }', "not valid JSON"),
        ('{"a": 1e999}', "JSON cannot carry"),
    ],
)
def test_a_final_text_without_a_valid_object_says_why(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        json_in_text(text)


def test_a_long_text_is_parsed_a_bounded_number_of_times() -> None:
    value = {"content": "x" * 200_000}
    text = json.dumps(value)
    partial, parses = PartialJson(), 0
    for i in range(0, len(text), 10):
        before = partial.parsed
        partial = partial.extend(text[i : i + 10])
        parses += partial.parsed != before
    # every chunk below 1 KiB, then once per eighth of growth: logarithmic in the length
    assert parses < 1024 // 10 + 120
    assert partial.value != value  # the last chunk did not trigger a parse...
    assert partial.settled().value == value  # ...but the text is all there


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({"a": "x"}, {"a": "xy", "b": 1}, True),
        ({"a": "x", "b": 1}, {"a": "xy", "b": 1}, False),  # only the last entry may grow
        ({"b": 1}, {"a": 1, "b": 1}, False),  # keys keep their order
        ([1, "a"], [1, "ab", 3], True),
        ([2], [1], False),
        (1, 1.0, False),
        (None, {"a": 1}, True),
    ],
)
def test_is_prefix(before: Any, after: Any, expected: bool) -> None:
    assert is_prefix(before, after) is expected
