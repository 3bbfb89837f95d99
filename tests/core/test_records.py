"""The event classes ``records.frozen`` builds are the classes ``attrs.frozen`` would build.

Each is held to a twin that attrs itself builds from the same definition (the fields as
``attrs.fields`` reports them, the same class body): the same signature, fields, slots,
class attributes, and for any instance the same repr, pickled state and dict, with
equality, hashing, immutability and pickling as attrs gives them.

Tests the private modules ``agentcore._core``, ``agentcore._loop``, ``agentcore._runtime``:
records.frozen against attrs-built twins.
"""

from __future__ import annotations

import copy
import inspect
import operator
import pickle
import types
import typing
import weakref
from typing import Any, ClassVar, Generic, TypeVar

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import agentcore._loop.events as loop_events
from agentcore._core import (
    caching,
    content,
    driver,
    media,
    observers,
    pricing,
    provider_tools,
    state_machine,
)
from agentcore._core import events as core_events
from agentcore._core.records import NamedTuple, builder, field_names, frozen
from agentcore._loop import compaction, conversation, lineage, partial_json, steps_record, tools
from agentcore._loop import state as loop_state
from agentcore._runtime import (
    actions,
    agent_config,
    delivery,
    extensions,
    guardrails,
    middleware,
    run_result,
    tool_runner,
)
from agentcore.errors import InvalidEventError
from agentcore.events import EVENT_TYPES
from agentcore.testing import instances

MODULES = (core_events, loop_events, content, media, provider_tools, caching, driver, pricing)
MODULES += (observers, state_machine, compaction, lineage, partial_json, steps_record, tools)
MODULES += (conversation, actions, delivery, extensions, guardrails, middleware, tool_runner)
MODULES += (run_result, agent_config, loop_state)
BUILT = sorted(
    {
        value
        for module in MODULES
        for value in vars(module).values()
        if isinstance(value, type)
        and attrs.has(value)
        and inspect.signature(value)  # the methods written: their first use (records._Pending)
        and value.__init__.__code__.co_filename.startswith("<frozen generated init")
    },
    key=lambda cls: cls.__qualname__,
)

MADE = {
    "__init__", "__repr__", "__eq__", "__ne__", "__hash__", "__getstate__", "__setstate__",
    "__setattr__", "__delattr__", "__slots__", "__attrs_attrs__", "__attrs_props__",
    "__match_args__", "__weakref__",
}  # fmt: skip
"""What attrs adds to a class (the twin's body leaves them out, for attrs to make)."""


def _twin(cls: type[Any]) -> type[Any]:
    """``attrs.frozen`` applied to ``cls``'s definition, rebuilt from what it holds."""
    fields = attrs.fields(cls)
    props: Any = cls.__attrs_props__  # type: ignore[attr-defined]
    kw_only, eq = props.kw_only.value != "no", props.added_eq
    made = MADE if eq else MADE - {"__eq__", "__ne__", "__hash__"}  # eq=False: the class's own
    body = {k: v for k, v in vars(cls).items() if k not in made | {a.name for a in fields}}
    for a in fields:
        body[a.name] = attrs.field(
            default=a.default,
            validator=a.validator,
            converter=a.converter,
            kw_only=a.kw_only,
            repr=a.repr,
            init=a.init,
            eq=a.eq,
        )
    body["__qualname__"] = cls.__qualname__
    return attrs.frozen(type(cls.__name__, cls.__bases__, body), kw_only=kw_only, eq=eq)


TWINS = {cls: _twin(cls) for cls in BUILT}


def test_every_event_class_is_built_by_frozen() -> None:
    assert {cls for cls in EVENT_TYPES.values() if cls.__module__ in {
        core_events.__name__, loop_events.__name__}} <= set(BUILT)  # fmt: skip
    assert len(BUILT) >= 70


