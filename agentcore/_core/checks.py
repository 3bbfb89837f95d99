"""Construction-time checks of the fields of events and of the values inside them.

``checked`` is a class decorator that goes *under* ``attrs.frozen``, so that the
``__init__`` attrs writes calls the hook it adds::

    @event_type("error_received", "stream")
    @attrs.frozen(slots=True)
    @checked
    class ErrorReceived: ...

It reads the class's annotations (a class of the package on its first check, so the
import resolves none) and gives the class an ``__attrs_post_init__`` that runs after
attrs' converters: a fast path gathers the classes of all the fields in one C
call and looks the combination up among those the annotations allow (then tests the few
fields that need more than a type: a count's sign, a tuple's items, a JSON value); only
when that fails does ``check_fields`` walk the fields and raise ``InvalidEventError`` for
the first wrong one, naming the class (and its wire name), the field and what it got.
``str`` and ``int`` fields accept instances of subclasses (an ``ErrorCode`` is a
``StrEnum``), which compare equal to their wire form; the fast path leaves those to
``check_fields``.

A class built per stream chunk or per tool call writes its own ``__attrs_post_init__``
instead: one expression of exact-type tests (``type(v) is str`` ...) that calls
``check_fields`` when it is false. That costs about a third of the generic fast path
(figures in docs/events.md; the generated code attrs itself would use is not allowed in
the pure core), and ``check_fields`` still decides and words every error. A property
test holds each hand-written test to the full check.

What a field accepts, by its annotation:

- ``str``; ``int`` (never a ``bool``); ``NonNegativeInt`` (an ``int >= 0``); ``bool``;
  ``float`` (an int or a finite float, never a ``bool``); ``None``;
- ``Literal["a", "b"]`` of strings; a class: an instance of exactly that class;
- ``X | Y``; ``tuple[X, ...]``: a tuple of ``X``; ``Mapping[str, X]``: a mapping with
  ``str`` keys and ``X`` values;
- ``JSONValue``: ``None``, a bool, an int, a finite float, a str, a list, or a mapping with
  ``str`` keys, nested at most ``MAX_JSON_DEPTH`` levels (no tuples: the wire form reads
  arrays back as lists, and ``(1,) != [1]``);
- ``Any``: anything. Other annotations are a ``TypeError`` when the class is defined.

These are exactly the values whose wire form reads back equal, so ``from_dict(to_dict(e))
== e`` holds for every event that constructs. A converter that cannot convert a value
returns ``Rejected(reason)`` (see ``deferred``) instead of raising, so the error it found
is raised by the field check, which knows the class and the field.
"""

from __future__ import annotations

import itertools
import math
import operator
import types
import typing
from collections.abc import Callable, Collection, Mapping
from typing import Annotated, Any, ClassVar, Literal, TypeAlias, TypeVar, cast

from .errors import InvalidEventError

__all__ = [
    "JSONValue",
    "MAX_JSON_DEPTH",
    "NonNegativeInt",
    "Rejected",
    "check_again",
    "check_fields",
    "check_keys",
    "checked",
    "deferred",
    "is_checked",
    "is_json",
    "json_problem",
    "shown",
]

MAX_JSON_DEPTH = 64
"""How many arrays and objects a JSON value may nest; deeper is an ``InvalidEventError``
(and a model's tool input nested deeper is an input error), never a ``RecursionError``."""


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_JSON = _Marker("JSON")
_NON_NEGATIVE = _Marker("NON_NEGATIVE")

JSONValue: TypeAlias = Annotated[Any, _JSON]
"""Anything ``json.dumps`` writes and reads back equal (see the module docstring); typed
as ``Any`` because JSON is recursive."""

NonNegativeInt: TypeAlias = Annotated[int, _NON_NEGATIVE]
"""An ``int >= 0`` (a count or a block index)."""

_T = TypeVar("_T")


def shown(value: object, limit: int = 80) -> str:
    """``"<type name>: <repr>"`` with the repr cut to ``limit`` characters, for messages;
    never raises, even for an object whose ``__repr__`` does."""
    try:
        text = repr(value)
    except Exception:
        text = "<unrepresentable>"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(value).__name__}: {text}"


