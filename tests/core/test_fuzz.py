"""Fuzzing the two boundaries untrusted input crosses (issue 11, item 16).

- ``from_dict`` over arbitrary JSON-like values and over valid wire dicts of every
  registered event type with one part damaged: it returns an event that reads back equal,
  or raises ``InvalidEventError``/``AgentError``, never a raw Python exception.
- ``create_mealy_machine().process`` (non-strict) over valid streams with anything mixed
  in: objects of any type, registered events whose fields were set past their checks to
  any value, hostile objects whose every operation raises. It never raises.

Examples are bounded so the file runs in seconds; ``FUZZ_EXAMPLES`` scales them.

Each output is also held to its class's check (``check_again``): the processors make
their outputs without checking the values they took from checked inputs, so a forged
input must never reach one.

Tests the private module ``agentcore._core.checks``: whether an event passed its checks.
"""

from __future__ import annotations

import json
import os
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import create_mealy_machine
from agentcore._core.checks import check_again, is_checked
from agentcore.errors import AgentError, InvalidEventError
from agentcore.events import (
    EVENT_TYPES,
    LAYERS,
    ConversationClose,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
    Usage,
    UserMessage,
    from_dict,
    to_dict,
)
from agentcore.processors import (
    create_initial_message_assembler_state,
    create_initial_state_event_processor_context,
    create_initial_turn_tracker_state,
    message_assembler_processor,
    state_event_processor,
    turn_tracker_processor,
)
from agentcore.provider_tools import CitationPart, ProviderPartEvent
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
    """An object every operation on which raises, but ``repr`` (Hypothesis reports a
    failing example by its repr)."""

    def _raise(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("hostile")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _raise  # type: ignore[assignment]
    __hash__ = __bool__ = __len__ = __iter__ = __str__ = _raise  # type: ignore[assignment]
    __add__ = __radd__ = __contains__ = __index__ = __format__ = _raise  # type: ignore[assignment]

    def __repr__(self) -> str:  # so that a failing example can be reported
        return "Hostile()"


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
            check_again(output)


PROCESSORS = [
    (message_assembler_processor, create_initial_message_assembler_state),
    (state_event_processor, create_initial_state_event_processor_context),
    (turn_tracker_processor, create_initial_turn_tracker_state),
]


@FUZZ
@given(st.sampled_from(PROCESSORS), hostile_streams())
def test_each_processor_alone_emits_only_valid_events(processor: Any, events: list[Any]) -> None:
    """Run alone (no assembler before them), the state-event processor and the turn
    tracker check a forged input themselves before what they made of it goes out."""
    step, initial = processor
    state = initial()
    for event in events:
        state, outputs = step(state, event)
        for output in outputs:
            check_again(output)
            assert from_dict(to_dict(output)) == output


class Unrepresentable:
    """A value whose ``repr`` raises."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_a_tool_result_with_a_forged_id_is_rejected_not_raised() -> None:
    """The assembler alone named the unknown id in its message by ``repr`` (found by the
    processors-alone fuzz test): a forged id that is not a string is rejected first."""
    forged = unchecked(ToolResult, tool_call_id=Unrepresentable())
    _, outputs = message_assembler_processor(create_initial_message_assembler_state(), forged)
    assert [o.type for o in outputs] == ["error_message"]


# -- one forged field where a processor takes the input -----------------------------------------

_TRACE = [
    UserMessage("u1", "go", timestamp=1),
    MessageStart("m1", "model-a", timestamp=2),
    ThinkingDelta("hm", 0, timestamp=3),
    TextDelta("hi", 1, timestamp=4),
    ProviderPartEvent(CitationPart("https://example.com", "ex"), 1, timestamp=4),
    ToolUseStart("c1", "add", 2, timestamp=5),
    InputJsonDelta('{"a": 1}', 2, timestamp=5),
    ToolUseStop("c1", 2, timestamp=6),
    ToolUseStart("c2", "add", 3, timestamp=6),
    MessageDelta("tool_use", Usage(3, 4), timestamp=7),
    MessageStop(timestamp=8),
    ToolResult("c1", "2", timestamp=9),
    ToolResult("c2", "oops", is_error=True, timestamp=9),
    MessageStart("m2", "model-a", timestamp=10),
    TextDelta("4", 0, timestamp=11),
    ErrorReceived("lost", "NETWORK_ERROR", timestamp=12),
    MessageStart("m3", "model-a", timestamp=13),
    Interrupt(timestamp=14),
    MessageStart("m4", "model-a", timestamp=15),
    ConversationClose("completed", timestamp=16),
]


@pytest.mark.parametrize("position", range(len(_TRACE)), ids=lambda i: _TRACE[i].type)
@pytest.mark.parametrize("field", ["timestamp", "first"])
def test_an_input_forged_where_it_is_taken_never_reaches_an_output(
    position: int, field: str
) -> None:
    """Every input of a trace that each processor takes (tool calls, results, an error,
    an interrupt), forged in one field at a time: what the machine and each processor
    alone emit still passes its checks, the forged value in none of it."""
    event = _TRACE[position]
    name = "timestamp" if field == "timestamp" else attrs.fields(type(event))[0].name
    trace = [*_TRACE[:position], attrs.evolve(event), *_TRACE[position + 1 :]]
    forged_event = trace[position]
    object.__setattr__(forged_event, name, ["forged"] if name != "timestamp" else "late")
    machine = create_mealy_machine()
    runs = [(lambda e: machine.process("a", e))]
    for step, initial in PROCESSORS:
        state = [initial()]

        def run(e: Any, step: Any = step, state: list[Any] = state) -> tuple[Any, ...]:
            state[0], outputs = step(state[0], e)
            return outputs  # type: ignore[no-any-return]

        runs.append(run)
    for run in runs:
        for e in trace:
            for output in run(e):
                check_again(output)
