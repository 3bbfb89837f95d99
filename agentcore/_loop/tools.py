"""Tools: what the model may call, the JSON Schema of their arguments, and their results.

This module is pure (no asyncio, no I/O) because the agent-loop processor uses it to
decide, before anything runs, whether a call names a known tool and whether its
arguments validate. Running a tool (threads, timeouts, cancellation, progress) is the
runtime's job, in ``_runtime.tool_runner``.

A tool's ``parameters`` is a JSON Schema dict, or a Python class (dataclass, attrs class,
TypedDict, pydantic model) from which a schema is derived (``tool_schema``); ``@tool``
derives it from a function's signature. Arguments are checked with a Draft 2020-12
validator whose ``integer`` rejects ``5.0``; a call that fails is never executed, and the
model is told each failing path and what it sent. Results become JSON (``tool_json``).
"""

from __future__ import annotations

import inspect
import json
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeGuard, get_type_hints, overload

import attrs

from .._core.content import CONTENT_CLASSES, Content, ContentPart, JSONValue
from .._core.driver import ToolSpec
from .._core.errors import ConfigurationError
from .tool_json import json_path, to_json_text, to_json_value
from .tool_schema import (
    class_arguments,
    compiled_validator,
    is_context,
    schema_for,
    schema_problem,
    signature_arguments,
)

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see _core/records.py)
    from .._core.records import frozen

__all__ = [
    "Tool",
    "ToolFunction",
    "ToolOutput",
    "as_tool",
    "define_tool",
    "schema_for",
    "to_result_content",
    "tool",
]

ToolFunction: TypeAlias = Callable[[Any, Any], Any]
"""``execute(args, ctx) -> result``, ``async`` or plain; ``ctx`` is a ``ToolContext``.

A plain (sync) function runs in a worker thread so it never blocks the event loop."""


@frozen
class ToolOutput:
    """A tool result with extras: ``content`` goes to the model, ``details`` only to UIs.

    ``content`` may be anything a tool may return (``to_result_content``): text, JSON, or
    content parts: images, documents (PDF, plain text), audio clips
    (``ImageContent.from_bytes(png)``, ``DocumentContent.from_bytes(pdf, title=...)``,
    ``AudioContent.from_bytes(wav)``) and files the provider fetches
    (``FileContent.from_url``), alone or in a list with ``TextContent`` notes. A driver
    refuses, before sending, a part its provider does not take. ``details`` must
    be JSON (it is journaled; a result whose details are not JSON becomes an error
    result); ``is_error`` marks a result the tool itself considers a failure, without
    raising.
    """

    content: Any
    details: JSONValue = None
    is_error: bool = False


def _is_async(fn: object) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - an object with an async __call__
    )


_WAITS = frozenset({"YIELD_VALUE", "SEND", "GET_AWAITABLE", "GET_AITER", "GET_ANEXT"})
"""The opcodes by which a coroutine may suspend (``await``, ``async for``/``with``)."""


def _never_waits(execute: object) -> bool:
    """Whether ``execute`` runs to its end in one step: an ``async`` function whose own
    code (through ``@tool``'s wrapper, the function it awaits) holds no ``await``,
    ``async for`` or ``async with``. Anything else (a plain function, an object with an
    async ``__call__``, a ``partial``) may wait, as far as this can tell."""
    fn = getattr(execute, "__dict__", {}).get("_awaits", execute)
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_flags & inspect.CO_COROUTINE:
        return False
    import dis  # a tool's first call only

    return not any(i.opname in _WAITS for i in dis.get_instructions(code))