@pytest.mark.parametrize("cls", BUILT, ids=lambda c: c.__qualname__)
def test_the_class_is_attrs_twin(cls: type[Any]) -> None:
    twin = TWINS[cls]
    assert field_names(cls) == field_names(twin) == tuple(a.name for a in attrs.fields(twin))
    assert inspect.signature(cls) == inspect.signature(twin)
    assert cls.__init__.__annotations__ == twin.__init__.__annotations__
    assert attrs.fields(cls) == attrs.fields(twin)
    assert [a.name for a in attrs.fields(cls)] == [
        getattr(attrs.fields(cls), a.name).name for a in attrs.fields(cls)
    ]
    assert cls.__slots__ == twin.__slots__
    assert cls.__match_args__ == twin.__match_args__
    assert set(vars(cls)) == set(vars(twin))
    assert cls.__attrs_props__ == twin.__attrs_props__
    assert (cls.__name__, cls.__qualname__, cls.__module__, cls.__doc__) == (
        twin.__name__,
        twin.__qualname__,
        twin.__module__,
        twin.__doc__,
    )
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"


def _as_twin(event: Any) -> Any:
    twin = TWINS[type(event)]
    built = object.__new__(twin)
    built.__setstate__(event.__getstate__())
    return built


def _hash(value: Any) -> int | None:
    try:
        return hash(value)
    except TypeError:
        return None


def _events() -> st.SearchStrategy[Any]:
    """Events of every registered class ``frozen`` built, and the values inside them."""
    values = [content.Usage, content.TextPart, content.ThinkingPart, content.ToolCallPart]
    values += [content.TextContent, media.FileContent, provider_tools.ServerToolCallPart]
    values += [provider_tools.ServerToolResultPart, provider_tools.CitationPart]
    registered = [cls for cls in BUILT if cls in EVENT_TYPES.values()]
    return st.sampled_from(registered + values).flatmap(instances)


@given(_events())
def test_an_instance_behaves_as_its_attrs_twin(event: Any) -> None:
    cls, twin = type(event), _as_twin(event)
    assert repr(event) == repr(twin)
    assert attrs.asdict(event) == attrs.asdict(twin)
    assert event.__getstate__() == twin.__getstate__()
    values = {a.name: getattr(event, a.name) for a in attrs.fields(cls)}
    again = cls(**values)
    assert again == event
    assert _hash(again) == _hash(event)
    assert (_hash(event) is None) is (_hash(twin) is None)  # a dict inside: unhashable in both
    assert not again.__ne__(event)
    assert TWINS[cls](**values) == twin  # the twin's __init__ takes the same arguments
    assert event != twin and twin != event  # another class: never equal
    assert attrs.evolve(event) == event
    assert pickle.loads(pickle.dumps(event)) == event
    assert copy.copy(event) == event and copy.deepcopy(event) == event
    old_style = object.__new__(cls)  # a pickle from attrs before 22.2 holds a tuple
    old_style.__setstate__(tuple(values.values()))
    assert old_style == event
    for name in values:
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            setattr(event, name, None)
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            delattr(event, name)
    assert weakref.ref(event)() is event


@given(_events())
def test_a_builder_makes_the_instance_the_class_makes(event: Any) -> None:
    """``builder(cls)``, the core's way to make an output of checked values, is the class
    called with the same values (fast path == plain path), for every class."""
    cls = type(event)
    values = [getattr(event, a.name) for a in attrs.fields(cls)]
    built = builder(cls)(*values)
    assert type(built) is cls
    assert built == event and _hash(built) == _hash(event)
    assert repr(built) == repr(event)
    assert built.__getstate__() == event.__getstate__()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(built, attrs.fields(cls)[0].name, None)


def test_a_builder_checks_nothing() -> None:
    """What it skips: the check and the converters (the values are taken as given), which
    the class itself runs."""
    build = builder(core_events.ToolResult)
    forged = build(5, ["not", "content"], "no", None, "never")
    assert (forged.tool_call_id, forged.result, forged.timestamp) == (
        5,
        ["not", "content"],
        "never",
    )
    with pytest.raises(InvalidEventError, match="tool_call_id"):
        core_events.ToolResult(5, "x")  # type: ignore[arg-type]


