"""Tool arguments: JSON Schemas derived from Python types, and the values built from them.

A tool's arguments arrive as JSON. The loop processor checks them against the tool's
JSON Schema before anything runs; the runtime then *builds* the Python values the tool
asked for (a dataclass instance, an ``Enum`` member, a tuple, a validated pydantic model)
right before the call. Both come from one derivation per annotation, done once when the
tool is defined: a schema and a converter (``None`` when the JSON value already is the
Python value, so plain ``str``/``int`` arguments cost nothing to build).

Supported annotations: ``str``, ``int``, ``float``, ``bool``, ``None``, ``Any``,
``Literal[...]``, ``Enum`` subclasses (their values), unions and ``Optional``/``X | None``,
``list``/``Sequence``/``set``/``frozenset``/``tuple`` (``tuple[X, ...]`` and fixed
``tuple[A, B]``), ``dict``/``Mapping`` with ``str`` keys, dataclasses, attrs classes,
``TypedDict`` and pydantic models (detected by their ``model_json_schema`` and
``model_validate`` methods, so pydantic is never imported here), nested in any way but
not recursively (a recursive type must be a pydantic model).

Validation uses ``StrictValidator``: Draft 2020-12, except that ``integer`` means a JSON
number written without a fraction. Draft 2020-12 counts ``5.0`` as an integer; a tool
whose parameter is ``n: int`` must never receive a float, so here it does not (and
``true`` is not an integer either).

Pure: no I/O.
"""

from __future__ import annotations

import enum
import functools
import inspect
import json
import types
import typing
from collections import abc
from collections.abc import Callable, Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    TypeAlias,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

import attrs

from .._core.errors import ConfigurationError
from .tool_json import NotJSONError, json_path, to_json_value

if TYPE_CHECKING:  # imported where a dataclass is read
    import dataclasses

__all__ = [
    "ArgumentError",
    "ContextParameter",
    "Convert",
    "StrictValidator",
    "argument_errors",
    "class_arguments",
    "compiled_validator",
    "is_context",
    "schema_problem",
    "schema_for",
    "signature_arguments",
    "strict_validator",
]

Convert: TypeAlias = Callable[[Any], Any] | None
"""JSON value -> the Python value a tool asked for; ``None`` means "use it as it is"."""

EMPTY = inspect.Parameter.empty
"""The default of a field that has none (it is then required)."""


def _is_integer(checker: Any, value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@functools.cache
def strict_validator() -> type[Any]:
    """``StrictValidator``: Draft 2020-12 where ``integer`` rejects ``5.0`` and ``true``.

    Made on first use, so that ``jsonschema`` (a fifth of ``from agentcore import Agent``)
    is imported when a schema is first checked, not with the package."""
    import jsonschema

    validator: type[Any] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
    )
    return validator


if TYPE_CHECKING:
    StrictValidator: type[Any]


def __getattr__(name: str) -> Any:
    """``StrictValidator`` is ``strict_validator()``, made on first use (PEP 562)."""
    if name == "StrictValidator":
        return strict_validator()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SCHEMA_CACHE_SIZE = 256
"""How many distinct schemas the metaschema check and the compiled validators remember."""


