"""Tools: what the model may call, the JSON Schema of their arguments, and their results.

This module is pure (no asyncio, no I/O) because the agent-loop processor uses it to
decide, before anything runs, whether a call names a known tool and whether its
arguments validate. Running a tool (timeouts, cancellation, progress) is the runtime's
job, in ``_tool_runner``.

A tool's ``parameters`` is a JSON Schema dict, or a Python class (dataclass, attrs class,
TypedDict) from which a schema is derived; ``@tool`` derives it from an async function's
signature. Arguments are checked with ``jsonschema`` (Draft 2020-12); a call that fails
is never executed, and the model is told each failing path and what it sent.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import types
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias, Union, get_args, get_origin, get_type_hints

import attrs
import jsonschema

from .._core.content import Content, ContentPart, ImageContent, JSONValue, TextContent
from .._core.driver import ToolSpec
from .._core.errors import ConfigurationError

__all__ = [
    "Tool",
    "ToolFunction",
    "ToolOutput",
    "define_tool",
    "schema_for",
    "to_result_content",
    "tool",
]

ToolFunction: TypeAlias = Callable[[Any, Any], Awaitable[Any]]
"""``async execute(args, ctx) -> result``; ``ctx`` is a ``ToolContext``."""


@attrs.frozen(slots=True)
class ToolOutput:
    """A tool result with extras: ``content`` goes to the model, ``details`` only to UIs.

    ``content`` may be anything a tool may return (text, JSON, images); ``is_error``
    marks a result the tool itself considers a failure, without raising.
    """

    content: Any
    details: JSONValue = None
    is_error: bool = False


@attrs.frozen(slots=True, eq=False)
class Tool:
    """A tool the model may call. Build one with ``define_tool`` or ``@tool``.

    ``timeout`` (seconds) bounds one execution; ``sequential`` makes the tool run alone
    (a barrier between parallel groups); ``requires_approval`` stops the loop until the
    call is approved or rejected; ``idempotent`` allows the runtime to run a call again
    when it resumes an agent whose process stopped while the call ran.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    execute: ToolFunction
    timeout: float | None = None
    sequential: bool = False
    requires_approval: bool = False
    idempotent: bool = False
    build_args: Callable[[Mapping[str, Any]], Any] = dict
    _validator: Any = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_validator", jsonschema.Draft202012Validator(self.parameters))

    @property
    def spec(self) -> ToolSpec:
        """What the model is told about this tool."""
        return ToolSpec(self.name, self.description, self.parameters)

    def validation_errors(self, args: Mapping[str, Any]) -> list[str]:
        """One line per schema violation (``at $.path: message``), sorted; empty if valid."""
        if self._validator.is_valid(args):  # the common case: stop at the first error
            return []
        errors = sorted(self._validator.iter_errors(args), key=lambda e: list(e.absolute_path))
        return [f"at {_json_path(e.absolute_path)}: {e.message}" for e in errors]

    def invalid_arguments_message(self, args: Mapping[str, Any], errors: Sequence[str]) -> str:
        """The error result the model gets for a call whose arguments failed validation."""
        lines = "\n".join(f"  - {e}" for e in errors)
        sent = json.dumps(args, sort_keys=True, default=str)
        return (
            f"Invalid arguments for tool {self.name!r}; the call was not executed.\n"
            f"{lines}\nYou sent: {sent}"
        )


