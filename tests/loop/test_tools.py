"""Tools: schema derivation, validation messages, results, timeouts and failures."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Literal, TypedDict

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.errors import ConfigurationError
from agentcore.events import ImageContent, TextContent
from agentcore.tools import (
    AbortSignal,
    ToolContext,
    ToolOutput,
    define_tool,
    run_tool,
    schema_for,
    to_result_content,
    tool,
)


def _ctx(updates: list[Any] | None = None) -> ToolContext:
    sink = updates if updates is not None else []
    return ToolContext("t1", "x", AbortSignal(), (), sink.append)


async def _echo(args: Any, ctx: ToolContext) -> Any:
    return args


@dataclasses.dataclass
class Weather:
    """Ask for the weather.

    More text that is not the description."""

    city: str
    days: int = 1
    unit: Literal["c", "f"] = "c"


@attrs.define
class Point:
    x: float
    y: float
    tags: list[str] = attrs.Factory(list)


class Query(TypedDict):
    q: str
    limit: int | None


def test_schema_from_dataclass_attrs_and_typeddict() -> None:
    assert schema_for(Weather) == {
        "type": "object",
        "description": "Ask for the weather.",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "default": 1},
            "unit": {"enum": ["c", "f"], "default": "c"},
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    point = schema_for(Point)
    assert point["required"] == ["x", "y"]
    assert point["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    query = schema_for(Query)
    assert query["properties"]["limit"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert query["required"] == ["q", "limit"]


def test_class_parameters_build_an_instance() -> None:
    got: list[Any] = []

    async def run(args: Weather, ctx: ToolContext) -> str:
        got.append(args)
        return args.city

    t = define_tool("weather", "w", Weather, run)
    out = asyncio.run(run_tool(t, {"city": "Oslo"}, _ctx()))
    assert out.content == "Oslo" and not out.is_error
    assert got == [Weather("Oslo")]


def test_decorator_derives_schema_and_passes_ctx() -> None:
    @tool
    async def add(a: int, b: int = 2, ctx: ToolContext | None = None) -> int:
        """Add two numbers.

        Long explanation."""
        assert ctx is not None
        ctx.on_update({"step": "adding"})
        return a + b

    assert add.name == "add" and add.description == "Add two numbers."
    assert add.parameters["required"] == ["a"]
    assert "ctx" not in add.parameters["properties"]
    updates: list[Any] = []
    out = asyncio.run(run_tool(add, {"a": 1}, _ctx(updates)))
    assert out.content == "3"
    assert updates == [{"step": "adding"}]


def test_decorator_with_options_and_sync_function_rejected() -> None:
    @tool(name="slow", timeout=1.5, sequential=True, requires_approval=True)
    async def f() -> str:
        return "x"

    assert (f.name, f.timeout, f.sequential, f.requires_approval) == ("slow", 1.5, True, True)
    with pytest.raises(ConfigurationError, match="async function"):
        tool(lambda: None)


def test_validation_names_each_path_and_what_was_sent() -> None:
    t = define_tool("weather", "w", Weather, _echo)
    args = {"days": "two", "unit": "k", "extra": 1}
    errors = t.validation_errors(args)
    assert any(e.startswith("at $.days:") and "'two' is not of type 'integer'" in e for e in errors)
    assert any(e.startswith("at $.unit:") for e in errors)
    assert any("'city' is a required property" in e for e in errors)
    assert any("'extra' was unexpected" in e for e in errors)
    message = t.invalid_arguments_message(args, errors)
    assert "was not executed" in message
    assert 'You sent: {"days": "two", "extra": 1, "unit": "k"}' in message
    assert t.validation_errors({"city": "Oslo", "days": 3}) == []


def test_nested_paths_use_indices() -> None:
    t = define_tool("p", "p", Point, _echo)
    assert t.validation_errors({"x": 1, "y": 2, "tags": ["a", 3]}) == [
        "at $.tags[1]: 3 is not of type 'string'"
    ]


@pytest.mark.parametrize(
    ("name", "params", "kwargs", "needle"),
    [
        ("bad name", {"type": "object"}, {}, "must be non-empty letters"),
        ("", {"type": "object"}, {}, "must be non-empty letters"),
        ("t", {"type": "string"}, {}, "must be an object schema"),
        ("t", {"type": "object", "properties": 3}, {}, "invalid JSON Schema"),
        ("t", {"type": "object"}, {"timeout": 0}, "timeout must be > 0"),
        ("t", int, {}, "cannot derive a JSON Schema"),
    ],
)
def test_bad_definitions_are_rejected_clearly(
    name: str, params: Any, kwargs: dict[str, Any], needle: str
) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        define_tool(name, "d", params, _echo, **kwargs)


def test_results_text_json_images_and_details() -> None:
    image = ImageContent("image/png", "iVBORw0KGgo=")
    assert to_result_content("hi") == "hi"
    assert to_result_content({"b": 1, "a": [1, 2]}) == '{"a": [1, 2], "b": 1}'
    assert to_result_content(image) == (image,)
    assert to_result_content([TextContent("see"), image]) == (TextContent("see"), image)
    assert to_result_content([]) == "[]"

    async def with_details(args: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput("done", details={"rows": 3})

    out = asyncio.run(run_tool(define_tool("d", "d", {"type": "object"}, with_details), {}, _ctx()))
    assert (out.content, out.details, out.is_error) == ("done", {"rows": 3}, False)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), st.lists, max_leaves=8))
def test_json_results_round_trip(value: Any) -> None:
    text = to_result_content(value)
    if isinstance(value, str):
        assert text == value
    else:
        assert isinstance(text, str) and json.loads(text) == value


def test_failures_become_error_results() -> None:
    async def boom(args: Any, ctx: ToolContext) -> str:
        raise ValueError("disk full")

    async def slow(args: Any, ctx: ToolContext) -> str:
        await asyncio.sleep(5)
        return "late"

    async def odd(args: Any, ctx: ToolContext) -> object:
        return object()

    schema = {"type": "object"}
    raised = asyncio.run(run_tool(define_tool("boom", "b", schema, boom), {}, _ctx()))
    assert raised.is_error and raised.content == "Tool 'boom' failed: ValueError: disk full"
    assert raised.details == {"error_code": "TOOL_EXECUTION_ERROR"}
    timed = asyncio.run(run_tool(define_tool("slow", "s", schema, slow, timeout=0.01), {}, _ctx()))
    assert timed.is_error and "timed out after 0.01 s" in str(timed.content)
    weird = asyncio.run(run_tool(define_tool("odd", "o", schema, odd), {}, _ctx()))
    assert weird.is_error and "not text, an image or JSON" in str(weird.content)


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_a_tool_raising_timeout_error_itself_is_a_failure_not_our_timeout(
    timeout: float | None,
) -> None:
    """Only our own deadline is reported as a timeout; the tool's TimeoutError is its own."""

    async def upstream(args: Any, ctx: ToolContext) -> str:
        raise TimeoutError("weather service timed out")

    t = define_tool("w", "w", {"type": "object"}, upstream, timeout=timeout)
    outcome = asyncio.run(run_tool(t, {}, _ctx()))
    assert outcome.is_error
    assert outcome.content == "Tool 'w' failed: TimeoutError: weather service timed out"


def test_abort_signal_is_idempotent_and_awaitable() -> None:
    async def main() -> bool:
        signal = AbortSignal()
        waiter = asyncio.create_task(signal.wait())
        signal.abort()
        signal.abort()
        await asyncio.wait_for(waiter, 1)
        return signal.aborted

    assert asyncio.run(main())
