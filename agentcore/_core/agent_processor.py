"""``agent_processor``: the message assembler, state-event processor and turn tracker as one.

The state is one flat tuple: the assembler's six slots (``state[:6]`` *is* an assembler
state), then the state-event processor's state (``STATES``), the turn tracker's
(``TURNS``) and the agent's *activity* (``ACTIVITY``, an ``AgentState``: idle, thinking,
responding, planning a tool, awaiting results, error), which the state events move
through ``state_machine.next_state``: the one owner of "what is the agent doing"
(``activity_of``). ``layers_of`` gives the three processors' states. For each input
event the outputs are the assembler's, then the state events, then the turn events. The
combination is written out rather than built from the generic combinators because it
runs once per stream delta:

- a delta for the block being streamed (text, thinking, tool input) only appends its
  chunk: checked first, inline, on the assembler's slots, it builds one tuple (flat, so
  one tuple and not two per delta);
- any other event is one dict lookup on its class, to a step that calls only the
  processors that handle that class (the turn tracker never sees a delta);
- an event the assembler rejects as out of order or malformed is reported once, by the
  assembler, and the other two processors never see it, so no layer accepts what another
  refused;
- a caller folding many events (``replay``) can append a run of such deltas at once
  (``appending`` and ``with_appended``), without building them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, Final, TypeAlias

from . import assembler as _assembler
from . import state_events as _state_events
from . import turns as _turns
from .errors import ProtocolError
from .events import ConversationClose, ErrorReceived, InputJsonDelta, TextDelta, ThinkingDelta
from .pricing import ModelPrice
from .state_machine import ANSWERS, AgentState, next_state

__all__ = [
    "AgentEngineState",
    "activity_of",
    "agent_processor",
    "agent_processor_with",
    "appended_chunk",
    "appending",
    "chunk_reader",
    "create_initial_agent_engine_state",
    "layers_of",
    "repriced",
    "summary",
    "with_appended",
]

AgentEngineState: TypeAlias = tuple[Any, ...]
"""``(*assembler state, state-event state, turn tracker state, activity)``: nine slots."""

# Named slots after the assembler's six (``assembler.MESSAGE`` .. ``assembler.BASE``).
STATES: Final = 6
TURNS: Final = 7
ACTIVITY: Final = 8
Result: TypeAlias = tuple[AgentEngineState, tuple[Any, ...]]
_Step: TypeAlias = Callable[[AgentEngineState, Any], Result]


def create_initial_agent_engine_state(
    prices: Mapping[str, ModelPrice] | None = None,
    *,
    strict: bool = False,
    price: ModelPrice | None = None,
) -> AgentEngineState:
    """The three initial states; ``prices`` and ``price`` go to the turn tracker,
    ``strict`` to the assembler (raise ``ProtocolError`` instead of reporting bad input)."""
    return (
        *_assembler.create_initial_message_assembler_state(strict=strict),
        _state_events.create_initial_state_event_processor_context(),
        _turns.create_initial_turn_tracker_state(prices, price=price),
        AgentState.IDLE,
    )


def activity_of(state: AgentEngineState) -> AgentState:
    """What the agent is doing in ``state`` (the ``AgentStateMachine`` table, applied to
    every state event the processor emitted)."""
    activity: AgentState = state[ACTIVITY]
    return activity


def layers_of(
    state: AgentEngineState,
) -> tuple[_assembler.AssemblerState, _state_events.StateEventState, _turns.TurnTrackerState]:
    """The three processors' states in ``state``: what each, run alone on the same
    events, holds."""
    return state[:6], state[STATES], state[TURNS]


def _advanced(
    activity: AgentState, events: tuple[Any, ...], states: _state_events.StateEventState
) -> AgentState:
    """``activity`` after the state ``events`` one input produced (``states`` is the
    state-event state after that input); whether other calls are pending is asked only
    where it is read (``ANSWERS``)."""
    if len(events) == 1:  # most inputs: pending calls matter to a tool's answer alone
        event = events[0]
        pending = event.type in ANSWERS and _state_events.has_pending_tools(states)
        return next_state(activity, event, pending)
    others_pending = _state_events.has_pending_tools(states)
    for event in events:
        activity = next_state(activity, event, others_pending)
    return activity


def _unchanged(state: Any, event: Any) -> tuple[Any, tuple[Any, ...]]:
    return state, ()


def _step(cls: type[Any]) -> _Step:
    """The combined step for events of class ``cls``.

    The assembler returns a new state whenever it accepts an event, so "same state and
    some outputs" means it rejected it; the one exception is ``error_received`` with no
    message open, whose ErrorMessage is the report itself, not a rejection.
    """
    assemble = _assembler.HANDLERS[cls]
    track_state = _state_events.HANDLERS.get(cls)
    track_turn = _turns.HANDLERS.get(cls)
    can_reject = cls is not ErrorReceived

    if track_turn is not None:
        track_state = track_state or _unchanged

        def all_three(state: AgentEngineState, event: Any) -> Result:
            before = state  # the assembler reads its six slots of it
            assembled, messages = assemble(before, event)
            if assembled is before and messages and can_reject:
                return state, messages
            states, state_events = track_state(state[6], event)
            turns, turn_events = track_turn(state[7], event)
            activity = _advanced(state[8], state_events, states) if state_events else state[8]
            a = assembled  # its slots one by one: half the cost of unpacking it with *
            return (
                (a[0], a[1], a[2], a[3], a[4], a[5], states, turns, activity),
                messages + state_events + turn_events,
            )

        return all_three
    if track_state is not None:

        def without_turns(state: AgentEngineState, event: Any) -> Result:
            before = state  # the assembler reads its six slots of it
            assembled, messages = assemble(before, event)
            if assembled is before and messages:
                return state, messages
            states, state_events = track_state(state[6], event)
            activity = _advanced(state[8], state_events, states) if state_events else state[8]
            a = assembled
            return (
                (a[0], a[1], a[2], a[3], a[4], a[5], states, state[7], activity),
                messages + state_events,
            )

        return without_turns

    def messages_only(state: AgentEngineState, event: Any) -> Result:
        before = state
        assembled, messages = assemble(before, event)
        if assembled is before:
            return state, messages
        a = assembled
        return (a[0], a[1], a[2], a[3], a[4], a[5], state[6], state[7], state[8]), messages

    return messages_only


def _close(state: AgentEngineState, event: ConversationClose) -> Result:
    """The loop ended its run: the conversation and its turn end silently, and the
    activity follows the event itself (outputs here would come after the run's
    ``agent_end``, which must be its last)."""
    states, _ = _state_events.HANDLERS[ConversationClose](state[6], event)
    turns, _ = _turns.HANDLERS[ConversationClose](state[7], event)
    activity = next_state(state[8], event, False)
    return (state[0], state[1], state[2], state[3], state[4], state[5], states, turns, activity), ()


_STEPS: Mapping[type[Any], _Step] = {
    **{cls: _step(cls) for cls in _assembler.HANDLERS},
    ConversationClose: _close,
}

# The slots the delta fast path reads by literal index (what CPython's specialised tuple
# subscript is fastest with), checked against the modules that own the layouts.
assert (_assembler.MESSAGE, _assembler.INDEX, _assembler.KIND, _assembler.CHUNKS) == (0, 1, 2, 3)
assert (_assembler.EXTRA, _assembler.BASE, _state_events.MODE) == (4, 5, 1)
assert (STATES, TURNS, ACTIVITY) == (6, 7, 8)


def _processor(steps: Mapping[type[Any], _Step]) -> Callable[[AgentEngineState, object], Result]:
    text_kind, thinking_kind, tool_kind = _assembler.TEXT, _assembler.THINKING, _assembler.TOOL
    thinking, responding = _state_events.THINKING, _state_events.RESPONDING
    get_step = steps.get

    def agent_processor(state: AgentEngineState, event: Any) -> Result:
        """Assemble messages, emit state events and track turns for one event.

        Emits, in this order, what ``message_assembler_processor``,
        ``state_event_processor`` and ``turn_tracker_processor`` emit for ``event``. Bad
        input gives one ``PROTOCOL_ERROR`` ``ErrorMessage`` and leaves the whole state
        unchanged (or raises ``ProtocolError`` in strict mode); events of other layers are
        ignored.
        """
        cls = type(event)
        try:
            # The fast path: a delta for the block being streamed, in a conversation mode
            # it does not switch, only appends its chunk (the first branch of the
            # assembler's handler; the state-event processor's ``quiet_for``). The
            # property tests hold it equal to the general step.
            if cls is TextDelta:
                chunk = event.text
                if (
                    state[2] is text_kind
                    and event.index == state[1]
                    and type(chunk) is str
                    and state[6][1] is not thinking
                ):
                    return (
                        state[0],
                        state[1],
                        text_kind,
                        state[3].append(chunk),
                        state[4],
                        state[5],
                        state[6],
                        state[7],
                        state[8],
                    ), ()
            elif cls is InputJsonDelta:
                chunk = event.partial_json
                if state[2] is tool_kind and event.index == state[1] and type(chunk) is str:
                    return (
                        state[0],
                        state[1],
                        tool_kind,
                        state[3].append(chunk),
                        state[4],
                        state[5],
                        state[6],
                        state[7],
                        state[8],
                    ), ()
            elif cls is ThinkingDelta:
                chunk = event.text
                if (
                    state[2] is thinking_kind
                    and event.index == state[1]
                    and type(chunk) is str
                    and event.signature is None
                    and event.redacted_data is None
                    and state[6][1] is not responding
                ):
                    return (
                        state[0],
                        state[1],
                        thinking_kind,
                        state[3].append(chunk),
                        state[4],
                        state[5],
                        state[6],
                        state[7],
                        state[8],
                    ), ()
            step = get_step(cls)
            if step is None:
                return state, _assembler.unknown_event(state[:6], event)[1]
            return step(state, event)
        except ProtocolError:
            raise
        except Exception as exc:  # fields no constructor builds: whatever they raise
            return state, _assembler.malformed(state[:6], event, exc)[1]

    agent_processor.__qualname__ = "agent_processor"  # as combinators and logs name it
    return agent_processor


agent_processor = _processor(_STEPS)


def agent_processor_with(
    steps: Mapping[type[Any], _Step],
) -> Callable[[AgentEngineState, object], Result]:
    """``agent_processor`` that also takes the events of ``steps`` (``{class: (state,
    event) -> (state, outputs)}``): how a layer above tells the core what only it knows
    the event of (the loop's configuration carries the prices the turns are charged at)."""
    return _processor({**_STEPS, **steps})


def repriced(
    state: AgentEngineState,
    prices: Mapping[str, ModelPrice] | None,
    price: ModelPrice | None,
) -> AgentEngineState:
    """``state`` with its turns from now on priced by ``prices`` and ``price``."""
    return (*state[:7], _turns.repriced(state[7], prices, price), state[8])


def appending(state: AgentEngineState) -> tuple[type[Any], int] | None:
    """``(delta class, block index)`` of the deltas that, in ``state``, only append their
    chunk to the block being streamed, or None when no delta would.

    Such a delta is one whose first field (the chunk) is a ``str``, whose ``index`` equals
    the block index and whose other data fields are None: ``agent_processor`` gives it
    no output and changes nothing but the block's chunks (the assembler's hot block, in a
    conversation state the delta does not switch).
    """
    hot = _assembler.hot_block(state)
    if hot is None or not _state_events.quiet_for(state[6], hot[0]):
        return None
    return hot


def _plain_thinking(event: ThinkingDelta) -> str | None:
    return event.text if event.signature is None and event.redacted_data is None else None


_CHUNK_OF: Mapping[type[Any], Callable[[Any], Any]] = {
    TextDelta: attrgetter("text"),
    InputJsonDelta: attrgetter("partial_json"),
    ThinkingDelta: _plain_thinking,
}
"""A delta class -> its chunk, or None when the delta carries more than a chunk."""


def appended_chunk(event: object, hot: tuple[type[Any], int]) -> str | None:
    """The chunk ``event`` only appends, given ``appending``'s ``hot``; None when the
    event is another class, another block, or carries more than a chunk."""
    cls, index = hot
    if type(event) is not cls or event.index != index:  # type: ignore[attr-defined]
        return None
    chunk = _CHUNK_OF[cls](event)
    return chunk if type(chunk) is str else None


def chunk_reader(cls: type[Any]) -> Callable[[Any], Any]:
    """The reader of a delta of class ``cls`` (an ``appending`` class): its chunk, a
    ``str`` only when the delta carries nothing more."""
    return _CHUNK_OF[cls]


def delta_run(state: AgentEngineState) -> tuple[type[Any], int, Callable[[Any], Any]] | None:
    """``appending(state)`` with the reader of such a delta's chunk (which gives a ``str``
    only for a delta that only appends it): what ``MealyMachine`` collects runs with."""
    hot = appending(state)
    return None if hot is None else (hot[0], hot[1], _CHUNK_OF[hot[0]])


def with_appended(state: AgentEngineState, chunks: list[str]) -> AgentEngineState:
    """``state`` after the deltas ``appending(state)`` describes, carrying ``chunks`` in
    order: equal to feeding them one by one, at one call for the whole run."""
    return (*_assembler.with_chunks(state[:6], chunks), *state[6:])


def summary(state: AgentEngineState) -> dict[str, Any]:
    """The core state for people: activity, then each processor's ``summary``."""
    return {
        "activity": state[8].value,
        "messages": _assembler.summary(state[:6]),
        "state": _state_events.summary(state[6]),
        "turns": _turns.summary(state[7]),
    }
