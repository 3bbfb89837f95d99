"""Every event and value checks its fields at construction (issue 11, item 15).

The strategies here read the classes' annotations themselves (not the checks' own
tables), so they test ``checked`` rather than repeat it: ``valid(cls)`` builds any value
an annotation allows, ``wrong(cls)`` one field of the wrong type.

Tests the private modules ``agentcore._core.checks`` and ``agentcore._testing.strategies``:
the field checks, against values the strategies' annotation reader builds.
"""

from __future__ import annotations

import importlib
import json
import math
import pathlib
import re
import sys
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentcore
from agentcore._core.checks import (
    _PLAN_LATER,
    MAX_JSON_DEPTH,
    JSONValue,
    NonNegativeInt,
    _first_check,
    _Plan,
    check_fields,
    checked,
    is_checked,
    json_problem,
)
from agentcore._testing.strategies import _annotation_values
from agentcore.errors import ErrorCode, InvalidEventError
from agentcore.events import (
    EVENT_TYPES,
    LAYERS,
    AudioContent,
    DocumentContent,
    ImageContent,
    MessageDelta,
    MessageStop,
    TextContent,
    TextDelta,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResult,
    Usage,
    UserMessage,
    from_dict,
    is_event,
    to_dict,
)
from agentcore.testing import garbage, instances, registered_events, unchecked

CORE_LAYERS = ("stream", "message", "state", "turn")
CORE_EVENTS = sorted(
    (cls for name, cls in EVENT_TYPES.items() if LAYERS[name] in CORE_LAYERS),
    key=lambda c: c.__name__,
)
VALUES = [
    Usage,
    TextContent,
    AudioContent,
    DocumentContent,
    ImageContent,
    DocumentContent,
    AudioContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
]
CHECKED = [*CORE_EVENTS, *VALUES]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _hints(cls: type[Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, include_extras=True)
    return {n: t for n, t in hints.items() if typing.get_origin(t) is not ClassVar}


WRONG = [
    None,
    True,
    -1,
    2.5,
    math.nan,
    math.inf,
    "12",
    b"bytes",
    ("tuple",),
    ["list"],
    {1: "int key"},
    {"a": {1, 2}},
    object(),
]


def _accepts(tp: Any, value: Any) -> bool:
    """Whether annotation ``tp`` allows ``value`` (for the handful of ``WRONG`` values)."""
    if tp == JSONValue:
        return json_problem(value) is None
    if tp == NonNegativeInt:
        return type(value) is int and value >= 0
    if tp is Usage:  # its converter reads None as zero usage
        return value is None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        return _accepts(args[0], value)
    if origin is Literal:
        return value in args and type(value) is str
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(a, value) for a in args)
    if origin is tuple:
        return type(value) is tuple and all(_accepts(args[0], v) for v in value)
    if origin is Mapping:
        return isinstance(value, Mapping) and json_problem(value) is None
    if tp is float:
        return type(value) in (int, float) and math.isfinite(value)
    if tp is Any:
        return True
    return type(value) is tp


@st.composite
def wrong(draw: st.DrawFn, cls: type[Any]) -> tuple[dict[str, Any], str, Any]:
    """Valid fields for ``cls`` but one, given a value of a type its annotation refuses."""
    hints = _hints(cls)
    fields = {name: draw(_annotation_values(tp)) for name, tp in hints.items()}
    name = draw(st.sampled_from(sorted(hints)))
    value = draw(st.sampled_from([w for w in WRONG if not _accepts(hints[name], w)]))
    fields[name] = value
    return fields, name, value


