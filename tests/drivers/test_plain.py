"""``plain``: the one helper the request builders and structured output share to turn the
immutable mappings and tuples of tool inputs, schemas and options into JSON data.

Tests the private module ``agentcore.drivers._common.base``, where it lives."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import hypothesis.strategies as st
from hypothesis import given

from agentcore.drivers._common.base import plain

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def frozen(value: Any) -> Any:
    """``value`` with every dict a read-only mapping and every list a tuple."""
    if isinstance(value, dict):
        return MappingProxyType({k: frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value


@given(JSON)
def test_plain_gives_back_the_json_data_a_frozen_value_was_made_from(value: Any) -> None:
    out = plain(frozen(value))
    assert out == value
    assert json.loads(json.dumps(out)) == json.loads(json.dumps(value))


def test_plain_keeps_strings_and_bytes_whole_and_stringifies_keys() -> None:
    assert plain({1: ("ab", b"cd")}) == {"1": ["ab", b"cd"]}
