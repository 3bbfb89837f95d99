"""Schemas derived from annotations, and the values built for the tool: examples, then
generated types (valid instances validate and build right; invalid ones never validate).

Tests the private module ``agentcore._loop.tool_schema``: the path a validator's failure
names."""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import itertools
import subprocess
import sys
import typing
from collections.abc import Callable
from typing import Any, Literal, NamedTuple, NotRequired, TypedDict

import attrs
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.errors import ConfigurationError
from agentcore.tools import Tool, define_tool, schema_for, tool


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Size(enum.IntEnum):
    S = 1
    L = 3


def _tool_of(annotation: Any, default: Any = None) -> Tool:
    """A tool whose one parameter ``x`` has ``annotation``."""

    def f(x: Any) -> Any:
        return x

    f.__annotations__ = {"x": annotation, "return": Any}
    if default is not None:
        f.__defaults__ = (default,)
    return tool(f)


def _built(t: Tool, value: Any) -> Any:
    assert t.validation_errors({"x": value}) == [], value
    return t.build_args({"x": value})["x"]


@pytest.mark.parametrize(
    ("annotation", "schema"),
    [
        (Color, {"type": "string", "enum": ["red", "blue"]}),
        (Size, {"type": "integer", "enum": [1, 3]}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, "a"], {"enum": [1, "a"]}),
        (Literal[Color.RED], {"type": "string", "enum": ["red"]}),
        (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
                "minItems": 2,
            },
        ),
        (tuple[()], {"type": "array", "maxItems": 0}),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (collections.abc.Sequence[bool], {"type": "array", "items": {"type": "boolean"}}),
        (typing.List[int], {"type": "array", "items": {"type": "integer"}}),  # noqa: UP006
        (list, {"type": "array", "items": {}}),
        (dict, {"type": "object", "additionalProperties": {}}),
        (
            collections.abc.Mapping[str, float],
            {"type": "object", "additionalProperties": {"type": "number"}},
        ),
        (Any, {}),
    ],
)
def test_schema_of_each_supported_annotation(annotation: Any, schema: dict[str, Any]) -> None:
    assert _tool_of(annotation).parameters["properties"]["x"] == schema


@pytest.mark.parametrize(
    ("annotation", "sent", "expected"),
    [
        (Color, "blue", Color.BLUE),
        (Size, 3, Size.L),
        (Literal[Color.RED, "x"], "red", Color.RED),
        (Literal[Color.RED, "x"], "x", "x"),
        (Color | None, None, None),
        (Color | None, "red", Color.RED),
        (tuple[Color, int], ["red", 2], (Color.RED, 2)),
        (tuple[int, ...], [1, 2], (1, 2)),
        (set[Color], ["red"], {Color.RED}),
        (frozenset[int], [1, 2], frozenset({1, 2})),
        (dict[str, Size], {"a": 1}, {"a": Size.S}),
        (list[list[Color]], [["red"], []], [[Color.RED], []]),
        (Color | tuple[int, int], [1, 2], (1, 2)),
        (Color | tuple[int, int], "blue", Color.BLUE),
    ],
)
def test_values_are_built_as_annotated(annotation: Any, sent: Any, expected: Any) -> None:
    built = _built(_tool_of(annotation), sent)
    assert built == expected and type(built) is type(expected)


@attrs.define
class Secret:
    _token: str
    scope: Literal["read", "write"] = "read"


class Options(TypedDict):
    depth: int
    color: NotRequired[Color]


@dataclasses.dataclass
class Job:
    options: Options
    secret: Secret
    size: Size = Size.S
    made: Any = dataclasses.field(default_factory=object)


def test_nested_classes_are_built_with_aliases_optional_keys_and_defaults() -> None:
    schema = schema_for(Job)
    assert schema["properties"]["secret"]["properties"] == {
        "token": {"type": "string"},
        "scope": {"type": "string", "enum": ["read", "write"], "default": "read"},
    }
    assert schema["properties"]["options"]["required"] == ["depth"]
    assert schema["properties"]["size"]["default"] == 1  # an enum default as its value
    assert "default" not in schema["properties"]["made"]  # no JSON form: not shown
    assert schema["required"] == ["options", "secret"]

    got: list[Job] = []
    t = define_tool("job", "j", Job, lambda args, ctx: got.append(args))
    args = {"options": {"depth": 2, "color": "red"}, "secret": {"token": "t"}, "size": 3}
    job = t.build_args(args)
    assert job.options == {"depth": 2, "color": Color.RED}
    assert job.secret == Secret("t") and job.size is Size.L