@given(_events(), _events())
def test_equality_is_by_class_and_fields(a: Any, b: Any) -> None:
    same = type(a) is type(b) and a.__getstate__() == b.__getstate__()
    assert (a == b) is same
    if same:
        assert _hash(a) == _hash(b)


def test_a_field_change_is_an_inequality() -> None:
    a = core_events.TextDelta("hi", 0, timestamp=1)
    assert a != attrs.evolve(a, text="ho")
    assert a != attrs.evolve(a, timestamp=2)
    assert a != core_events.ThinkingDelta("hi", 0, timestamp=1)


@frozen
class _Sample:
    kind: ClassVar[str] = "sample"
    name: str
    size: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    tags: tuple[str, ...] = attrs.field(factory=list, converter=tuple)
    stamp: int = attrs.field(default=0, kw_only=True)

    def describe(self) -> str:
        return f"{super().__repr__()}"


def test_defaults_factories_converters_and_validators_run_as_in_attrs() -> None:
    sample = _Sample("a")
    assert (sample.name, sample.size, sample.tags, sample.stamp) == ("a", 1, (), 0)
    assert _Sample("a", 2, ["x"], stamp=3).tags == ("x",)  # the converter runs on the factory's
    assert _Sample("a").tags is not _Sample("b").tags or _Sample("a").tags == ()
    with pytest.raises(ValueError, match="'size' must be > 0: 0"):
        _Sample("a", 0)
    with attrs.validators.disabled():
        assert _Sample("a", 0).size == 0
    with pytest.raises(TypeError):
        _Sample()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Sample("a", 1, (), 0)  # type: ignore[misc]
    assert _Sample.kind == "sample" and "kind" not in _Sample.__slots__
    assert _Sample("a").describe().startswith("<")  # super() reaches object's __repr__
    assert repr(_Sample("a")) == "_Sample(name='a', size=1, tags=(), stamp=0)"


def test_an_instance_that_holds_itself_is_shown_with_dots() -> None:
    holder: list[Any] = []
    sample = _Sample("a", 1, holder)  # the converter copies: build the cycle by hand
    object.__setattr__(sample, "tags", (sample,))
    assert repr(sample) == "_Sample(name='a', size=1, tags=(...,), stamp=0)"


def _positive(instance: Any, attribute: Any, value: Any) -> None:
    if value <= 0:
        raise ValueError("positive")


@pytest.mark.parametrize(
    "body",
    [
        {"__annotations__": {"x": "int"}, "x": attrs.field(init=False, converter=int)},
        {"__annotations__": {"x": "int"}, "x": attrs.field(init=False, validator=_positive)},
        {"__annotations__": {"x": "int"}, "x": attrs.field(eq=str.lower)},
        {"__annotations__": {"x": "int"}, "x": attrs.field(repr=lambda x: "?")},
        {"__annotations__": {"__x": "int"}},
        {"__annotations__": {"x": "int"}, "x": attrs.field(type=int)},
        {"__annotations__": {"x": "int"}, "__repr__": lambda self: "x"},
    ],
)
def test_options_it_does_not_mirror_are_refused(body: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match=r"use attrs\.frozen"):
        frozen(type("Odd", (), body))


_FIELDS = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "_c", "_d_", "e_"]),
        st.sampled_from([None, 0, "factory", "self factory"]),  # the default
        st.sampled_from([None, True, False]),  # the field's own kw_only
        st.booleans(),  # init
        st.booleans(),  # eq
        st.booleans(),  # repr
    ),
    max_size=4,
    unique_by=lambda f: f[0].lstrip("_"),
)
_Field = tuple[str, Any, bool | None, bool, bool, bool]


def _fields_set(instance: Any) -> int:
    return sum(hasattr(instance, a.name) for a in attrs.fields(type(instance)))