class Rejected:
    """What a field converter returns for a value it could not convert: the field check
    of the class raises ``InvalidEventError`` with ``reason`` and the field's name."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"Rejected({self.reason!r})"


def deferred(convert: Callable[[Any], _T], value: Any) -> _T:
    """``convert(value)``, or a ``Rejected`` carrying its ``InvalidEventError``'s message.

    For attrs converters: one that raised could not name the class and the field; the
    ``Rejected`` is reported by the check that runs right after, which can.
    """
    try:
        return convert(value)
    except InvalidEventError as exc:
        return cast(_T, Rejected(exc.message))


def check_keys(
    what: str, mapping: Mapping[Any, Any], known: Collection[str], required: Collection[str]
) -> None:
    """Raise ``InvalidEventError`` unless every key of ``mapping`` is a ``str`` in
    ``known`` and every key of ``required`` is present; ``what`` starts the message."""
    bad = [k for k in mapping if type(k) is not str]
    if bad:
        raise InvalidEventError(f"{what}: keys must be strings, got {shown(bad[0])}")
    missing = sorted(set(required) - set(mapping))
    if missing:
        raise InvalidEventError(f"{what}: missing field(s) {', '.join(missing)}")
    unknown = sorted(set(mapping) - set(known))
    if unknown:
        raise InvalidEventError(
            f"{what}: unknown field(s) {', '.join(unknown)}; fields are {', '.join(known)}"
        )


# -- JSON values ----------------------------------------------------------------------------


def json_problem(value: object) -> str | None:
    """Why ``value`` is not a JSON value the wire form keeps equal, or None when it is."""
    found = _json_problem(value, MAX_JSON_DEPTH)
    if found is None:
        return None
    head, tail, path = found
    shown_path = "".join(reversed(path[-8:])) + ("..." if len(path) > 8 else "")
    return f"{head} at {shown_path}{tail}" if path else head + tail


def is_json(value: Any) -> bool:
    """Whether ``json_problem(value)`` is None, faster (no message is built)."""
    return _json_problem(value, MAX_JSON_DEPTH) is None


def _json_problem(value: Any, room: int) -> tuple[str, str, list[str]] | None:
    """``(what, why, path segments innermost first)``, or None: the message is ``what``,
    `` at <path>`` when there is one, then ``why``."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return None
    if kind is dict or kind is list or isinstance(value, list | Mapping):
        if room == 0:
            return f"nests deeper than {MAX_JSON_DEPTH} levels", "", []
        is_list = kind is list or isinstance(value, list)
        items = enumerate(value) if is_list else value.items()
        for key, item in items:
            if not is_list and type(key) is not str and not isinstance(key, str):
                return "has a key that is not a str", f" ({shown(key)})", []
            scalar = type(item)
            if scalar is str or scalar is int or scalar is bool or item is None:
                continue  # the common leaves, without a call
            found = _json_problem(item, room - 1)
            if found is not None:
                found[2].append(f"[{key!r}]")
                return found
        return None
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return f"has the float {value!r}", ": JSON has no NaN or infinity", []
    if isinstance(value, str | int):  # subclasses, such as a StrEnum
        return None
    if isinstance(value, tuple):
        return "has a tuple", ": use a list (the wire form reads arrays back as lists)", []
    return "has a value JSON cannot hold", f" ({shown(value)})", []


# -- field specs ----------------------------------------------------------------------------


class _Spec:
    """What one annotation accepts.

    ``exact`` holds the exact types a value may have to be accepted on the fast path;
    ``refine``, when not None, must also be true of such a value (a count's sign, a
    tuple's items). ``accepts`` is the full rule, looser than the fast path by subclasses
    of ``str``/``int``/``dict``; ``problem`` words a refusal.
    """

    exact: frozenset[type[Any]] = frozenset()
    refine: Callable[[Any], bool] | None = None

    def accepts(self, value: Any) -> bool:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def problem(self, value: Any) -> str | None:
        """None when ``value`` is acceptable, else a clause such as ``must be a str, got
        int: 5`` that follows ``field 'x'`` in the message."""
        if self.accepts(value):
            return None
        return f"must be {self.describe()}, got {shown(value)}"