class Point(pydantic.BaseModel):
    x: int
    y: int

    @pydantic.field_validator("y")
    @classmethod
    def positive(cls, value: int) -> int:
        if value < 0:
            raise ValueError("must not be negative")
        return value


class Route(pydantic.BaseModel):
    """A route."""

    name: str
    stops: list[Point]
    color: Color = Color.RED


class Tree(pydantic.BaseModel):
    label: str
    children: list[Tree] = []


def test_pydantic_models_validate_and_build_instances() -> None:
    t = define_tool("route", "r", Route, lambda args, ctx: args)
    assert t.parameters["properties"]["stops"] == {
        "items": {"$ref": "#/$defs/Point"},
        "title": "Stops",
        "type": "array",
    }
    assert set(t.parameters["$defs"]) == {"Point", "Color"}
    route = t.build_args({"name": "r", "stops": [{"x": 1, "y": 2}], "color": "blue"})
    assert route == Route(name="r", stops=[Point(x=1, y=2)], color=Color.BLUE)
    assert t.validation_errors({"name": "r", "stops": [{"x": 1.5, "y": 2}]}) == [
        "at $.stops[0].x: 1.5 is not of type 'integer'"
    ]


def test_pydantic_models_nest_in_signatures_and_recurse() -> None:
    @tool
    def plan(route: Route, backup: Route | None = None, tree: Tree | None = None) -> str:
        return route.name

    defs = plan.parameters["$defs"]
    assert set(defs) == {"Point", "Color", "Tree"}
    built = plan.build_args({"route": {"name": "a", "stops": []}, "tree": {"label": "t"}})
    assert built["route"] == Route(name="a", stops=[]) and built["tree"] == Tree(label="t")
    tree = define_tool("tree", "t", Tree, lambda args, ctx: args)
    assert tree.parameters["type"] == "object" and "$ref" not in tree.parameters
    assert tree.validation_errors({"label": "a", "children": [{"label": 3}]}) == [
        "at $.children[0].label: 3 is not of type 'string'"
    ]


def test_a_pydantic_validator_failure_names_its_path() -> None:
    from agentcore._loop.tool_schema import argument_errors

    @tool
    def go(route: Route) -> str:
        return route.name

    args = {"route": {"name": "a", "stops": [{"x": 1, "y": 1}, {"x": 1, "y": -1}]}}
    assert go.validation_errors(args) == []
    with pytest.raises(ValueError) as caught:
        go.build_args(args)
    assert argument_errors(caught.value) == [
        "at $.route.stops[1].y: Value error, must not be negative"
    ]


@dataclasses.dataclass
class Node:
    value: int
    next: Node | None = None


def test_definition_errors_name_the_problem() -> None:
    with pytest.raises(ConfigurationError, match=r"Node refers to itself; .* pydantic model"):
        schema_for(Node)

    class Other(pydantic.BaseModel):
        p: Point

    point_again = pydantic.create_model("Point", z=(str, ...))
    another = pydantic.create_model("Another", p=(point_again, ...))

    def clash(a: Other, b: Any) -> None:
        return None

    clash.__annotations__ = {"a": Other, "b": another, "return": None}
    with pytest.raises(ConfigurationError, match="two different pydantic models are named 'Point'"):
        tool(clash)
    with pytest.raises(ConfigurationError, match=r"enum values \[1j\] must be JSON"):
        _tool_of(Literal[1j])


def test_union_of_classes_builds_the_first_matching_branch() -> None:
    @dataclasses.dataclass
    class ByName:
        name: str

    @dataclasses.dataclass
    class ById:
        id: int

    t = _tool_of(ByName | ById | None)
    assert _built(t, {"id": 3}) == ById(3)
    assert _built(t, {"name": "n"}) == ByName("n")
    assert _built(t, None) is None


# -- generated types ------------------------------------------------------------------------------


class Case(NamedTuple):
    """An annotation, JSON values valid and invalid for it, and a check of a built value."""

    annotation: Any
    valid: st.SearchStrategy[Any]
    invalid: st.SearchStrategy[Any]
    check: Callable[[Any, Any], None]


_names = itertools.count()


def _exact(kind: type) -> Callable[[Any, Any], None]:
    def check(sent: Any, built: Any) -> None:
        assert type(built) is kind and built == sent

    return check