def _body(fields: list[_Field]) -> dict[str, Any]:
    body: dict[str, Any] = {"__annotations__": {f[0]: "int" for f in fields}}
    for name, default, kw_only, init, eq, shown in fields:
        options: dict[str, Any] = {"kw_only": kw_only, "init": init, "eq": eq, "repr": shown}
        if default == "factory":
            options["factory"] = list
        elif default == "self factory":  # the fields before it are set
            options["default"] = attrs.Factory(_fields_set, takes_self=True)
        elif default is not None:
            options["default"] = default
        plain = default == 0 and (kw_only, init, eq, shown) == (None, True, True, True)
        body[name] = 0 if plain else attrs.field(**options)
    return body


@given(_FIELDS, st.booleans(), st.booleans(), st.data())
def test_fields_and_class_options_it_mirrors_are_built_as_attrs_builds_them(
    fields: list[_Field], kw_only: bool, eq: bool, data: st.DataObject
) -> None:
    """Private fields (the parameter without leading underscores), ``kw_only=True``,
    ``eq=False`` on the class (identity, no ``__eq__``/``__ne__``/``__hash__``) or a field
    (left out of comparison and hash), ``init=False`` (set to its default, factory's
    result or ``NOTHING``) and ``repr=False``, as attrs builds them: the same signature,
    fields, class properties, match arguments, instances, comparison and evolve; a
    mandatory positional field after a default is refused by both."""
    try:
        twin = attrs.frozen(type("Odd", (), _body(fields)), kw_only=kw_only, eq=eq)
    except ValueError as error:
        with pytest.raises(ValueError) as refused:
            frozen(kw_only=kw_only, eq=eq)(type("Odd", (), _body(fields)))
        assert str(refused.value) == str(error)
        return
    cls = frozen(kw_only=kw_only, eq=eq)(type("Odd", (), _body(fields)))
    assert inspect.signature(cls) == inspect.signature(twin)
    assert attrs.fields(cls) == attrs.fields(twin)
    assert cls.__attrs_props__ == twin.__attrs_props__
    assert cls.__match_args__ == twin.__match_args__
    assert cls.__init__.__annotations__ == twin.__init__.__annotations__
    assert set(vars(cls)) == set(vars(twin))
    values = {f[0].lstrip("_"): data.draw(st.integers(), label=f[0]) for f in fields if f[3]}
    mine, theirs = cls(**values), twin(**values)
    assert repr(mine) == repr(theirs) and _values(mine) == _values(theirs)
    again, twin_again = cls(**values), twin(**values)
    for compare in (operator.eq, operator.ne, lambda x, y: _hash(x) == _hash(y)):
        assert _outcome(compare, mine, again) == _outcome(compare, theirs, twin_again)
    changed = {name: value + 1 for name, value in values.items()}
    assert _values(attrs.evolve(mine, **changed)) == _values(attrs.evolve(theirs, **changed))
    if attrs.NOTHING not in _values(mine):  # the pickling pair
        assert _values(copy.deepcopy(mine)) == _values(mine)


def _outcome(compare: Any, first: Any, second: Any) -> Any:
    """What ``compare`` gives, or the class of what it raises (a field never set)."""
    try:
        return compare(first, second)
    except AttributeError as error:
        return type(error)


def _values(instance: Any) -> tuple[Any, ...]:
    """Every field's value (``NOTHING`` for one never set: ``init=False``, no default)."""
    return tuple(getattr(instance, a.name, attrs.NOTHING) for a in attrs.fields(type(instance)))


class _Methods:
    __slots__ = ()

    def twice(self) -> int:
        return 2 * self.size  # type: ignore[attr-defined]


class _Slotted:
    __slots__ = ("extra",)


@pytest.mark.parametrize(
    "base",
    [
        _Sample,
        _Slotted,
        type("Plain", (), {}),
        type("Sub", (_Methods, _Slotted), {"__slots__": ()}),
    ],
)
def test_a_base_class_with_fields_or_slots_is_refused(base: type[Any]) -> None:
    with pytest.raises(TypeError, match="must not have a base class"):
        frozen(type("Odd", (base,), {"__annotations__": {}}))