class _Anything(_Spec):
    def accepts(self, value: Any) -> bool:
        return True

    def describe(self) -> str:
        return "anything"


class _Str(_Spec):
    exact = frozenset({str})

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str)

    def describe(self) -> str:
        return "a str"


class _Int(_Spec):
    exact = frozenset({int})

    def __init__(self, non_negative: bool) -> None:
        self.non_negative = non_negative
        if non_negative:
            self.refine = (0).__le__

    def accepts(self, value: Any) -> bool:
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        return value >= 0 or not self.non_negative

    def describe(self) -> str:
        return "an int >= 0" if self.non_negative else "an int"


class _Bool(_Spec):
    exact = frozenset({bool})

    def accepts(self, value: Any) -> bool:
        return value is True or value is False

    def describe(self) -> str:
        return "a bool"


class _Float(_Spec):
    exact = frozenset({float, int})
    refine = staticmethod(math.isfinite)

    def accepts(self, value: Any) -> bool:
        if isinstance(value, float):
            return math.isfinite(value)
        return isinstance(value, int) and not isinstance(value, bool)

    def describe(self) -> str:
        return "a finite number"


class _None(_Spec):
    exact = frozenset({type(None)})

    def accepts(self, value: Any) -> bool:
        return value is None

    def describe(self) -> str:
        return "None"


class _Literal(_Spec):
    exact = frozenset({str})

    def __init__(self, values: tuple[str, ...]) -> None:
        self.values = values
        self.refine = frozenset(values).__contains__

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.values

    def describe(self) -> str:
        return "one of " + ", ".join(repr(x) for x in self.values)


class _Class(_Spec):
    def __init__(self, cls: type[Any]) -> None:
        self.cls = cls
        self.exact = frozenset({cls})

    def accepts(self, value: Any) -> bool:
        return type(value) is self.cls

    def describe(self) -> str:
        return f"a {self.cls.__name__}"


class _Union(_Spec):
    def __init__(self, options: tuple[_Spec, ...]) -> None:
        self.options = options
        self.exact = frozenset().union(*(o.exact for o in options))
        by_type = {t: o.refine for o in options for t in o.exact if o.refine is not None}
        if by_type:
            self.refine = lambda v: (check := by_type.get(type(v))) is None or check(v)

    def accepts(self, value: Any) -> bool:
        return any(o.accepts(value) for o in self.options)

    def describe(self) -> str:
        return " or ".join(o.describe() for o in self.options)


class _TupleOf(_Spec):
    exact = frozenset({tuple})

    def __init__(self, item: _Spec) -> None:
        self.item = item
        if isinstance(item, _Anything):
            return
        if item.refine is None:
            exact = item.exact
            self.refine = lambda v: all(type(x) in exact for x in v)
        else:
            self.refine = lambda v: all(item.accepts(x) for x in v)

    def accepts(self, value: Any) -> bool:
        return self.problem(value) is None

    def describe(self) -> str:
        return f"a tuple of ({self.item.describe()})"

    def problem(self, value: Any) -> str | None:
        if type(value) is not tuple:
            return f"must be {self.describe()}, got {shown(value)}"
        for i, item in enumerate(value):
            problem = self.item.problem(item)
            if problem is not None:
                return f"has a bad item {i}: it {problem}"
        return None


class _MappingOf(_Spec):
    exact = frozenset({dict})

    def __init__(self, item: _Spec) -> None:
        self.item = item
        # a dict of JSON values is JSON: one walk, with the depth limit
        self.refine = is_json if isinstance(item, _Json) else self.accepts

    def accepts(self, value: Any) -> bool:
        return self.problem(value) is None

    def describe(self) -> str:
        return f"a mapping of str to ({self.item.describe()})"

    def problem(self, value: Any) -> str | None:
        if type(value) is not dict and not isinstance(value, Mapping):
            return f"must be {self.describe()}, got {shown(value)}"
        if isinstance(self.item, _Json):  # one walk, with the depth limit
            return self.item.problem(value)
        for key, item in value.items():
            if not isinstance(key, str):
                return f"has a key that is not a str ({shown(key)})"
            problem = self.item.problem(item)
            if problem is not None:
                return f"has a bad value at {key!r}: it {problem}"
        return None