def _number(sent: Any, built: Any) -> None:
    assert built == sent and type(built) in (int, float)


_NOT_NUMBERS = st.booleans() | st.text() | st.none() | st.lists(st.integers(), max_size=1)
_INT = Case(
    int,
    st.integers(),
    st.integers().map(float) | st.floats(allow_nan=False) | _NOT_NUMBERS,
    _exact(int),
)
_FLOAT = Case(
    float,
    # integers a float holds exactly: pydantic makes a float of a larger one, losing digits
    st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False),
    _NOT_NUMBERS,
    _number,
)
_STR = Case(str, st.text(), st.integers() | st.booleans() | st.none(), _exact(str))
_BOOL = Case(bool, st.booleans(), st.integers() | st.none() | st.text(), _exact(bool))


@st.composite
def _literal(draw: st.DrawFn) -> Case:
    values = draw(st.lists(st.text(max_size=3), min_size=1, max_size=3, unique=True))
    return Case(
        Literal[tuple(values)],
        st.sampled_from(values),
        st.text().filter(lambda v: v not in values) | st.integers(),
        _exact(str),
    )


@st.composite
def _enum(draw: st.DrawFn) -> Case:
    values = draw(st.lists(st.integers(-5, 5), min_size=1, max_size=3, unique=True))
    cls = enum.Enum(f"E{next(_names)}", {f"M{i}": v for i, v in enumerate(values)})  # type: ignore[misc]

    def check(sent: Any, built: Any) -> None:
        assert type(built) is cls and built.value == sent

    invalid = st.integers().filter(lambda v: v not in values) | st.sampled_from(values).map(float)
    return Case(cls, st.sampled_from(values), invalid | st.text(), check)


def _list(inner: Case) -> Case:
    def check(sent: Any, built: Any) -> None:
        assert type(built) is list and len(built) == len(sent)
        for s, b in zip(sent, built, strict=True):
            inner.check(s, b)

    invalid = (
        st.lists(inner.invalid, min_size=1, max_size=2)
        | st.text()
        | st.dictionaries(st.text(), inner.valid, max_size=1)
    )
    return Case(list[inner.annotation], st.lists(inner.valid, max_size=3), invalid, check)


def _tuple(inner: Case) -> Case:
    def check(sent: Any, built: Any) -> None:
        assert type(built) is tuple
        for s, b in zip(sent, built, strict=True):
            inner.check(s, b)

    annotation = tuple[inner.annotation, ...]  # type: ignore[name-defined]
    return Case(annotation, st.lists(inner.valid, max_size=3), _list(inner).invalid, check)


def _pair(cases: tuple[Case, Case]) -> Case:
    first, second = cases

    def check(sent: Any, built: Any) -> None:
        assert type(built) is tuple and len(built) == 2
        first.check(sent[0], built[0])
        second.check(sent[1], built[1])

    valid = st.tuples(first.valid, second.valid).map(list)
    invalid = (
        st.tuples(first.invalid, second.valid).map(list)
        | st.tuples(first.valid).map(list)
        | st.tuples(first.valid, second.valid, second.valid).map(list)
    )
    return Case(tuple[first.annotation, second.annotation], valid, invalid, check)


def _mapping(inner: Case) -> Case:
    def check(sent: Any, built: Any) -> None:
        assert type(built) is dict and built.keys() == sent.keys()
        for key in sent:
            inner.check(sent[key], built[key])

    valid = st.dictionaries(st.text(max_size=3), inner.valid, max_size=3)
    invalid = st.dictionaries(st.text(max_size=3), inner.invalid, min_size=1, max_size=2)
    return Case(dict[str, inner.annotation], valid, invalid | st.integers(), check)


def _optional(inner: Case) -> Case:
    def check(sent: Any, built: Any) -> None:
        if sent is None:
            assert built is None
        else:
            inner.check(sent, built)

    invalid = inner.invalid.filter(lambda v: v is not None)
    return Case(inner.annotation | None, st.none() | inner.valid, invalid, check)


def _fields(cases: list[Case]) -> dict[str, Case]:
    return {f"f{i}": case for i, case in enumerate(cases)}