def test_a_base_class_of_methods_is_kept_as_attrs_keeps_it() -> None:
    """A base of methods with empty ``__slots__`` (as ``media._Inline``) adds no field:
    the class is its attrs twin, with the base's methods."""
    body = {"__annotations__": {"size": "int"}, "__qualname__": "Sized", "__module__": __name__}
    built = frozen(type("Sized", (_Methods,), dict(body)))
    twin = attrs.frozen(type("Sized", (_Methods,), dict(body)))
    assert built.__mro__[1:] == twin.__mro__[1:] == (_Methods, object)
    assert built(3).twice() == twin(3).twice() == 6
    assert (attrs.fields(built), built.__slots__) == (attrs.fields(twin), twin.__slots__)
    assert repr(built(3)) == repr(twin(3)) and built(3) == built(3) != built(4)


_T = TypeVar("_T")


def test_generic_bases_and_a_field_left_out_of_the_repr_are_kept_as_attrs_keeps_them() -> None:
    """Several plain bases (``typing.Generic`` is one, as ``ToolContext``'s) and
    ``repr=False``: the class is its attrs twin, subscriptable, the field out of its repr
    but still compared."""

    def body() -> dict[str, Any]:
        return {
            "__annotations__": {"size": "int", "hidden": "int"},
            "hidden": attrs.field(default=0, repr=False),
            "__qualname__": "Boxed",
            "__module__": __name__,
            "__orig_bases__": (_Methods, Generic[_T]),
        }

    def boxed() -> type[Any]:
        return types.new_class("Boxed", (_Methods, Generic[_T]), {}, lambda ns: ns.update(body()))

    built, twin = frozen(boxed()), attrs.frozen(boxed())
    assert built.__mro__[1:] == twin.__mro__[1:] == (_Methods, Generic, object)
    assert built.__parameters__ == twin.__parameters__ == (_T,)
    assert built[int](3).twice() == 6  # type: ignore[index]
    assert set(vars(built)) == set(vars(twin))
    assert (attrs.fields(built), built.__slots__) == (attrs.fields(twin), twin.__slots__)
    assert repr(built(3, 1)) == repr(twin(3, 1)) == "Boxed(size=3)"
    assert built(3, 1) != built(3, 2) and built(3, 1) == built(3, 1)


def test_a_mandatory_field_after_a_default_is_refused_as_by_attrs() -> None:
    body = {"__annotations__": {"x": "int", "y": "int"}, "x": 0}
    with pytest.raises(ValueError, match="No mandatory attributes allowed after"):
        frozen(type("Odd", (), dict(body)))
    with pytest.raises(ValueError, match="No mandatory attributes allowed after"):
        attrs.frozen(type("Odd", (), dict(body)))


def _sample_body() -> dict[str, Any]:
    return {
        "__annotations__": {"name": "str", "size": "int", "tags": "tuple[str, ...]"},
        "size": attrs.field(default=1, validator=attrs.validators.gt(0)),
        "tags": attrs.field(factory=list, converter=tuple, kw_only=True),
        "__module__": __name__,
        "__qualname__": "Lazy",
    }


FIRST_USES = {
    "init": lambda cls: cls("a"),
    "signature": inspect.signature,
    "fields": attrs.fields,
    "builder": lambda cls: builder(cls)("a", 2, ()),
    "repr": lambda cls: repr(builder(cls)("a", 2, ())),
    "eq": lambda cls: builder(cls)("a", 2, ()) == builder(cls)("a", 2, ()),
    "hash": lambda cls: hash(builder(cls)("a", 2, ())),
    "copy": lambda cls: copy.deepcopy(builder(cls)("a", 2, ())),  # the pickling pair
    "setstate": lambda cls: object.__new__(cls).__setstate__({"name": "a"}),
    "evolve": lambda cls: attrs.evolve(builder(cls)("a", 2, ()), size=3),
}
"""The ways a class built by ``frozen`` can be first used, each before its methods are
written (``records._Pending``)."""