def _json_path(path: Sequence[str | int]) -> str:
    out = "$"
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else f".{key}"
    return out


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

    ``parameters`` is a JSON Schema dict (an ``object`` schema) or a dataclass, attrs class
    or TypedDict; for a class, ``execute`` receives an instance built from the validated
    arguments, otherwise the validated dict. Raises ``ConfigurationError`` for a bad name,
    a non-object schema, a schema ``jsonschema`` rejects, or a non-positive timeout.
    """
    if not name or not all(c.isalnum() or c in "_-" for c in name):
        raise ConfigurationError(
            f"tool name {name!r} must be non-empty letters, digits, '_' or '-' "
            "(providers reject other characters)"
        )
    if timeout is not None and not timeout > 0:
        raise ConfigurationError(f"tool {name!r}: timeout must be > 0 seconds, got {timeout}")
    build: Callable[[Mapping[str, Any]], Any] = dict
    if isinstance(parameters, type):
        schema = schema_for(parameters)
        cls = parameters
        if not _is_typeddict(cls):
            build = lambda args: cls(**args)  # noqa: E731
    else:
        schema = dict(parameters)
    if schema.get("type") != "object":
        raise ConfigurationError(
            f"tool {name!r}: parameters must be an object schema "
            f'({{"type": "object", "properties": ...}}), got type {schema.get("type")!r}'
        )
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ConfigurationError(f"tool {name!r}: invalid JSON Schema: {exc.message}") from None
    return Tool(
        name,
        description,
        schema,
        execute,
        timeout=timeout,
        sequential=sequential,
        requires_approval=requires_approval,
        idempotent=idempotent,
        build_args=build,
    )


def tool(
    fn: Callable[..., Awaitable[Any]] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    sequential: bool = False,
    requires_approval: bool = False,
    idempotent: bool = False,
) -> Any:
    """Decorator: turn ``async def f(a: int, b: str = "x", ctx: ToolContext)`` into a Tool.

    The schema comes from the annotated parameters (a parameter named ``ctx`` receives the
    ``ToolContext`` and is not part of the schema); the description defaults to the
    docstring's first paragraph. Usable bare (``@tool``) or with options (``@tool(...)``).
    """

    def wrap(f: Callable[..., Awaitable[Any]]) -> Tool:
        if not inspect.iscoroutinefunction(f):
            raise ConfigurationError(f"@tool needs an async function, got {f!r}")
        sig = inspect.signature(f)
        hints = get_type_hints(f)
        wants_ctx = "ctx" in sig.parameters
        fields = [
            (p.name, hints.get(p.name, Any), p.default)
            for p in sig.parameters.values()
            if p.name != "ctx"
        ]
        schema = _object_schema(fields)
        doc = inspect.getdoc(f) or ""

        async def execute(args: Mapping[str, Any], ctx: Any) -> Any:
            return await (f(**args, ctx=ctx) if wants_ctx else f(**args))

        return define_tool(
            name or f.__name__,
            description if description is not None else doc.split("\n\n")[0].strip(),
            schema,
            execute,
            timeout=timeout,
            sequential=sequential,
            requires_approval=requires_approval,
            idempotent=idempotent,
        )

    return wrap if fn is None else wrap(fn)


# -- schema derivation ----------------------------------------------------------------------

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_EMPTY = inspect.Parameter.empty


def _is_typeddict(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, dict) and hasattr(cls, "__total__")


def schema_for(cls: type[Any]) -> dict[str, Any]:
    """JSON Schema of a dataclass, attrs class or TypedDict (nested ones recurse).

    Raises ``ConfigurationError`` naming the class when it is none of those.
    """
    hints = get_type_hints(cls)
    if dataclasses.is_dataclass(cls):
        fields = [(f.name, hints[f.name], _dataclass_default(f)) for f in dataclasses.fields(cls)]
    elif attrs.has(cls):
        fields = [
            (a.name, hints[a.name], _EMPTY if a.default is attrs.NOTHING else a.default)
            for a in attrs.fields(cls)
        ]
    elif _is_typeddict(cls):
        optional: frozenset[str] = getattr(cls, "__optional_keys__", frozenset())
        fields = [(k, v, None if k in optional else _EMPTY) for k, v in hints.items()]
    else:
        raise ConfigurationError(
            f"cannot derive a JSON Schema from {cls!r}; use a dataclass, attrs class, "
            "TypedDict or a JSON Schema dict"
        )
    schema = _object_schema(fields)
    if cls.__doc__ and not _is_typeddict(cls):
        schema["description"] = inspect.cleandoc(cls.__doc__).split("\n\n")[0]
    return schema


def _dataclass_default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return _EMPTY if f.default_factory is dataclasses.MISSING else None


def _object_schema(fields: Sequence[tuple[str, Any, Any]]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, annotation, default in fields:
        prop = _schema_of(annotation)
        if default is _EMPTY:
            required.append(name)
        elif default is not None and isinstance(default, str | int | float | bool):
            prop["default"] = default
        properties[name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _schema_of(annotation: Any) -> dict[str, Any]:
    if annotation is Any:
        return {}
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if annotation is type(None):
        return {"type": "null"}
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_schema_of(a) for a in args]}
    if origin in (list, tuple, set, frozenset, typing.Sequence) or annotation in (list, tuple):
        items = args[0] if args else Any
        return {"type": "array", "items": _schema_of(items)}
    if origin in (dict, typing.Mapping) or annotation is dict:
        value = args[1] if len(args) == 2 else Any
        return {"type": "object", "additionalProperties": _schema_of(value)}
    if isinstance(annotation, type) and (
        dataclasses.is_dataclass(annotation) or attrs.has(annotation) or _is_typeddict(annotation)
    ):
        return schema_for(annotation)
    raise ConfigurationError(f"cannot derive a JSON Schema for type {annotation!r}")


# -- results --------------------------------------------------------------------------------


def to_result_content(value: Any) -> Content:
    """What the model sees of a tool's return value.

    ``str`` stays text; an ``ImageContent``/``TextContent`` or a list of them becomes
    content blocks; anything else is serialised as JSON text. Raises ``TypeError`` when
    the value is not JSON-serialisable.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, ImageContent | TextContent):
        return (value,)
    if isinstance(value, list | tuple) and value and all(_is_block(v) for v in value):
        blocks: tuple[ContentPart, ...] = tuple(value)
        return blocks
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"tool returned {type(value).__name__}, which is not text, an image or JSON: {exc}"
        ) from None


def _is_block(value: object) -> bool:
    return isinstance(value, ImageContent | TextContent)