@frozen(eq=False)
class Tool:
    """A tool the model may call. Build one with ``define_tool``, ``@tool`` or ``as_tool``.

    ``timeout`` (seconds) bounds one execution; ``sequential`` makes the tool run alone
    (a barrier between parallel groups); ``requires_approval`` stops the loop until the
    call is approved or rejected; ``idempotent`` says that running a call twice does no
    harm, so the runtime may run it again when it resumes after a crash without knowing
    whether the first run finished. ``build_args`` turns validated JSON arguments into
    what ``execute`` receives; when it raises (a class refusing the values), ``run_tool``
    answers the call as having invalid arguments.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    execute: ToolFunction
    timeout: float | None = None
    sequential: bool = False
    requires_approval: bool = False
    build_args: Callable[[Mapping[str, Any]], Any] = dict
    idempotent: bool = False
    _validator: Any = attrs.field(init=False, repr=False, default=None)
    """Compiled on the first validation (shared by content, ``compiled_validator``): a
    tool declared from a journal, or never called, costs no compilation."""
    _sync: bool = attrs.field(init=False, repr=False)
    _one_step: bool | None = attrs.field(init=False, repr=False, default=None)
    """``never_waits``, read from the code on first use."""

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_sync", not _is_async(self.execute))

    @property
    def spec(self) -> ToolSpec:
        """What the model is told about this tool."""
        return ToolSpec(self.name, self.description, self.parameters)

    @property
    def runs_in_thread(self) -> bool:
        """Whether ``execute`` is a plain function, which the runtime runs in a thread."""
        return self._sync

    @property
    def never_waits(self) -> bool:
        """Whether ``execute`` is an ``async`` function whose code holds no ``await``,
        ``async for`` or ``async with``: it runs to its end in one step, so the runtime
        may run a lone call of it in the task that streams the run (docs/tools.md)."""
        one_step = self._one_step
        if one_step is None:
            one_step = _never_waits(self.execute)
            object.__setattr__(self, "_one_step", one_step)
        return one_step

    def validation_errors(self, args: Mapping[str, Any]) -> list[str]:
        """One line per schema violation (``at $.path: message``), sorted; empty if valid."""
        validator = self._validator
        if validator is None:
            validator = compiled_validator(self.parameters)
            object.__setattr__(self, "_validator", validator)
        if validator.is_valid(args):  # the common case: stop at the first error
            return []
        errors = sorted(validator.iter_errors(args), key=lambda e: list(e.absolute_path))
        return [f"at {json_path(e.absolute_path)}: {e.message}" for e in errors]

    def invalid_arguments_message(self, args: Mapping[str, Any], errors: Sequence[str]) -> str:
        """The error result the model gets for a call whose arguments failed validation."""
        lines = "\n".join(f"  - {e}" for e in errors)
        sent = json.dumps(args, sort_keys=True, default=str)
        return (
            f"Invalid arguments for tool {self.name!r}; the call was not executed.\n"
            f"{lines}\nYou sent: {sent}"
        )


def define_tool(
    name: str,
    description: str,
    parameters: Mapping[str, Any] | type[Any],
    execute: ToolFunction,
    *,
    timeout: float | None = None,
    sequential: bool = False,
    requires_approval: bool = False,
    idempotent: bool = False,
) -> Tool:
    """Define a tool.

    ``parameters`` is a JSON Schema dict (an ``object`` schema), or a dataclass, attrs
    class, TypedDict or pydantic model; for a class, ``execute`` receives an instance
    built from the validated arguments (nested classes, enums and tuples built too; a
    dict for a TypedDict), otherwise the validated dict. ``execute(args, ctx)`` may be
    ``async`` or plain (run in a worker thread). Raises ``ConfigurationError`` for a bad
    name, a non-object schema, a schema ``jsonschema`` rejects, an ``execute`` that cannot
    take ``(args, ctx)``, or a timeout that is not a positive number of seconds.
    """
    if isinstance(parameters, type):
        schema, build = class_arguments(parameters)
    elif isinstance(parameters, Mapping):
        schema, build = dict(parameters), dict
    else:
        raise ConfigurationError(
            f"tool {name!r}: parameters must be a JSON Schema dict or a class, got "
            f"{type(parameters).__name__}"
        )
    return _make_tool(
        name,
        description,
        schema,
        build,
        execute,
        timeout=timeout,
        sequential=sequential,
        requires_approval=requires_approval,
        idempotent=idempotent,
    )


def _make_tool(
    name: str,
    description: str,
    schema: dict[str, Any],
    build: Callable[[Mapping[str, Any]], Any],
    execute: ToolFunction,
    *,
    timeout: float | None,
    **options: bool,
) -> Tool:
    """Check what ``define_tool`` and ``@tool`` share, then build the Tool."""
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "_-" for c in name):
        raise ConfigurationError(
            f"tool name {name!r} must be non-empty letters, digits, '_' or '-' "
            "(providers reject other characters)"
        )
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0
    ):
        raise ConfigurationError(f"tool {name!r}: timeout must be > 0 seconds, got {timeout!r}")
    _check_execute(name, execute)
    if schema.get("type") != "object":
        raise ConfigurationError(
            f"tool {name!r}: parameters must be an object schema "
            f'({{"type": "object", "properties": ...}}), got type {schema.get("type")!r}'
        )
    problem = schema_problem(schema)
    if problem is not None:
        raise ConfigurationError(f"tool {name!r}: invalid JSON Schema: {problem}")
    return Tool(name, description, schema, execute, timeout=timeout, build_args=build, **options)


def _check_execute(name: str, execute: object) -> None:
    if not callable(execute):
        raise ConfigurationError(f"tool {name!r}: execute must be a function, got {execute!r}")
    try:
        inspect.signature(execute).bind(None, None)
    except TypeError:
        raise ConfigurationError(
            f"tool {name!r}: execute must take two arguments (args, ctx); "
            "use @tool to make a tool of a function with named parameters"
        ) from None
    except ValueError:  # no signature to read (some builtins): trust the caller
        pass


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    sequential: bool = False,
    requires_approval: bool = False,
    idempotent: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    sequential: bool = False,
    requires_approval: bool = False,
    idempotent: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Decorator: turn ``def f(a: int, b: str = "x", ctx: ToolContext)`` into a Tool.

    The function may be ``async`` or plain (a plain one runs in a worker thread). The
    schema comes from the annotated parameters; the parameter annotated ``ToolContext``
    (any name; or, unannotated, named ``ctx``) receives the running context and is not
    part of the schema. The description defaults to the docstring's first paragraph.
    Usable bare (``@tool``) or with options (``@tool(...)``).

    Raises ``ConfigurationError`` naming the function and the parameter for what a model
    could never call: ``*args``/``**kwargs``, positional-only parameters, an unbound
    method (``self`` first), two context parameters, or a type with no JSON Schema.
    """

    def wrap(f: Callable[..., Any]) -> Tool:
        return _function_tool(
            f,
            name=name,
            description=description,
            timeout=timeout,
            sequential=sequential,
            requires_approval=requires_approval,
            idempotent=idempotent,
        )

    if fn is None:
        return wrap
    if not inspect.isfunction(fn):  # a bound method is a new object at each access
        return wrap(fn)
    made = (
        name,
        description,
        timeout,
        sequential,
        requires_approval,
        idempotent,
        fn.__code__,
        fn.__defaults__,
        fn.__kwdefaults__,
        fn.__doc__,
        fn.__name__,
        fn.__annotations__,
    )
    cached = _FUNCTION_TOOLS.get(fn)
    if cached is None or cached[0] != made:
        cached = _FUNCTION_TOOLS[fn] = ((*made[:-1], dict(fn.__annotations__)), wrap(fn))
    return cached[1]