@given(
    st.permutations(sorted(FIRST_USES)),
    st.text(max_size=3),
    st.integers(1, 3),
    st.lists(st.text(max_size=2), max_size=2),
)
def test_a_class_is_its_attrs_twin_whatever_its_first_use(
    uses: list[str], name: str, size: int, tags: list[str]
) -> None:
    """The methods are written on first use: whichever comes first (the fast path of the
    import), the class then behaves as the twin attrs builds eagerly (the plain path)."""
    cls = frozen(type("Lazy", (), _sample_body()))
    twin = attrs.frozen(type("Lazy", (), _sample_body()))
    assert "__signature__" in vars(cls)  # nothing written yet
    for use in uses[:3]:
        FIRST_USES[use](cls)
    assert inspect.signature(cls) == inspect.signature(twin)
    assert cls.__init__.__annotations__ == twin.__init__.__annotations__
    assert set(vars(cls)) == set(vars(twin))
    assert attrs.fields(cls) == attrs.fields(twin)
    mine, theirs = cls(name, size, tags=tags), twin(name, size, tags=tags)
    assert repr(mine) == repr(theirs)
    assert mine.__getstate__() == theirs.__getstate__()
    assert attrs.asdict(mine) == attrs.asdict(theirs)
    assert mine == cls(name, size, tags=tags) and hash(mine) == hash(cls(name, size, tags=tags))
    assert copy.deepcopy(mine).__getstate__() == mine.__getstate__()
    with pytest.raises(ValueError, match="'size' must be > 0"):
        cls(name, 0)


def test_a_subclass_reaches_the_methods_before_they_are_written() -> None:
    """A subclass defined before its base is used: its own ``__init__`` reaches the base's
    through ``super()``, which writes the base's methods."""
    base = frozen(type("Lazy", (), _sample_body()))

    class Sub(base):  # type: ignore[misc, valid-type]
        def __init__(self, name: str) -> None:
            super().__init__(name, 2)

    made = Sub("a")
    assert (made.name, made.size, made.tags) == ("a", 2, ())
    assert repr(made) == "Sub(name='a', size=2, tags=())"
    assert made == Sub("a") and hash(made) == hash(Sub("a"))


def test_one_stub_serves_every_class_and_finds_the_one_that_holds_it() -> None:
    """The stubs are shared by all the classes ``frozen`` builds (no closure per class):
    each writes the methods of the class of the MRO that holds it, not another's."""
    first, second = (frozen(type("Lazy", (), _sample_body())) for _ in range(2))
    assert vars(first)["__repr__"] is vars(second)["__repr__"]
    assert repr(second("b")) == "Lazy(name='b', size=1, tags=())"
    assert "__signature__" in vars(first) and "__signature__" not in vars(second)


def test_a_stub_looked_up_before_another_thread_wrote_the_methods_calls_the_written_one() -> None:
    """A thread that took the stub just before another wrote the methods calls the
    written method; a stub called on an instance of no class built by ``frozen`` says so."""
    cls = frozen(type("Lazy", (), _sample_body()))
    stub = vars(cls)["__repr__"]
    made = builder(cls)("a", 2, ())
    inspect.signature(cls)  # the other thread: the methods written
    assert vars(cls)["__repr__"] is not stub
    assert stub(made) == "Lazy(name='a', size=2, tags=())"
    with pytest.raises(TypeError, match="no class of object holds a written __repr__"):
        stub(object())


def test_a_builder_makes_no_attributes() -> None:
    """``builder`` and ``field_names`` read the field names off the definition: the
    ``attrs.Attribute``s (and the class of their tuple) are made on the first
    ``attrs.fields``, not by the import's builders and constants."""
    cls = frozen(type("Lazy", (), _sample_body()))
    made = builder(cls)("a", 2, ("x",))
    assert field_names(cls) == ("name", "size", "tags")
    assert type(vars(cls)["__attrs_attrs__"]).__name__ == "_Pending"
    assert (made.name, made.size, made.tags) == ("a", 2, ("x",))
    assert [a.name for a in attrs.fields(cls)] == ["name", "size", "tags"]


