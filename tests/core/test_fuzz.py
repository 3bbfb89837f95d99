"""Fuzzing the two boundaries untrusted input crosses (issue 11, item 16).

- ``from_dict`` over arbitrary JSON-like values and over valid wire dicts of every
  registered event type with one part damaged: it returns an event that reads back equal,
  or raises ``InvalidEventError``/``AgentError``, never a raw Python exception.
- ``create_mealy_machine().process`` (non-strict) over valid streams with anything mixed
  in: objects of any type, registered events whose fields were set past their checks to
  any value, hostile objects whose every operation raises. It never raises.

Examples are bounded so the file runs in seconds; ``FUZZ_EXAMPLES`` scales them.

Tests the private module ``agentcore._core.checks``: whether an event passed its checks.
"""

from __future__ import annotations

import json
import os
from typing import Any

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import create_mealy_machine
from agentcore._core.checks import is_checked
from agentcore.errors import AgentError, InvalidEventError
from agentcore.events import EVENT_TYPES, LAYERS, from_dict, to_dict
from agentcore.testing import (
    broken_streams,
    garbage,
    registered_events,
    turns,
    unchecked,
)

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- JSON-like values: what json.loads, orjson or a careless caller may hand over ---------------

KEYS = st.text(max_size=6) | st.integers() | st.none() | st.booleans() | st.floats()
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63)
    | st.floats()  # nan and infinities included
    | st.text(max_size=8)
    | st.sampled_from(["12", "-1", "1e999", "NaN", "", "text_delta", "tool_call", "text"])
)
JSONISH = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(KEYS, inner, max_size=4)
    ),
    max_leaves=20,
)
TYPES = st.sampled_from(sorted(EVENT_TYPES))


@st.composite
def wireish(draw: st.DrawFn) -> Any:
    """A dict shaped like a wire event: a real type, arbitrary data."""
    data = draw(st.dictionaries(st.text(max_size=12) | KEYS, JSONISH, max_size=5))
    out: dict[Any, Any] = {"type": draw(TYPES), "data": data}
    if draw(st.booleans()):
        out["timestamp"] = draw(LEAVES)
    return out


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside nested dicts and lists, the root's included."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*path, i))
    return found


@st.composite
def damaged_wire(draw: st.DrawFn) -> Any:
    """The wire form of a valid event of any registered type, with one thing damaged: a
    value replaced, a key removed or added (of any type), or the type renamed."""
    wire = json.loads(json.dumps(to_dict(draw(registered_events()))))
    path = draw(st.sampled_from(_paths(wire)))
    action = draw(st.sampled_from(["replace", "delete", "add", "retype"]))
    if not path:
        return draw(JSONISH) if action == "replace" else wire
    parent = wire
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if action == "replace":
        parent[last] = draw(JSONISH)
    elif action == "delete":
        del parent[last]
    elif action == "add" and isinstance(parent, dict):
        parent[draw(KEYS)] = draw(JSONISH)
    elif action == "retype":
        wire["type"] = draw(TYPES)
    return wire


def _from_dict_holds(d: Any) -> None:
    try:
        event = from_dict(d)
    except AgentError as exc:
        assert isinstance(exc, InvalidEventError), exc
        assert str(exc)
        return
    if is_checked(type(event)):  # a layer whose classes do not check fields keeps junk
        assert from_dict(to_dict(event)) == event


@FUZZ
@given(JSONISH | wireish())
def test_from_dict_on_anything_raises_only_invalid_event_error(d: Any) -> None:
    _from_dict_holds(d)


@FUZZ
@given(damaged_wire())
def test_from_dict_on_damaged_wire_dicts_raises_only_invalid_event_error(d: Any) -> None:
    _from_dict_holds(d)


# -- the machine on anything ----------------------------------------------------------------------


class Hostile:
    """An object every operation on which raises."""

    def _raise(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("hostile")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _raise  # type: ignore[assignment]
    __hash__ = __bool__ = __len__ = __iter__ = __repr__ = __str__ = _raise  # type: ignore[assignment]
    __add__ = __radd__ = __contains__ = __index__ = __format__ = _raise  # type: ignore[assignment]


FIELD_VALUES = (
    JSONISH
    | st.builds(Hostile)
    | st.builds(object)
    | st.sampled_from([float("nan"), -1, 10**30, "", "0", b"x", (), [], {}, Hostile])
)


STREAM_EVENTS = [cls for name, cls in EVENT_TYPES.items() if LAYERS[name] == "stream"]


@st.composite
def forged(draw: st.DrawFn) -> Any:
    """A registered event (a stream event, more often than not) whose fields were set,
    past its checks, to anything."""
    cls = draw(st.sampled_from(STREAM_EVENTS) | st.sampled_from(list(EVENT_TYPES.values())))
    names = [a.name for a in attrs.fields(cls)]
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    return unchecked(cls, **{n: draw(FIELD_VALUES) for n in chosen})


INTRUDERS = garbage() | forged() | FIELD_VALUES | st.sampled_from(list(EVENT_TYPES.values()))


@st.composite
def hostile_streams(draw: st.DrawFn) -> list[Any]:
    base = draw(turns(max_calls=2).map(lambda t: list(t.events)) | broken_streams())
    for _ in range(draw(st.integers(1, 6))):
        base.insert(draw(st.integers(0, len(base))), draw(INTRUDERS))
    return base


@FUZZ
@given(hostile_streams())
def test_the_machine_never_raises_in_non_strict_mode(events: list[Any]) -> None:
    machine = create_mealy_machine()
    for event in events:
        outputs = machine.process("agent", event)
        assert type(outputs) is tuple
        for output in outputs:  # everything it emits has a wire form that reads back
            assert from_dict(to_dict(output)) == output