_FUNCTION_TOOLS: weakref.WeakKeyDictionary[Callable[..., Any], tuple[tuple[Any, ...], Tool]] = (
    weakref.WeakKeyDictionary()
)
"""The last ``Tool`` made of each function, with the options and the parts of the function
it was made from (its code, defaults, docstring, name and a copy of its annotations, all
of which can be reassigned): reading a signature and deriving its schema is most of
building an agent that is given the same function again. A ``Tool`` is immutable, so
agents may share it."""


def as_tool(obj: object) -> Tool:
    """``obj`` as a ``Tool``: a ``Tool`` as it is, a function (sync or async) via ``tool``.

    Raises ``ConfigurationError`` saying what a tool may be for anything else.
    """
    if isinstance(obj, Tool):
        return obj
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        return tool(obj)
    raise ConfigurationError(
        f"{obj!r} is not a tool: pass a Tool (from define_tool or @tool) or a function, "
        "sync or async, whose annotated parameters are the tool's arguments"
    )


def _function_tool(
    f: Callable[..., Any],
    *,
    name: str | None,
    description: str | None,
    timeout: float | None,
    **flags: bool,
) -> Tool:
    label = getattr(f, "__qualname__", None) or repr(f)
    try:
        signature = inspect.signature(f)
        hints = get_type_hints(f)
    except Exception as exc:  # an unresolvable or malformed annotation, no signature
        raise ConfigurationError(
            f"@tool: cannot read the signature of {label}: {type(exc).__name__}: {exc}"
        ) from None
    context: str | None = None
    fields: list[tuple[str, Any, Any]] = []
    for index, p in enumerate(signature.parameters.values()):
        _check_parameter(label, index, p)
        annotation = hints.get(p.name, Any)
        if is_context(annotation) or p.name == "ctx":
            if p.name == "ctx" and p.name in hints and not is_context(annotation):
                raise ConfigurationError(
                    f"@tool: parameter 'ctx' of {label} is annotated {annotation!r}; the name "
                    "'ctx' is for the ToolContext: annotate it ToolContext or rename it"
                )
            if context is not None:
                raise ConfigurationError(
                    f"@tool: {label} has two ToolContext parameters, {context!r} and {p.name!r}"
                )
            context = p.name
        else:
            fields.append((p.name, annotation, p.default))
    try:
        schema, build = signature_arguments(fields)
    except ConfigurationError as exc:
        raise ConfigurationError(f"@tool: {label}: {exc.message}") from None
    if description is None:
        description = (inspect.getdoc(f) or "").split("\n\n")[0].strip()
    tool_name = name if name is not None else str(getattr(f, "__name__", ""))
    execute = _caller(f, context)
    return _make_tool(tool_name, description, schema, build, execute, timeout=timeout, **flags)