def _cache_key(schema: Mapping[str, Any], *, sort_keys: bool) -> str | None:
    """The schema as JSON text (the cache key), or ``None`` when the text would not give the
    same schema back (a tuple, NaN or another non-JSON value): such a schema is checked and
    compiled each time, so the cache never answers for a different schema. The metaschema
    check keeps the keys' order (two orders of one schema can report different first
    problems); validators are shared across orders (they accept the same values)."""
    try:
        text = json.dumps(schema, sort_keys=sort_keys, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None
    return text if json.loads(text) == schema else None


@functools.lru_cache(maxsize=_SCHEMA_CACHE_SIZE)
def _cached_problem(schema_text: str) -> str | None:
    return _problem(json.loads(schema_text))


def _problem(schema: Mapping[str, Any]) -> str | None:
    import jsonschema

    try:
        strict_validator().check_schema(schema)
    except jsonschema.SchemaError as exc:
        return str(exc.message)
    return None


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why ``schema`` is not a valid JSON Schema (the metaschema's message), ``None`` when
    it is. The metaschema check costs milliseconds, most of building an agent: it runs once
    per distinct schema (by content) and its answer is remembered."""
    text = _cache_key(schema, sort_keys=False)
    return _problem(schema) if text is None else _cached_problem(text)


@functools.lru_cache(maxsize=_SCHEMA_CACHE_SIZE)
def _cached_validator(schema_text: str) -> Any:
    schema = json.loads(schema_text)
    check = _flat_check(schema)
    return strict_validator()(schema) if check is None else _FlatValidator(schema, check)


def _is_number(value: object) -> bool:
    if type(value) is int or type(value) is float:
        return True
    import numbers  # for the rarer numbers, not imported by ``from agentcore import Agent``

    return isinstance(value, numbers.Number) and not isinstance(value, bool)


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "integer": lambda value: _is_integer(None, value),
    "number": _is_number,
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}
"""``StrictValidator``'s type checks (``integer`` rejects ``5.0`` and ``true``)."""
_NOTES = frozenset({"title", "description", "$comment", "default", "examples"})
"""Keywords that annotate and never fail a value."""


def _flat_check(schema: Any) -> Callable[[Any], bool] | None:
    """``StrictValidator(schema).is_valid`` written in Python, for the schema ``@tool`` makes
    of plain parameters (an object of ``integer``/``number``/``string``/``boolean``/``null``
    properties, ``required``, ``additionalProperties`` true or false, annotations); None for
    any other schema. A property test holds it to the validator."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    if set(schema) - _NOTES - {"type", "properties", "required", "additionalProperties"}:
        return None
    properties, required = schema.get("properties", {}), schema.get("required", [])
    additional = schema.get("additionalProperties", True)
    if not (
        isinstance(properties, dict)
        and isinstance(required, list)
        and all(isinstance(name, str) for name in required)
        and type(additional) is bool
    ):
        return None
    checks: dict[str, Callable[[Any], bool]] = {}
    for name, sub in properties.items():
        if not isinstance(sub, dict) or set(sub) - _NOTES - {"type"}:
            return None
        kind = sub.get("type")
        if kind is None:
            continue
        if type(kind) is not str or kind not in _TYPE_CHECKS:
            return None
        checks[name] = _TYPE_CHECKS[kind]
    needed, known = tuple(required), frozenset(properties)

    def is_valid(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for name in needed:
            if name not in value:
                return False
        for name, item in value.items():
            check = checks.get(name)
            if check is not None:
                if not check(item):
                    return False
            elif not additional and name not in known:
                return False
        return True

    return is_valid


class _FlatValidator:
    """A validator of a flat schema (``_flat_check``): ``is_valid`` in plain Python (no
    ``jsonschema`` call per tool call), ``iter_errors`` by ``StrictValidator``, made on
    first use (a call that fails), so its messages are the validator's own."""

    __slots__ = ("_full", "is_valid", "schema")

    def __init__(self, schema: dict[str, Any], is_valid: Callable[[Any], bool]) -> None:
        self.schema = schema
        self.is_valid = is_valid
        self._full: Any = None

    def iter_errors(self, value: Any) -> Any:
        if self._full is None:
            self._full = strict_validator()(self.schema)
        return self._full.iter_errors(value)


def compiled_validator(schema: Mapping[str, Any]) -> Any:
    """A validator (``is_valid``, ``iter_errors``) for ``schema``, shared by every tool
    with the same schema (by content) so that what it resolves and compiles on first use
    is done once: a ``StrictValidator``, or for a flat schema (``_flat_check``) a plain
    Python check that answers as it does."""
    text = _cache_key(schema, sort_keys=True)
    return strict_validator()(schema) if text is None else _cached_validator(text)


class ContextParameter:
    """Base of ``ToolContext``: a ``@tool`` parameter annotated with it (or a subclass,
    or ``X | None`` of one) receives the running context and is not part of the schema."""

    __slots__ = ()


def is_context(annotation: Any) -> bool:
    """Whether ``annotation`` is ``ToolContext``, ``ToolContext[D]`` or an optional of one."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return any(is_context(a) for a in get_args(annotation))
    target = origin if origin is not None else annotation
    return isinstance(target, type) and issubclass(target, ContextParameter)


# -- building values ---------------------------------------------------------------------


class ArgumentError(ValueError):
    """Building a tool's arguments failed: ``cause`` is what a class, enum or pydantic model
    raised, ``path`` where in the arguments (keys and indices)."""

    def __init__(self, path: tuple[str | int, ...], cause: Exception) -> None:
        super().__init__(path, cause)
        self.path = path
        self.cause = cause

    def __str__(self) -> str:
        return "; ".join(argument_errors(self))


def argument_errors(exc: Exception) -> list[str]:
    """One line per failure (``at $.path: message``), sorted, as ``validation_errors`` has.

    A pydantic ``ValidationError`` gives one line per error it lists.
    """
    path, cause = (exc.path, exc.cause) if isinstance(exc, ArgumentError) else ((), exc)
    listed = getattr(cause, "errors", None)
    if type(cause).__module__.startswith("pydantic") and callable(listed):
        return sorted(f"at {json_path((*path, *e['loc']))}: {e['msg']}" for e in listed())
    return [f"at {json_path(path)}: {type(cause).__name__}: {cause}"]


def _at(key: str | int, convert: Callable[[Any], Any], value: Any) -> Any:
    try:
        return convert(value)
    except ArgumentError as exc:
        exc.path = (key, *exc.path)
        raise
    except Exception as exc:
        raise ArgumentError((key,), exc) from exc


def _rooted(convert: Convert) -> Callable[[Any], Any]:
    """The top-level builder: errors always come out as ``ArgumentError``."""
    if convert is None:
        return dict

    def build(args: Any) -> Any:
        try:
            return convert(args)
        except ArgumentError:
            raise
        except Exception as exc:
            raise ArgumentError((), exc) from exc

    return build


# -- entry points --------------------------------------------------------------------------


def schema_for(cls: type[Any]) -> dict[str, Any]:
    """JSON Schema of a dataclass, attrs class, TypedDict or pydantic model.

    Raises ``ConfigurationError`` naming the class or the field that cannot be described.
    """
    return class_arguments(cls)[0]


def class_arguments(cls: type[Any]) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    """The schema of ``cls`` and the builder of an instance from valid JSON arguments.

    The builder raises ``ArgumentError`` when the class itself refuses the values (a
    ``__post_init__``, an attrs validator, a pydantic validator).
    """
    deriver = _Deriver()
    if not deriver.is_class(cls):
        raise ConfigurationError(
            f"cannot derive a JSON Schema from {cls!r}; use a dataclass, attrs class, "
            "TypedDict, pydantic model or a JSON Schema dict"
        )
    schema, convert = deriver.shape(cls)
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):  # a recursive pydantic model
        schema = {**deriver.defs[ref.removeprefix("#/$defs/")], **schema}
        del schema["$ref"]
    if cls.__doc__ and deriver.is_documented(cls):
        schema.setdefault("description", inspect.cleandoc(cls.__doc__).split("\n\n")[0])
    return deriver.finish(schema), _rooted(convert)


def signature_arguments(
    fields: Sequence[tuple[str, Any, Any]],
) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    """The object schema of ``(name, annotation, default)`` fields (a function's
    parameters) and the builder of the keyword arguments from valid JSON arguments.

    Raises ``ConfigurationError`` naming the parameter whose type cannot be described.
    """
    deriver = _Deriver()
    schema, convert = deriver.of_fields(fields, dict, "parameter")
    return deriver.finish(schema), _rooted(convert)


# -- derivation -----------------------------------------------------------------------------

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SEQUENCES: dict[Any, Callable[[Any], Any] | None] = {
    list: None,
    abc.Sequence: None,
    abc.MutableSequence: None,
    set: set,
    abc.Set: frozenset,
    abc.MutableSet: set,
    frozenset: frozenset,
}
_MAPPINGS = (dict, abc.Mapping, abc.MutableMapping)


def _json_type(value: object) -> str | None:
    if value is None:
        return "null"
    return next((name for kind, name in _SCALARS.items() if type(value) is kind), None)


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    kinds = {_json_type(v) for v in values}
    if None in kinds:
        raise ConfigurationError(f"enum values {values!r} must be JSON strings, numbers or null")
    if len(kinds) == 1:
        return {"type": kinds.pop(), "enum": values}
    return {"enum": values}


def _default(value: Any) -> Any:
    """A default as JSON for the schema, or ``EMPTY`` when it has no JSON form."""
    if value is None or value is EMPTY:
        return EMPTY
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        return to_json_value(value)
    except NotJSONError:
        return EMPTY


class _Deriver:
    """One derivation: the ``$defs`` hoisted from pydantic models, and the classes being
    derived (to refuse recursion instead of recursing forever)."""

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}
        self.active: list[type[Any]] = []

    def finish(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self.defs:
            schema["$defs"] = self.defs
        return schema

    @staticmethod
    def is_pydantic(cls: Any) -> bool:
        return (
            isinstance(cls, type)
            and callable(getattr(cls, "model_json_schema", None))
            and callable(getattr(cls, "model_validate", None))
        )

    def is_class(self, cls: Any) -> bool:
        import dataclasses  # not imported by ``from agentcore import Agent``

        return isinstance(cls, type) and (
            dataclasses.is_dataclass(cls)
            or attrs.has(cls)
            or typing.is_typeddict(cls)
            or self.is_pydantic(cls)
        )

    def is_documented(self, cls: type[Any]) -> bool:
        """Dataclasses and attrs classes; a TypedDict's and pydantic's docs are their own,
        and a dataclass without a docstring has a generated one (its signature)."""
        import dataclasses

        if dataclasses.is_dataclass(cls):
            return not (cls.__doc__ or "").startswith(f"{cls.__name__}(")
        return attrs.has(cls)

    def shape(self, annotation: Any) -> tuple[dict[str, Any], Convert]:
        if annotation is Any:
            return {}, None
        if annotation in _SCALARS:
            return {"type": _SCALARS[annotation]}, None
        if annotation is None or annotation is type(None):
            return {"type": "null"}, None
        if is_context(annotation):
            raise ConfigurationError(
                "ToolContext can only be a parameter of the tool function itself"
            )
        origin, args = get_origin(annotation), get_args(annotation)
        if origin is Literal:
            return self.of_literal(args)
        if origin in (Union, types.UnionType):
            return self.of_union(args)
        if origin is tuple or annotation is tuple:
            return self.of_tuple(annotation, args)
        if origin in _SEQUENCES or annotation in _SEQUENCES:
            key = origin if origin is not None else annotation
            return self.of_sequence(args[0] if args else Any, _SEQUENCES[key])
        if origin in _MAPPINGS or annotation in _MAPPINGS:
            return self.of_mapping(annotation, args)
        if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
            return _enum_schema([m.value for m in annotation]), annotation
        if self.is_class(annotation):
            if annotation in self.active:
                raise ConfigurationError(
                    f"{annotation.__qualname__} refers to itself; describe a recursive "
                    "type with a pydantic model"
                )
            self.active.append(annotation)
            try:
                return self.of_class(annotation)
            finally:
                self.active.pop()
        raise ConfigurationError(
            f"cannot derive a JSON Schema for type {annotation!r}; supported: str, int, "
            "float, bool, None, Any, Literal, Enum, unions, lists, tuples, sets, dicts with "
            "str keys, dataclasses, attrs classes, TypedDicts and pydantic models"
        )

    def of_literal(self, values: tuple[Any, ...]) -> tuple[dict[str, Any], Convert]:
        members = {v.value: v for v in values if isinstance(v, enum.Enum)}
        schema = _enum_schema([v.value if isinstance(v, enum.Enum) else v for v in values])
        return schema, ((lambda v: members.get(v, v)) if members else None)

    def of_union(self, args: tuple[Any, ...]) -> tuple[dict[str, Any], Convert]:
        branches = [self.shape(a) for a in args]
        schema = {"anyOf": [s for s, _ in branches]}
        if all(c is None for _, c in branches):
            return schema, None
        others = [(s, c) for s, c in branches if s != {"type": "null"}]
        if len(others) == 1:  # X | None
            inner = others[0][1]
            assert inner is not None
            return schema, lambda v: None if v is None else inner(v)
        return schema, self.first_match(branches)

    def first_match(self, branches: list[tuple[dict[str, Any], Convert]]) -> Convert:
        """Convert with the first branch whose schema the value matches (checked lazily,
        once ``$defs`` is complete)."""
        defs = self.defs
        compiled: list[tuple[Any, Convert]] = []

        def convert(value: Any) -> Any:
            if not compiled:
                compiled.extend((strict_validator()({**s, "$defs": defs}), c) for s, c in branches)
            for validator, branch in compiled:
                if validator.is_valid(value):
                    return value if branch is None else branch(value)
            return value

        return convert

    def of_tuple(self, annotation: Any, args: tuple[Any, ...]) -> tuple[dict[str, Any], Convert]:
        if not args and get_origin(annotation) is None:  # a bare tuple
            return self.of_sequence(Any, tuple)
        if not args or args == ((),):  # tuple[()]
            return {"type": "array", "maxItems": 0}, tuple
        if len(args) == 2 and args[1] is Ellipsis:
            return self.of_sequence(args[0], tuple)
        shapes = [self.shape(a) for a in args]
        schema = {
            "type": "array",
            "prefixItems": [s for s, _ in shapes],
            "items": False,
            "minItems": len(shapes),
        }
        converts = [c for _, c in shapes]
        if all(c is None for c in converts):
            return schema, tuple

        def convert(value: Sequence[Any]) -> tuple[Any, ...]:
            pairs = enumerate(zip(converts, value, strict=True))
            return tuple(x if c is None else _at(i, c, x) for i, (c, x) in pairs)

        return schema, convert

    def of_sequence(
        self, item: Any, make: Callable[[Any], Any] | None
    ) -> tuple[dict[str, Any], Convert]:
        schema, convert = self.shape(item)
        out: dict[str, Any] = {"type": "array", "items": schema}
        if make in (set, frozenset):
            out["uniqueItems"] = True
        if convert is None:
            return out, make
        build = list if make is None else make
        return out, lambda v: build(_at(i, convert, x) for i, x in enumerate(v))

    def of_mapping(self, annotation: Any, args: tuple[Any, ...]) -> tuple[dict[str, Any], Convert]:
        key, value = args if len(args) == 2 else (str, Any)
        if key not in (str, Any):
            raise ConfigurationError(
                f"cannot derive a JSON Schema for {annotation!r}: JSON object keys are "
                "strings, so a mapping's key type must be str"
            )
        schema, convert = self.shape(value)
        out = {"type": "object", "additionalProperties": schema}
        if convert is None:
            return out, None
        return out, lambda v: {k: _at(k, convert, x) for k, x in v.items()}

    def of_class(self, cls: type[Any]) -> tuple[dict[str, Any], Convert]:
        if self.is_pydantic(cls):
            return self.of_pydantic(cls)
        try:
            hints = get_type_hints(cls)
        except Exception as exc:  # an unresolvable forward reference
            raise ConfigurationError(
                f"cannot read the annotations of {cls.__qualname__}: {type(exc).__name__}: {exc}"
            ) from None
        import dataclasses

        fields: list[tuple[str, Any, Any]]
        if dataclasses.is_dataclass(cls):
            fields = [
                (f.name, hints[f.name], _dataclass_default(f))
                for f in dataclasses.fields(cls)
                if f.init
            ]
        elif attrs.has(cls):
            fields = [
                (a.alias or a.name, hints.get(a.name, a.type or Any), _attrs_default(a))
                for a in attrs.fields(cls)
                if a.init
            ]
        else:  # TypedDict
            required = _required_keys(cls)
            fields = [(k, v, EMPTY if k in required else None) for k, v in hints.items()]
        make = dict if typing.is_typeddict(cls) else cls
        return self.of_fields(fields, make, f"{cls.__qualname__} field")

    def of_fields(
        self, fields: Sequence[tuple[str, Any, Any]], make: Callable[..., Any], what: str
    ) -> tuple[dict[str, Any], Convert]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        converting: list[tuple[str, Callable[[Any], Any]]] = []
        for name, annotation, default in fields:
            try:
                prop, convert = self.shape(annotation)
            except ConfigurationError as exc:
                raise ConfigurationError(f"{what} {name!r}: {exc.message}") from None
            if default is EMPTY:
                required.append(name)
            elif (shown := _default(default)) is not EMPTY:
                prop = {**prop, "default": shown}
            properties[name] = prop
            if convert is not None:
                converting.append((name, convert))
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        if not converting and make is dict:
            return schema, None

        def convert_fields(value: Mapping[str, Any]) -> Any:
            kwargs = dict(value)
            for name, convert in converting:
                if name in kwargs:
                    kwargs[name] = _at(name, convert, kwargs[name])
            return make(**kwargs)

        return schema, convert_fields

    def of_pydantic(self, cls: type[Any]) -> tuple[dict[str, Any], Convert]:
        schema = dict(cls.model_json_schema())
        for name, definition in schema.pop("$defs", {}).items():
            if self.defs.setdefault(name, definition) != definition:
                raise ConfigurationError(
                    f"two different pydantic models are named {name!r}; rename one "
                    "(their schemas would share one $defs entry)"
                )
        validate: Callable[[Any], Any] = cls.model_validate
        return schema, validate


def _required_keys(cls: Any) -> set[str]:
    """A TypedDict's required keys, also when its annotations are strings (PEP 563), which
    hide ``Required``/``NotRequired`` from ``__required_keys__`` on Python 3.11."""
    required = set(cls.__required_keys__)
    for key, hint in get_type_hints(cls, include_extras=True).items():
        if get_origin(hint) is typing.NotRequired:
            required.discard(key)
        elif get_origin(hint) is typing.Required:
            required.add(key)
    return required


def _dataclass_default(f: dataclasses.Field[Any]) -> Any:
    import dataclasses

    if f.default is not dataclasses.MISSING:
        return f.default
    return EMPTY if f.default_factory is dataclasses.MISSING else None


def _attrs_default(a: attrs.Attribute[Any]) -> Any:
    if a.default is attrs.NOTHING:
        return EMPTY
    return None if isinstance(a.default, attrs.Factory) else a.default  # type: ignore[arg-type]
