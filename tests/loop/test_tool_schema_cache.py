"""The metaschema check and the compiled validators are remembered per distinct schema
(by content): a refused schema is refused with the metaschema's message every time, and
one schema's answer is never given for another.

Tests the private module ``agentcore._loop.tool_schema``: the compiled validators and their
cache."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._loop.tool_schema import StrictValidator, compiled_validator, schema_problem
from agentcore.errors import ConfigurationError
from agentcore.tools import define_tool


async def _run(args: Any, ctx: Any) -> str:
    return "ok"


def _direct(schema: dict[str, Any]) -> str | None:
    try:
        StrictValidator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return str(exc.message)
    return None


_values = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["string", "integer", "object", "array", "nope", "", 1.5, None, True]),
    st.lists(st.sampled_from(["a", "b", 1]), max_size=3),
    st.lists(st.sampled_from(["a", "b", 1]), max_size=3).map(tuple),
)
_keywords = st.sampled_from(["type", "enum", "minimum", "required", "items", "properties"])
_property = st.dictionaries(_keywords, _values, max_size=3)
_schemas = st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={
        "properties": st.one_of(st.dictionaries(st.sampled_from(["a", "b"]), _property), _values),
        "required": _values,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_schemas, min_size=1, max_size=6))
def test_each_answer_is_the_metaschema_answer_for_that_schema(schemas: list[Any]) -> None:
    # Every schema is asked twice, interleaved with the others: a cached answer (valid or
    # not) must be the one the metaschema gives for that very schema.
    for schema in schemas + schemas[::-1]:
        assert schema_problem(schema) == _direct(schema)


def test_a_refused_schema_is_refused_each_time_with_the_same_message() -> None:
    schema = {"type": "object", "properties": 3}
    messages = []
    for _ in range(3):
        with pytest.raises(ConfigurationError) as info:
            define_tool("t", "", schema, _run)
        messages.append(str(info.value))
    assert messages == ["tool 't': invalid JSON Schema: 3 is not of type 'object'"] * 3


def test_a_tuple_is_not_taken_for_the_list_it_prints_as() -> None:
    # json.dumps writes a tuple as a list; the metaschema refuses the tuple (not an array),
    # so the list's cached answer must not be given for it, in either order.
    good = {"type": "object", "properties": {"a": {"enum": [1, 2]}}}
    bad = {"type": "object", "properties": {"a": {"enum": (1, 2)}}}
    for first, second in ((good, bad), (bad, good)):
        assert schema_problem(first) == _direct(first)
        assert schema_problem(second) == _direct(second)
    assert schema_problem(good) is None
    assert schema_problem(bad) is not None


def test_tools_with_the_same_schema_share_a_validator_and_others_do_not() -> None:
    one = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    same = {"required": ["n"], "properties": {"n": {"type": "integer"}}, "type": "object"}
    other = {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}
    assert compiled_validator(one) is compiled_validator(same)
    assert compiled_validator(one).is_valid({"n": 1})
    assert not compiled_validator(other).is_valid({"n": 1})
    assert compiled_validator(other).is_valid({"n": "x"})


def test_a_function_made_a_tool_again_gives_the_same_tool_until_it_changes() -> None:
    """``tool(fn)`` reads a function's signature once: the same function with the same
    options gives the same (immutable) Tool, and a reassigned annotation, default or
    docstring, or other options, give a new one built from what the function is now."""
    from agentcore.tools import tool

    async def add(a: int, b: int = 1) -> int:
        """Add two numbers."""
        return a + b

    first = tool(add)
    assert tool(add) is first
    assert tool(name="plus")(add) is not first
    assert tool(name="plus")(add).name == "plus"
    add.__annotations__["b"] = str
    changed = tool(add)
    assert changed is not first
    assert changed.parameters["properties"]["b"] == {"type": "string", "default": 1}
    add.__defaults__ = (2,)
    assert tool(add).parameters["properties"]["b"]["default"] == 2
    add.__doc__ = "Sum."
    assert tool(add).description == "Sum."

    class Box:
        async def get(self, key: str) -> str:
            return key

    box = Box()
    assert tool(box.get).parameters["properties"] == {"key": {"type": "string"}}


_flat_types = st.sampled_from(["integer", "number", "string", "boolean", "null"])
_flat_property = st.fixed_dictionaries(
    {}, optional={"type": _flat_types, "description": st.just("d"), "default": st.integers()}
)
_names = st.sampled_from(["a", "b", "c"])
_flat_schemas = st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={
        "properties": st.dictionaries(_names, _flat_property, max_size=3),
        "required": st.lists(_names, max_size=3),
        "additionalProperties": st.booleans(),
        "title": st.just("t"),
    },
)
_arguments = st.one_of(
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d"]),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.floats(allow_nan=False),
            st.just(5.0),
            st.text(max_size=3),
            st.lists(st.integers(), max_size=2),
        ),
        max_size=4,
    ),
    st.lists(st.integers(), max_size=2),
    st.text(max_size=3),
)


@settings(max_examples=400, deadline=None)
@given(_flat_schemas, _arguments)
def test_a_flat_schema_s_plain_check_answers_as_the_validator(
    schema: dict[str, Any], value: Any
) -> None:
    """The schemas ``@tool`` makes of plain parameters are checked in plain Python (no
    jsonschema call per tool call): always as ``StrictValidator`` would, and a failing
    call still gets the validator's own messages."""
    from agentcore._loop.tool_schema import _FlatValidator

    validator = compiled_validator(schema)
    assert isinstance(validator, _FlatValidator)
    expected = StrictValidator(schema)
    assert validator.is_valid(value) == expected.is_valid(value)
    assert sorted(e.message for e in validator.iter_errors(value)) == sorted(
        e.message for e in expected.iter_errors(value)
    )


def test_a_schema_with_more_than_flat_keywords_gets_the_validator() -> None:
    from agentcore._loop.tool_schema import _FlatValidator

    nested = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}}}
    assert not isinstance(compiled_validator(nested), _FlatValidator)
    assert not compiled_validator(nested).is_valid({"a": 0})