def _check_parameter(label: str, index: int, p: inspect.Parameter) -> None:
    if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
        stars = "*" if p.kind is p.VAR_POSITIONAL else "**"
        raise ConfigurationError(
            f"@tool: {label} takes {stars}{p.name}; the model sends one JSON object of "
            "named arguments, so name each parameter"
        )
    if p.kind is p.POSITIONAL_ONLY:
        raise ConfigurationError(
            f"@tool: parameter {p.name!r} of {label} is positional-only; the model sends "
            "named arguments, so remove the '/'"
        )
    if index == 0 and p.name in ("self", "cls"):
        raise ConfigurationError(
            f"@tool: {label} is a method (its first parameter is {p.name!r}); make a tool "
            f"of the bound method instead: tool(instance.{label.rpartition('.')[2]})"
        )


def _caller(f: Callable[..., Any], context: str | None) -> ToolFunction:
    """``execute(args, ctx)`` calling ``f(**args)``, with the context under its name; an
    async one records ``f`` as what it awaits, its only wait (``_never_waits``)."""
    if _is_async(f):
        if context is None:

            async def call_async(args: Mapping[str, Any], ctx: Any) -> Any:
                return await f(**args)

            call_async.__dict__["_awaits"] = f
            return call_async

        async def call_async_ctx(args: Mapping[str, Any], ctx: Any) -> Any:
            return await f(**args, **{context: ctx})

        call_async_ctx.__dict__["_awaits"] = f
        return call_async_ctx
    if context is None:
        return lambda args, ctx: f(**args)
    return lambda args, ctx: f(**args, **{context: ctx})


# -- results --------------------------------------------------------------------------------


def to_result_content(value: Any) -> Content:
    """What the model sees of a tool's return value.

    ``str`` stays text; a content part (``TextContent``, ``ImageContent``,
    ``DocumentContent``, ``AudioContent``, ``FileContent``) or a list of them becomes
    content blocks; anything else is written as standard JSON text (sorted keys, UTF-8;
    NaN and ±Infinity as the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``). Raises
    ``TypeError`` (``NotJSONError``) naming the path of a value that is not JSON.
    """
    if isinstance(value, str):
        text: str = to_json_value(value, strict=False)
        return text
    if _is_block(value):
        return (value,)
    if isinstance(value, list | tuple) and value and all(_is_block(v) for v in value):
        blocks: tuple[ContentPart, ...] = tuple(value)
        return blocks
    return to_json_text(value)


def _is_block(value: object) -> TypeGuard[ContentPart]:
    return isinstance(value, _CONTENT_CLASSES)


_CONTENT_CLASSES = tuple(CONTENT_CLASSES)