# -- the reported cases -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "needle"),
    [
        (lambda: UserMessage("u", 123), "UserMessage (user_message): field 'content' must be"),
        (lambda: TextDelta(5, "x"), "TextDelta (text_delta): field 'text' must be a str, got int"),
        (lambda: TextDelta("x", -1), "field 'index' must be an int >= 0, got int: -1"),
        (lambda: TextDelta("x", True), "field 'index' must be an int >= 0, got bool: True"),
        (lambda: TextDelta("x", 0, timestamp=1.5), "field 'timestamp' must be an int"),
        (lambda: TextContent(5), "TextContent (text): field 'text' must be a str, got int: 5"),
        (lambda: Usage(input_tokens=-3), "Usage: field 'input_tokens' must be an int >= 0"),
        (lambda: Usage(input_tokens="12"), "must be an int >= 0, got str: '12'"),
        (lambda: MessageDelta(usage={"output_tokens": math.inf}), "got float: inf"),
        (lambda: MessageDelta(usage={"output_tokens": None}), "got NoneType: None"),
        (
            lambda: UserMessage("u", [{"type": "text", "text": 5}]),
            "field 'content' has a bad content block 0: TextContent (text): field 'text'",
        ),
        (lambda: UserMessage("u", [{"type": "video"}]), "has unknown type 'video'"),
        (lambda: UserMessage("u", {"type": "text", "text": "a"}), "a sequence of content blocks"),
        (lambda: ToolResult("t", "r", details={1: "a"}), "has a key that is not a str"),
        (
            lambda: ToolResult("t", "r", details=[math.nan]),
            "has the float nan at [0]: JSON has no NaN",
        ),
        (lambda: ToolResult("t", "r", details={"a": (1,)}), "has a tuple at ['a']: use a list"),
        (lambda: ToolResult("t", "r", details={"a": {1, 2}}), "has a value JSON cannot hold"),
        (lambda: ImageContent("image/bmp", "AAAA"), "field 'media_type' must be one of"),
        (lambda: ToolCallPart("t", "f", {"a": math.inf}), "field 'input' must be JSON but"),
    ],
)
def test_impossible_values_are_refused_at_construction(build: Any, needle: str) -> None:
    with pytest.raises(InvalidEventError) as info:
        build()
    assert needle in str(info.value)
    assert isinstance(info.value, ValueError) and info.value.code is ErrorCode.INVALID_EVENT


def test_details_nest_at_most_the_documented_depth() -> None:
    deep: Any = "leaf"
    for _ in range(MAX_JSON_DEPTH - 1):
        deep = [deep]
    assert ToolResult("t", "r", details={"a": deep}).details == {"a": deep}
    with pytest.raises(InvalidEventError, match="nests deeper than 64 levels"):
        ToolResult("t", "r", details={"a": [deep]})
    very_deep: Any = None
    for _ in range(100_000):  # far past the recursion limit: still a clear error
        very_deep = [very_deep]
    with pytest.raises(InvalidEventError, match="nests deeper"):
        ToolResult("t", "r", details=very_deep)


def test_str_and_int_subclasses_are_kept_and_read_back_equal() -> None:
    event = MessageDelta(stop_reason=ErrorCode.RATE_LIMITED)
    assert event.stop_reason is ErrorCode.RATE_LIMITED
    assert from_dict(to_dict(event)) == event


# -- every class --------------------------------------------------------------------------------


def test_every_core_event_and_value_is_checked() -> None:
    assert [c.__name__ for c in CHECKED if not is_checked(c)] == []


@SETTINGS
@given(st.sampled_from(CHECKED).flatmap(lambda cls: st.tuples(st.just(cls), wrong(cls))))
def test_a_wrong_field_names_the_class_the_field_and_the_value(case: Any) -> None:
    cls, (fields, name, value) = case
    with pytest.raises(InvalidEventError) as info:
        cls(**fields)
    message = str(info.value)
    assert message.startswith(cls.__name__), message
    assert f"field {name!r}" in message, message
    # a container is described by what is wrong inside it, anything else by its type
    assert isinstance(value, dict | list | tuple) or type(value).__name__ in message, message


@SETTINGS
@given(st.sampled_from(CORE_EVENTS).flatmap(instances))
def test_every_event_that_constructs_reads_back_equal(event: Any) -> None:
    assert from_dict(to_dict(event)) == event
    assert from_dict(json.loads(json.dumps(to_dict(event)))) == event


