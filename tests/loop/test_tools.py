"""Tools: schema derivation, validation messages, results, timeouts and failures."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
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
    as_tool,
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
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
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


def test_decorator_with_options() -> None:
    @tool(name="slow", timeout=1.5, sequential=True, requires_approval=True, idempotent=True)
    async def f() -> str:
        return "x"

    assert (f.name, f.timeout, f.sequential, f.requires_approval, f.idempotent) == (
        "slow",
        1.5,
        True,
        True,
        True,
    )
    assert not define_tool("g", "g", {"type": "object"}, _echo).idempotent


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
        ("t", 42, {}, "must be a JSON Schema dict or a class, got int"),
        ("t", {"type": "object"}, {"timeout": "3"}, "timeout must be > 0 seconds, got '3'"),
        ("t", {"type": "object"}, {"timeout": True}, "timeout must be > 0 seconds, got True"),
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


def test_define_tool_checks_execute_takes_args_and_ctx() -> None:
    with pytest.raises(ConfigurationError, match="execute must be a function, got 'run'"):
        define_tool("t", "d", {"type": "object"}, "run")  # type: ignore[arg-type]

    async def one(args: Any) -> str:
        return "x"

    with pytest.raises(ConfigurationError, match=r"execute must take two arguments \(args, ctx\)"):
        define_tool("t", "d", {"type": "object"}, one)  # type: ignore[arg-type]


def test_sync_functions_are_tools_that_run_in_a_thread() -> None:
    def plain(args: Any, ctx: ToolContext) -> str:
        return "x"

    @tool
    def add(a: int, b: int) -> int:
        return a + b

    @tool
    async def later(a: int) -> int:
        return a

    assert define_tool("p", "p", {"type": "object"}, plain).runs_in_thread
    assert not define_tool("e", "e", {"type": "object"}, _echo).runs_in_thread
    assert add.runs_in_thread and not later.runs_in_thread
    assert asyncio.run(run_tool(add, {"a": 2, "b": 3}, _ctx())).content == "5"


# -- definition-time errors for what a model could never call ---------------------------------


def _star_args(*items: str) -> str:
    return ""


def _star_kwargs(a: int, **rest: int) -> str:
    return ""


def _positional_only(a: int, /, b: int) -> str:
    return ""


class _Holder:
    def method(self, a: int) -> int:
        return a


@pytest.mark.parametrize(
    ("fn", "needle"),
    [
        (_star_args, r"_star_args takes \*items; the model sends one JSON object"),
        (_star_kwargs, r"_star_kwargs takes \*\*rest"),
        (_positional_only, r"parameter 'a' of _positional_only is positional-only"),
        (_Holder.method, r"_Holder.method is a method .* tool\(instance.method\)"),
    ],
)
def test_decorator_rejects_signatures_a_model_cannot_call(fn: Any, needle: str) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        tool(fn)


def test_a_bound_method_is_a_tool() -> None:
    bound = tool(_Holder().method)
    assert bound.parameters["required"] == ["a"]
    assert asyncio.run(run_tool(bound, {"a": 7}, _ctx())).content == "7"


def test_unsupported_types_name_the_function_and_parameter() -> None:
    def when(moment: complex) -> str:
        return ""

    with pytest.raises(ConfigurationError, match=r"@tool: .*when: parameter 'moment': cannot"):
        tool(when)

    def keys(table: dict[int, str]) -> str:
        return ""

    with pytest.raises(ConfigurationError, match=r"parameter 'table'.*key type must be str"):
        tool(keys)

    def unresolved(x: Missing) -> str:  # type: ignore[name-defined]  # noqa: F821
        return ""

    with pytest.raises(ConfigurationError, match=r"cannot read the signature of .*unresolved"):
        tool(unresolved)


# -- the context parameter -------------------------------------------------------------------


@dataclasses.dataclass
class Settings:
    prefix: str


def test_the_context_parameter_is_found_by_annotation_under_any_name() -> None:
    @tool
    def greet(name: str, context: ToolContext[Settings]) -> str:
        return f"{context.deps.prefix} {name} ({context.tool_call_id})"

    @tool
    async def maybe(name: str, c: ToolContext[Settings] | None = None) -> str:
        assert c is not None
        return c.deps.prefix + name

    assert greet.parameters["properties"] == {"name": {"type": "string"}}
    assert maybe.parameters["properties"] == {"name": {"type": "string"}}
    ctx = ToolContext("call_9", "greet", AbortSignal(), (), print, deps=Settings("hello"))
    assert asyncio.run(run_tool(greet, {"name": "Ada"}, ctx)).content == "hello Ada (call_9)"
    assert asyncio.run(run_tool(maybe, {"name": "Ada"}, ctx)).content == "helloAda"


@dataclasses.dataclass
class Wrapped:
    ctx: ToolContext


def test_context_parameter_mistakes_are_definition_errors() -> None:
    def typed_ctx(ctx: str) -> str:
        return ctx

    with pytest.raises(ConfigurationError, match=r"'ctx' of .*typed_ctx is annotated"):
        tool(typed_ctx)

    def two(a: ToolContext, ctx: ToolContext) -> str:
        return ""

    with pytest.raises(ConfigurationError, match="two ToolContext parameters, 'a' and 'ctx'"):
        tool(two)

    with pytest.raises(ConfigurationError, match=r"parameter 'w': .*field 'ctx': ToolContext"):

        @tool
        def nested(w: Wrapped) -> str:
            return ""


# -- as_tool ----------------------------------------------------------------------------------


def test_as_tool_keeps_tools_and_wraps_functions() -> None:
    t = define_tool("e", "e", {"type": "object"}, _echo)
    assert as_tool(t) is t

    def double(n: int) -> int:
        """Double n."""
        return 2 * n

    async def triple(n: int) -> int:
        return 3 * n

    made = as_tool(double)
    assert (made.name, made.description, made.runs_in_thread) == ("double", "Double n.", True)
    assert asyncio.run(run_tool(made, {"n": 4}, _ctx())).content == "8"
    assert asyncio.run(run_tool(as_tool(triple), {"n": 4}, _ctx())).content == "12"


@pytest.mark.parametrize("thing", ["double", 42, None, Settings, print, functools.partial(_echo)])
def test_as_tool_says_what_a_tool_may_be(thing: Any) -> None:
    with pytest.raises(ConfigurationError, match=r"is not a tool: pass a Tool .* or a function"):
        as_tool(thing)


# -- validation is strict about JSON types ------------------------------------------------------


def test_an_integer_parameter_refuses_floats_and_booleans() -> None:
    @tool
    def count(n: int, x: float = 0.0, flag: bool = False) -> int:
        return n

    assert count.validation_errors({"n": 5, "x": 5}) == []
    assert count.validation_errors({"n": 5, "x": 2.5, "flag": True}) == []
    assert count.validation_errors({"n": 5.0}) == ["at $.n: 5.0 is not of type 'integer'"]
    assert count.validation_errors({"n": True}) == ["at $.n: True is not of type 'integer'"]
    assert count.validation_errors({"n": 1, "x": False}) == [
        "at $.x: False is not of type 'number'"
    ]
    assert count.validation_errors({"n": 1, "flag": 1}) == ["at $.flag: 1 is not of type 'boolean'"]
    by_hand = define_tool(
        "h", "h", {"type": "object", "properties": {"n": {"type": "integer"}}}, _echo
    )
    assert by_hand.validation_errors({"n": 5.0}) == ["at $.n: 5.0 is not of type 'integer'"]


# -- results ----------------------------------------------------------------------------------


def test_non_finite_numbers_become_strings_the_model_can_read() -> None:
    text = to_result_content({"mean": float("nan"), "max": float("inf"), "min": -float("inf")})
    assert text == '{"max": "Infinity", "mean": "NaN", "min": "-Infinity"}'
    assert to_result_content(float("nan")) == '"NaN"'
    assert json.loads(text, parse_constant=_refuse) == {
        "max": "Infinity",
        "mean": "NaN",
        "min": "-Infinity",
    }


def _refuse(constant: str) -> Any:
    raise AssertionError(f"non-standard JSON constant {constant}")


def test_result_errors_read_well() -> None:
    with pytest.raises(TypeError, match=r"^at \$\.rows\[1\]: set is not a JSON value$"):
        to_result_content({"rows": [1, {2}]})

    async def odd(args: Any, ctx: ToolContext) -> object:
        return {"when": object()}

    out = asyncio.run(run_tool(define_tool("odd", "o", {"type": "object"}, odd), {}, _ctx()))
    assert out.content == (
        "Tool 'odd' returned content that is not text, an image or JSON: "
        "at $.when: object is not a JSON value"
    )
    assert "tool tool" not in str(out.content).lower()
