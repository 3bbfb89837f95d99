"""The one JSON normaliser of tool results and details: idempotent, standard, exact.

Tests the private module ``agentcore._loop.tool_json``: a tool result to JSON."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore._loop.tool_json import MAX_DEPTH, NotJSONError, to_json_text, to_json_value


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 7


class Mode(enum.StrEnum):
    FAST = "fast"


def _tagged(value: Any) -> Any:
    """``value`` with the type of every leaf and container spelled out, so equal means
    equal *and* of the same types (``1 == 1.0 == True`` in Python); key order is ignored."""
    if isinstance(value, dict):
        return ("dict", sorted(((_tagged(k), _tagged(v)) for k, v in value.items()), key=repr))
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_tagged(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.sampled_from([Level.LOW, Mode.FAST, "smile \ud83d", "\ud83d\ude00", 2**70, -(2**64)])
)
_KEYS = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
PYTHON_JSONISH = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(_KEYS, inner, max_size=4)
    ),
    max_leaves=12,
)
"""What tools return: JSON-like Python, with tuples, non-str keys, enums, NaN, surrogates."""


def _normalised(value: Any, strict: bool) -> Any:
    try:
        return to_json_value(value, strict=strict)
    except NotJSONError:
        return NotJSONError


@given(PYTHON_JSONISH)
def test_normalising_is_idempotent_in_both_modes(value: Any) -> None:
    for strict in (True, False):
        once = _normalised(value, strict)
        if once is not NotJSONError:
            assert _tagged(to_json_value(once, strict=strict)) == _tagged(once)


@given(PYTHON_JSONISH)
def test_strict_values_survive_the_journal_writer_exactly(value: Any) -> None:
    native = _normalised(value, True)
    if native is NotJSONError:
        return
    assert _tagged(orjson.loads(orjson.dumps(native))) == _tagged(native)
    assert _tagged(json.loads(json.dumps(native, allow_nan=False))) == _tagged(native)
    assert _tagged(_normalised(value, False)) == _tagged(native)  # lenient agrees


@given(PYTHON_JSONISH)
def test_text_for_the_model_is_standard_json(value: Any) -> None:
    try:
        text = to_json_text(value)
    except NotJSONError as exc:
        assert "which another key already is" in str(exc)  # {1: x, "1": y}: ambiguous
        return

    def refuse(constant: str) -> Any:
        raise AssertionError(constant)

    parsed = json.loads(text, parse_constant=refuse)
    text.encode("utf-8")  # no surrogate reaches the model or the journal
    assert _tagged(parsed) == _tagged(to_json_value(value, strict=False))


_PATH_STEP = st.one_of(
    st.integers(0, 3).map(lambda i: ("list", i)), st.text().map(lambda k: ("dict", k))
)


@given(st.lists(_PATH_STEP, max_size=6), st.sampled_from([set(), object(), b"bytes", 1j]))
def test_an_error_names_the_path_of_what_is_not_json(steps: list[Any], bad: Any) -> None:
    value: Any = bad
    path: list[str | int] = []
    for kind, key in reversed(steps):
        value = [None] * key + [value] if kind == "list" else {key: value}
        path.insert(0, key)
    for strict in (True, False):
        with pytest.raises(NotJSONError) as caught:
            to_json_value(value, strict=strict)
        assert caught.value.path == tuple(path)
        assert caught.value.reason == f"{type(bad).__name__} is not a JSON value"


def test_depth_is_bounded_and_cycles_are_errors() -> None:
    deep: Any = 0
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert to_json_value(deep) == deep
    with pytest.raises(NotJSONError, match=r"^at \$\[0\]\[0\].*\.\.\.: nested more than 200"):
        to_json_value([deep])
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    with pytest.raises(NotJSONError, match="or circular"):
        to_json_value(cycle)


def test_modes_differ_only_where_the_journal_cannot_follow() -> None:
    value = {"nan": math.nan, "inf": -math.inf, "text": "a\ud83db", "big": 2**64}
    assert to_json_value(value, strict=False) == {
        "nan": "NaN",
        "inf": "-Infinity",
        "text": "a\ufffdb",
        "big": 2**64,
    }
    with pytest.raises(NotJSONError, match=r"^at \$\.nan: NaN is not a JSON number$"):
        to_json_value(value)
    assert to_json_value({1.5: 0, None: 1, True: 2, Level.HIGH: 3}) == {
        "1.5": 0,
        "null": 1,
        "true": 2,
        "7": 3,
    }