# -- the hand-written fast tests agree with the annotations -----------------------------------


def _hook_of(cls: type[Any]) -> Any:
    return cls.__attrs_post_init__


@SETTINGS
@given(
    st.sampled_from(CHECKED).flatmap(
        lambda cls: st.tuples(
            st.just(cls),
            st.fixed_dictionaries(
                {n: _annotation_values(t) | st.sampled_from(WRONG) for n, t in _hints(cls).items()}
            ),
        )
    )
)
def test_each_fast_test_accepts_only_what_the_full_check_accepts(case: Any) -> None:
    """Built past the checks, then checked: the class's own hook (a hand-written fast
    test for some, the generic one for the others) and ``check_fields`` agree."""
    cls, fields = case
    instance = unchecked(cls, **fields)
    try:
        check_fields(instance)
        full_accepts = True
    except InvalidEventError:
        full_accepts = False
    try:
        _hook_of(cls)(instance)
        hook_accepts = True
    except InvalidEventError:
        hook_accepts = False
    assert hook_accepts == full_accepts


@pytest.mark.parametrize("cls", CHECKED, ids=lambda c: c.__name__)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_each_fast_test_refuses_each_wrong_value_of_each_field(
    cls: type[Any], data: st.DataObject
) -> None:
    """One field at a time given each ``WRONG`` value, the others a valid one: the
    class's hook (hand-written or generic) refuses exactly what the full check refuses,
    so a condition left out of a hand-written test shows."""
    valid = data.draw(instances(cls))
    for name in _hints(cls):
        for value in WRONG:
            instance = unchecked(cls, **{a.name: getattr(valid, a.name) for a in attrs.fields(cls)})
            object.__setattr__(instance, name, value)
            try:
                check_fields(instance)
                full_accepts = True
            except InvalidEventError:
                full_accepts = False
            try:
                _hook_of(cls)(instance)
                hook_accepts = True
            except InvalidEventError:
                hook_accepts = False
            assert hook_accepts == full_accepts, (name, value)


# -- the mechanism, for later layers ----------------------------------------------------------


def test_checked_works_for_any_attrs_class_and_refuses_what_it_cannot_check() -> None:
    @attrs.frozen(slots=True)
    @checked
    class Progress:
        type: ClassVar[str] = "progress"
        done: NonNegativeInt
        label: str | None = None
        payload: JSONValue = None

    assert Progress(3, payload={"a": [1]}).done == 3
    with pytest.raises(InvalidEventError, match=r"Progress \(progress\): field 'done'"):
        Progress(-1)

    @attrs.frozen(slots=True)
    @checked
    class Carrier:
        message: Any

    assert Carrier(object()).message is not None  # nothing to check, nothing refused

    with pytest.raises(TypeError, match="unsupported type"):

        @attrs.frozen(slots=True)
        @checked
        class Odd:
            tags: set[str]


# -- the package's classes are planned on their first check -----------------------------------

LATER = "agentcore._core.checks"
"""A module of the package: ``checked`` plans a class of it on its first check, in the
module's namespace (where ``NonNegativeInt`` and ``JSONValue`` are names)."""


def _progress(module: str) -> type[Any]:
    """A checked class of ``module``: planned when defined, or on its first check when
    ``module`` is the package's."""

    @attrs.frozen(slots=True)
    @checked
    class Progress:
        __module__ = module
        type: ClassVar[str] = "progress"
        done: NonNegativeInt
        label: str | None = None
        tags: tuple[str, ...] = ()
        payload: JSONValue = None

    return Progress


def _outcome(cls: type[Any], fields: dict[str, Any]) -> tuple[str, Any]:
    try:
        built = cls(**fields)
    except InvalidEventError as exc:
        return "refused", str(exc)
    return "built", tuple(getattr(built, name) for name in fields)