class _Json(_Spec):
    exact = frozenset({type(None), str, int, bool, float, list, dict})
    refine = staticmethod(is_json)

    def accepts(self, value: Any) -> bool:
        return is_json(value)

    def describe(self) -> str:
        return "JSON"

    def problem(self, value: Any) -> str | None:
        problem = json_problem(value)
        return None if problem is None else f"must be JSON but {problem}"


_SIMPLE: dict[Any, _Spec] = {
    Any: _Anything(),
    str: _Str(),
    int: _Int(False),
    bool: _Bool(),
    float: _Float(),
    type(None): _None(),
}


def _spec(tp: Any, owner: type[Any]) -> _Spec:
    """The spec of one resolved annotation; ``TypeError`` for one it does not support."""
    simple = _SIMPLE.get(tp)
    if simple is not None:
        return simple
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        base, *meta = args
        if _JSON in meta:
            return _Json()
        if _NON_NEGATIVE in meta and base is int:
            return _Int(True)
        return _spec(base, owner)
    if origin is Literal and all(type(a) is str for a in args):
        return _Literal(args)
    if origin in (typing.Union, types.UnionType):
        return _Union(tuple(_spec(a, owner) for a in args))
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _TupleOf(_spec(args[0], owner))
    if origin in (Mapping, dict) and len(args) == 2 and args[0] is str:
        return _MappingOf(_spec(args[1], owner))
    if origin is None and isinstance(tp, type):
        return _Class(tp)
    raise TypeError(f"checked: {owner.__name__} has a field of unsupported type {tp!r}")


# -- the check ------------------------------------------------------------------------------


class _Plan:
    """A class's check, laid out for speed.

    ``classes(obj)`` gathers the classes of the checked fields in one C call (an
    ``attrgetter`` of ``"name.__class__"``); they must be one of ``combos``. Then the
    fields that need more than their type: ``counts(obj)`` (the ``NonNegativeInt`` ones,
    as a tuple) must all be >= 0, and each ``(get, test)`` of ``refine`` must hold.
    ``classes`` is None when every field is typed ``Any``.
    """

    __slots__ = ("classes", "combos", "counts", "fields", "refine")

    def __init__(self, fields: tuple[tuple[str, _Spec], ...]) -> None:
        self.fields = fields
        checked = [(name, spec) for name, spec in fields if not isinstance(spec, _Anything)]
        paths = [f"{name}.__class__" for name, _ in checked]
        self.classes = operator.attrgetter(*paths) if paths else None
        exact = [spec.exact for _, spec in checked]
        # one name: attrgetter returns the class itself, not a 1-tuple
        self.combos = exact[0] if len(exact) == 1 else frozenset(itertools.product(*exact))
        counts = [name for name, spec in checked if isinstance(spec, _Int) and spec.non_negative]
        # a name given twice: attrgetter returns a tuple even for one count
        self.counts = operator.attrgetter(*counts, counts[0]) if counts else None
        self.refine = tuple(
            (operator.attrgetter(name), spec.refine)
            for name, spec in checked
            if spec.refine is not None and name not in counts
        )


def _label(cls: type[Any]) -> str:
    tag = getattr(cls, "type", None)
    return f"{cls.__name__} ({tag})" if isinstance(tag, str) else cls.__name__


def check_fields(self: Any) -> None:
    """Raise ``InvalidEventError`` for the first field of ``self`` its annotation does not
    accept (or that a converter ``Rejected``): what a hand-written ``__attrs_post_init__``
    calls when its fast test fails, and the slow path of the generic one."""
    for name, spec in type(self).__checked_plan__.fields:
        value = getattr(self, name)
        problem = value.reason if type(value) is Rejected else spec.problem(value)
        if problem is not None:
            sep = " " if problem.startswith(("must ", "has ")) else ": "
            raise InvalidEventError(f"{_label(type(self))}: field {name!r}{sep}{problem}")