def test_a_class_built_before_an_error_writes_nothing_twice() -> None:
    """A failed first call (a validator refusing) leaves the written methods in place."""
    cls = frozen(type("Lazy", (), _sample_body()))
    with pytest.raises(ValueError, match="'size' must be > 0"):
        cls("a", 0)
    assert "__signature__" not in vars(cls)
    written = cls.__init__
    assert cls("a").size == 1 and cls.__init__ is written


_TUPLE_FIELDS = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c", "size", "kind"]), st.booleans()),
    max_size=4,
    unique_by=lambda f: f[0],
)


def _named_tuple_body(fields: list[tuple[str, bool]]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "__annotations__": {name: "int" for name, _ in fields},
        "__module__": __name__,
        "__qualname__": "Pair",
        "twice": lambda self: 2 * len(self),
    }
    body.update({name: 7 for name, has_default in fields if has_default})
    return body


def _parameters(cls: type[Any]) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


def _made(make: Any) -> Any:
    try:
        return make()
    except (TypeError, ValueError) as error:
        return type(error), str(error)


@given(_TUPLE_FIELDS, st.data())
def test_a_named_tuple_is_the_one_typing_makes(
    fields: list[tuple[str, bool]], data: st.DataObject
) -> None:
    """``records.NamedTuple`` (the processors' states) makes the class ``typing.NamedTuple``
    makes of the same class statement (fast path == plain path), annotations kept as
    written: the same fields, defaults, docs, methods, instances, errors and copies."""

    def build(base: Any) -> Any:
        return types.new_class("Pair", (base,), {}, lambda ns: ns.update(_named_tuple_body(fields)))

    mine, theirs = _made(lambda: build(NamedTuple)), _made(lambda: build(typing.NamedTuple))
    if isinstance(theirs, tuple):  # a field without a default after one with
        assert mine == theirs
        return
    for name in ("_fields", "_field_defaults", "__doc__", "__match_args__", "__qualname__"):
        assert getattr(mine, name) == getattr(theirs, name)
    assert mine.__mro__[1:] == theirs.__mro__[1:] and type(mine) is type(theirs)
    assert set(vars(mine)) == set(vars(theirs))
    assert _parameters(mine) == _parameters(theirs)  # the annotations as written, not ForwardRefs
    assert mine.__new__.__doc__ == theirs.__new__.__doc__
    names = [name for name, _ in fields]
    values = data.draw(st.lists(st.integers(), min_size=len(names), max_size=len(names)))
    given_count = data.draw(st.integers(0, len(names)))
    args, kwargs = (
        values[:given_count],
        dict(zip(names[given_count:], values[given_count:], strict=True)),
    )
    made, twin = _made(lambda: mine(*args, **kwargs)), _made(lambda: theirs(*args, **kwargs))
    assert made == twin and repr(made) == repr(twin).replace(theirs.__name__, mine.__name__)
    made, twin = (
        _made(lambda: mine(*values[:given_count])),
        _made(lambda: theirs(*values[:given_count])),
    )
    assert made == twin
    if isinstance(made, tuple) and type(made) is mine:
        assert made._asdict() == twin._asdict() and made.twice() == twin.twice()
        assert hash(made) == hash(twin) and copy.deepcopy(made) == made
        assert made._replace(**kwargs) == twin._replace(**kwargs)
        assert _made(lambda: made._replace(other=1)) == _made(lambda: twin._replace(other=1))
        assert mine._make(values) == theirs._make(values)
        assert _made(lambda: mine._make([*values, 1])) == _made(lambda: theirs._make([*values, 1]))


def test_a_named_tuple_refuses_what_typing_refuses() -> None:
    for body in ({"_fields": ()}, {"__annotations__": {"_hidden": "int"}}):
        body["__module__"] = __name__
        for base in (NamedTuple, typing.NamedTuple):
            with pytest.raises((AttributeError, ValueError)):
                types.new_class("Odd", (base,), {}, lambda ns, body=body: ns.update(body))
    with pytest.raises(TypeError, match="for class statements"):
        NamedTuple("Odd", [("a", int)])
    with pytest.raises(TypeError, match="can only inherit from a NamedTuple"):
        types.new_class("Odd", (NamedTuple, _Methods), {})