@SETTINGS
@given(
    st.fixed_dictionaries(
        {
            "done": st.integers(-2, 5) | st.sampled_from(WRONG),
            "label": st.none() | st.text(max_size=3) | st.sampled_from(WRONG),
            "tags": st.tuples(st.text(max_size=2)) | st.sampled_from(WRONG),
            "payload": st.none()
            | st.dictionaries(st.text(max_size=2), st.integers())
            | st.sampled_from(WRONG),
        }
    )
)
def test_a_class_planned_on_its_first_check_checks_as_one_planned_when_defined(
    fields: dict[str, Any],
) -> None:
    """The first construction (the plan made, the generic check put in place) and the
    next ones accept and refuse what the class planned when defined does, in the same
    words."""
    now, later = _progress(__name__), _progress(LATER)
    assert not isinstance(vars(later)["__checked_plan__"], _Plan)
    assert isinstance(vars(now)["__checked_plan__"], _Plan)
    first, again = _outcome(later, fields), _outcome(later, fields)
    assert isinstance(vars(later)["__checked_plan__"], _Plan)
    assert first == again == _outcome(now, fields)


def test_a_package_class_s_bad_annotation_fails_its_first_check() -> None:
    """Defining it plans nothing (asking whether it is checked neither); its first
    construction raises the ``TypeError`` a class of another module raises when defined."""

    @attrs.frozen(slots=True)
    @checked
    class Odd:
        __module__ = LATER
        tags: set[str]

    assert is_checked(Odd)
    with pytest.raises(TypeError, match="Odd has a field of unsupported type"):
        Odd({"a"})


def test_a_check_that_read_the_first_check_before_another_thread_made_the_plan() -> None:
    """Two threads may read a class's first check (or its plan to be made) before either
    puts the made one in place: the later one checks and answers with that one."""
    later = _progress(LATER)
    assert later(1).done == 1  # the plan made, the generic check in place
    with pytest.raises(InvalidEventError, match=r"Progress \(progress\): field 'done'"):
        _first_check(unchecked(later, done=-1))
    _first_check(unchecked(later, done=2))
    assert _PLAN_LATER.__get__(None, later) is vars(later)["__checked_plan__"]


def _package_checked_classes() -> list[type[Any]]:
    """Every class of the package ``checked`` decorates: the modules whose source applies
    it, imported."""
    root = pathlib.Path(agentcore.__file__).parent
    for path in sorted(root.rglob("*.py")):
        if re.search(r"^\s*@checked\b", path.read_text(encoding="utf-8"), re.MULTILINE):
            parts = path.relative_to(root.parent).with_suffix("").parts
            importlib.import_module(".".join(parts))
    found = {
        c
        for name, module in list(sys.modules.items())
        if name.startswith("agentcore.")
        for c in vars(module).values()
        if isinstance(c, type) and c.__module__ == name and "__checked_plan__" in vars(c)
    }
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


@pytest.mark.parametrize("cls", _package_checked_classes(), ids=lambda c: c.__qualname__)
def test_every_checked_class_of_the_package_plans_each_of_its_fields(cls: type[Any]) -> None:
    """What a class of the package defers to its first check, made now: an annotation
    ``checked`` cannot check fails here rather than in a user's run."""
    plan = cls.__checked_plan__
    assert isinstance(plan, _Plan)
    assert is_checked(cls)
    assert sorted(name for name, _ in plan.fields) == sorted(a.name for a in attrs.fields(cls))


# -- the registry ----------------------------------------------------------------------------


@SETTINGS
@given(registered_events() | garbage() | st.sampled_from(list(EVENT_TYPES.values())))
def test_is_event_is_an_instance_of_the_class_registered_under_its_type(value: Any) -> None:
    """``is_event`` (one set lookup) answers as the registry's own tables do."""
    cls = type(value)
    name = getattr(cls, "type", None)
    assert is_event(value) is (isinstance(name, str) and EVENT_TYPES.get(name) is cls)


def test_is_event_refuses_a_subclass_and_a_look_alike() -> None:
    class Later(MessageStop):  # type: ignore[misc]
        pass

    class LookAlike:
        type = "message_stop"

    assert is_event(MessageStop())
    assert not is_event(object.__new__(Later)) and not is_event(LookAlike())