def check_again(value: Any) -> None:
    """Check the fields of ``value``, an instance of a ``checked`` class, as its
    construction did: ``InvalidEventError`` for one set past that check (a forged
    event). What a processor runs once on an input before it builds outputs from the
    input's fields without checking them (``records.builder``)."""
    type(value).__attrs_post_init__(value)


def _generic_check(plan: _Plan) -> Callable[[Any], None]:
    """The ``__attrs_post_init__`` of a ``checked`` class that wrote none: the fast path
    of ``plan``, then ``check_fields`` when it fails (the closure saves attribute reads)."""
    classes, combos, counts, refine = plan.classes, plan.combos, plan.counts, plan.refine
    if classes is None:
        return _nothing_to_check

    def check(self: Any) -> None:
        if classes(self) in combos and (counts is None or min(counts(self)) >= 0):
            for get, test in refine:
                if not test(get(self)):
                    break
            else:
                return
        check_fields(self)

    return check


def _nothing_to_check(self: Any) -> None:
    """The check of a class whose fields are all typed ``Any``."""


def _plan(cls: type[Any]) -> _Plan:
    """The plan of ``cls``'s annotations; ``TypeError`` for one ``_spec`` cannot check."""
    hints = typing.get_type_hints(cls, include_extras=True)
    return _Plan(
        tuple(
            (name, _spec(tp, cls))
            for name, tp in hints.items()
            if typing.get_origin(tp) is not ClassVar and tp is not ClassVar
        )
    )


def _holder(cls: type[Any], name: str, value: object) -> type[Any] | None:
    """The class of ``cls.__mro__`` whose own ``name`` is ``value`` (a subclass that
    ``checked`` did not decorate inherits its base's); None once another thread has put
    the made value in its place."""
    return next((k for k in cls.__mro__ if vars(k).get(name) is value), None)


class _PlanLater:
    """The ``__checked_plan__`` of a class planned on first use: reading it makes the plan
    (``typing.get_type_hints`` of the class, the import's largest part of ``checked``) and
    puts it in its place."""

    __slots__ = ()

    def __get__(self, instance: object, owner: type[Any]) -> _Plan:
        holder = _holder(owner, "__checked_plan__", self)
        if holder is None:
            plan: _Plan = owner.__checked_plan__
            return plan
        plan = _plan(holder)
        holder.__checked_plan__ = plan
        return plan


_PLAN_LATER = _PlanLater()


def _first_check(self: Any) -> None:
    """The generic ``__attrs_post_init__`` of a class planned on first use: makes the plan,
    puts the generic check in its own place, and runs it."""
    holder = _holder(type(self), "__attrs_post_init__", _first_check)
    if holder is not None:
        holder.__attrs_post_init__ = _generic_check(holder.__checked_plan__)
    type(self).__attrs_post_init__(self)


_C = TypeVar("_C", bound=type[Any])


def checked(cls: _C) -> _C:
    """Check every field of ``cls`` at construction (see the module docstring).

    Apply it under ``attrs.frozen``. Installs the generic check as
    ``__attrs_post_init__`` unless ``cls`` defines its own (a hand-written fast test that
    falls back to ``check_fields``). Raises ``TypeError`` for an annotation it cannot
    check.

    The package's own classes (a module under ``agentcore.``) are planned on their first
    check, so importing them resolves no annotation; the ``TypeError`` of one of them
    would come then, and tests/core/test_event_checks.py plans every one of them, so it
    fails a test instead. Any other class is planned now: a bad annotation raises where
    it is written.
    """
    if cls.__module__.startswith("agentcore."):
        cls.__checked_plan__ = _PLAN_LATER
        if "__attrs_post_init__" not in vars(cls):
            cls.__attrs_post_init__ = _first_check
        return cls
    plan = cls.__checked_plan__ = _plan(cls)
    if "__attrs_post_init__" not in vars(cls):
        cls.__attrs_post_init__ = _generic_check(plan)
    return cls


def is_checked(cls: type[Any]) -> bool:
    """Whether ``cls``'s instances have their fields checked at construction (without
    making a plan)."""
    planned = any("__checked_plan__" in vars(k) for k in cls.__mro__)
    return planned and hasattr(cls, "__attrs_post_init__")