def _object_strategies(fields: dict[str, Case], extra_is_invalid: bool) -> tuple[Any, Any]:
    valid = st.fixed_dictionaries({name: c.valid for name, c in fields.items()})
    one_bad = st.sampled_from(sorted(fields)).flatmap(
        lambda bad: st.fixed_dictionaries(
            {n: (c.invalid if n == bad else c.valid) for n, c in fields.items()}
        )
    )
    missing = valid.map(lambda d: dict(list(d.items())[1:]))
    invalid = one_bad | missing | st.integers() | st.text()
    if extra_is_invalid:
        invalid |= valid.map(lambda d: {**d, "zz_extra": 1})
    return valid, invalid


def _check_fields(fields: dict[str, Case], sent: Any, read: Callable[[str], Any]) -> None:
    for name, case in fields.items():
        case.check(sent[name], read(name))


def _dataclass(cases: list[Case]) -> Case:
    fields = _fields(cases)
    cls = dataclasses.make_dataclass(
        f"D{next(_names)}", [(n, c.annotation) for n, c in fields.items()]
    )

    def check(sent: Any, built: Any) -> None:
        assert type(built) is cls
        _check_fields(fields, sent, lambda n: getattr(built, n))

    return Case(cls, *_object_strategies(fields, True), check)


def _typeddict(cases: list[Case]) -> Case:
    fields = _fields(cases)
    cls = TypedDict(f"T{next(_names)}", {n: c.annotation for n, c in fields.items()})  # type: ignore[operator]

    def check(sent: Any, built: Any) -> None:
        assert type(built) is dict and built.keys() == sent.keys()
        _check_fields(fields, sent, built.__getitem__)

    return Case(cls, *_object_strategies(fields, True), check)


def _pydantic(cases: list[Case]) -> Case:
    fields = _fields(cases)
    model = pydantic.create_model(  # type: ignore[call-overload]
        f"P{next(_names)}", **{n: (c.annotation, ...) for n, c in fields.items()}
    )

    def check(sent: Any, built: Any) -> None:
        assert type(built) is model
        _check_fields(fields, sent, lambda n: getattr(built, n))

    return Case(model, *_object_strategies(fields, False), check)  # extra keys are ignored


_LEAVES = st.sampled_from([_INT, _FLOAT, _STR, _BOOL]) | _literal() | _enum()
_PYDANTIC_SAFE = st.recursive(  # pydantic wants typing_extensions.TypedDict on Python 3.11
    _LEAVES, lambda inner: inner.map(_list) | inner.map(_optional), max_leaves=3
)


def _extend(inner: st.SearchStrategy[Case]) -> st.SearchStrategy[Case]:
    some = st.lists(inner, min_size=1, max_size=3)
    return st.one_of(
        inner.map(_list),
        inner.map(_tuple),
        st.tuples(inner, inner).map(_pair),
        inner.map(_mapping),
        inner.map(_optional),
        some.map(_dataclass),
        some.map(_typeddict),
    )


CASES = st.recursive(
    _LEAVES | st.lists(_PYDANTIC_SAFE, min_size=1, max_size=3).map(_pydantic),
    _extend,
    max_leaves=6,
)


@settings(max_examples=100, deadline=None)
@given(CASES, st.data())
def test_generated_types_accept_valid_values_and_build_them(
    case: Case, data: st.DataObject
) -> None:
    t = _tool_of(case.annotation)
    for _ in range(3):
        sent = data.draw(case.valid)
        case.check(sent, _built(t, sent))


@settings(max_examples=100, deadline=None)
@given(CASES, st.data())
def test_generated_types_refuse_invalid_values(case: Case, data: st.DataObject) -> None:
    t = _tool_of(case.annotation)
    sent = data.draw(case.invalid)
    assert t.validation_errors({"x": sent}) != [], (case.annotation, sent)


def test_pydantic_stays_optional() -> None:
    """Models are recognised by their methods: agentcore never imports pydantic itself."""
    code = (
        "import sys, agentcore, agentcore.tools, agentcore.agent;print('pydantic' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr


@given(
    st.integers()
    | st.floats()
    | st.booleans()
    | st.decimals()
    | st.fractions()
    | st.complex_numbers()
    | st.text(max_size=2)
    | st.none()
)
def test_a_number_is_a_numbers_number_and_not_a_bool(value: Any) -> None:
    """The ``"number"`` check answers ints and floats without importing ``numbers``; the
    answer is ``numbers.Number``'s either way."""
    import numbers

    from agentcore._loop.tool_schema import _is_number

    assert _is_number(value) == (isinstance(value, numbers.Number) and not isinstance(value, bool))
