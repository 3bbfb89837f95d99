"""``agent_processor``: the message assembler, state-event processor and turn tracker as one.

The state is a tuple of the three processors' states plus the agent's *activity* (an
``AgentState``: idle, thinking, responding, planning a tool, awaiting results, error),
which the state events move through ``state_machine.next_state``: the one owner of "what
is the agent doing" (``activity_of``). For each input event the outputs are the
assembler's, then the state events, then the turn events. The combination is written out
rather than built from the generic combinators because it runs once per stream delta:

- dispatch is one dict lookup on the event's class, to a step that calls only the
  processors that handle that class (the turn tracker never sees a text delta);
- an event the assembler rejects as out of order or malformed is reported once, by the
  assembler, and the other two processors never see it, so no layer accepts what another
  refused;
- a text delta for the block being streamed only appends its chunk, written inline
  (the hot path of the assembler and of the state-event processor);
- a caller folding many events (``replay``) can append a run of such deltas at once
  (``appending`` and ``with_appended``), without building them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from . import assembler as _assembler
from . import state_events as _state_events
from . import turns as _turns
from .errors import ProtocolError
from .events import ConversationClose, ErrorReceived, InputJsonDelta, TextDelta, ThinkingDelta
from .pricing import ModelPrice
from .state_machine import AgentState, next_state

__all__ = [
    "AgentEngineState",
    "activity_of",
    "agent_processor",
    "agent_processor_with",
    "appended_chunk",
    "appending",
    "create_initial_agent_engine_state",
    "repriced",
    "summary",
    "with_appended",
]

AgentEngineState: TypeAlias = tuple[
    _assembler.AssemblerState,
    _state_events.StateEventState,
    _turns.TurnTrackerState,
    AgentState,
]
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
        _assembler.create_initial_message_assembler_state(strict=strict),
        _state_events.create_initial_state_event_processor_context(),
        _turns.create_initial_turn_tracker_state(prices, price=price),
        AgentState.IDLE,
    )


def activity_of(state: AgentEngineState) -> AgentState:
    """What the agent is doing in ``state`` (the ``AgentStateMachine`` table, applied to
    every state event the processor emitted)."""
    return state[3]


def _advanced(
    activity: AgentState, events: tuple[Any, ...], states: _state_events.StateEventState
) -> AgentState:
    """``activity`` after the state ``events`` one input produced (``states`` is the
    state-event state after that input)."""
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
            before = state[0]
            assembled, messages = assemble(before, event)
            if assembled is before and messages and can_reject:
                return state, messages
            states, state_events = track_state(state[1], event)
            turns, turn_events = track_turn(state[2], event)
            activity = _advanced(state[3], state_events, states) if state_events else state[3]
            return (assembled, states, turns, activity), messages + state_events + turn_events

        return all_three
    if track_state is not None:

        def without_turns(state: AgentEngineState, event: Any) -> Result:
            before = state[0]
            assembled, messages = assemble(before, event)
            if assembled is before and messages:
                return state, messages
            states, state_events = track_state(state[1], event)
            activity = _advanced(state[3], state_events, states) if state_events else state[3]
            return (assembled, states, state[2], activity), messages + state_events

        return without_turns

    def messages_only(state: AgentEngineState, event: Any) -> Result:
        before = state[0]
        assembled, messages = assemble(before, event)
        if assembled is before:
            return state, messages
        return (assembled, state[1], state[2], state[3]), messages

    return messages_only


def _text_step(general: _Step) -> _Step:
    """The step for text deltas: the hot path of both processors written inline,
    ``general`` otherwise.

    A delta for the text block being streamed (a ``str`` chunk, that block's index), while
    the conversation is not in its thinking mode, only appends its chunk (the assembler's
    ``_on_text`` first branch) and leaves the state-event state as it is (``quiet_for``).
    Inline, with the modules' named slots, this saves two calls per delta (a quarter of
    its cost); the property tests hold the result equal to the general step's.
    """
    message, index, kind, chunks, extra, base = (
        _assembler.MESSAGE,
        _assembler.INDEX,
        _assembler.KIND,
        _assembler.CHUNKS,
        _assembler.EXTRA,
        _assembler.BASE,
    )
    text_kind, mode, thinking = _assembler.TEXT, _state_events.MODE, _state_events.THINKING

    def text_delta(state: AgentEngineState, event: Any) -> Result:
        assembled: Any = state[0]  # indexed by named slots, which mypy cannot follow
        text = event.text
        if (
            assembled[kind] is text_kind
            and event.index == assembled[index]
            and type(text) is str
            and state[1][mode] is not thinking
        ):
            appended = assembled[chunks].append(text)
            block = (
                assembled[message],
                assembled[index],
                text_kind,
                appended,
                assembled[extra],
                assembled[base],
            )
            return (block, state[1], state[2], state[3]), ()
        return general(state, event)

    return text_delta


def _close(state: AgentEngineState, event: ConversationClose) -> Result:
    """The loop ended its run: the conversation and its turn end silently, and the
    activity follows the event itself (outputs here would come after the run's
    ``agent_end``, which must be its last)."""
    states, _ = _state_events.HANDLERS[ConversationClose](state[1], event)
    turns, _ = _turns.HANDLERS[ConversationClose](state[2], event)
    return (state[0], states, turns, next_state(state[3], event, False)), ()


_STEPS: Mapping[type[Any], _Step] = {
    **{cls: _step(cls) for cls in _assembler.HANDLERS},
    ConversationClose: _close,
    TextDelta: _text_step(_step(TextDelta)),
}


def _processor(steps: Mapping[type[Any], _Step]) -> Callable[[AgentEngineState, object], Result]:
    def agent_processor(state: AgentEngineState, event: object) -> Result:
        """Assemble messages, emit state events and track turns for one event.

        Emits, in this order, what ``message_assembler_processor``,
        ``state_event_processor`` and ``turn_tracker_processor`` emit for ``event``. Bad
        input gives one ``PROTOCOL_ERROR`` ``ErrorMessage`` and leaves the whole state
        unchanged (or raises ``ProtocolError`` in strict mode); events of other layers are
        ignored.
        """
        step = steps.get(type(event))
        if step is None:
            return state, _assembler.unknown_event(state[0], event)[1]
        try:
            return step(state, event)
        except ProtocolError:
            raise
        except Exception as exc:  # fields no constructor builds: whatever they raise
            return state, _assembler.malformed(state[0], event, exc)[1]

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
    return state[0], state[1], _turns.repriced(state[2], prices, price), state[3]


def appending(state: AgentEngineState) -> tuple[type[Any], int] | None:
    """``(delta class, block index)`` of the deltas that, in ``state``, only append their
    chunk to the block being streamed, or None when no delta would.

    Such a delta is one whose first field (the chunk) is a ``str``, whose ``index`` equals
    the block index and whose other data fields are None: ``agent_processor`` gives it
    no output and changes nothing but the block's chunks (the assembler's hot block, in a
    conversation state the delta does not switch).
    """
    hot = _assembler.hot_block(state[0])
    if hot is None or not _state_events.quiet_for(state[1], hot[0]):
        return None
    return hot


def appended_chunk(event: object, hot: tuple[type[Any], int]) -> str | None:
    """The chunk ``event`` only appends, given ``appending``'s ``hot``; None when the
    event is another class, another block, or carries more than a chunk."""
    cls, index = hot
    if type(event) is not cls:
        return None
    if isinstance(event, TextDelta):
        return event.text if event.index == index else None
    if isinstance(event, InputJsonDelta):
        return event.partial_json if event.index == index else None
    if isinstance(event, ThinkingDelta) and event.index == index:
        plain = event.signature is None and event.redacted_data is None
        return event.text if plain else None
    return None


def with_appended(state: AgentEngineState, chunks: list[str]) -> AgentEngineState:
    """``state`` after the deltas ``appending(state)`` describes, carrying ``chunks`` in
    order: equal to feeding them one by one, at one call for the whole run."""
    return _assembler.with_chunks(state[0], chunks), state[1], state[2], state[3]


def summary(state: AgentEngineState) -> dict[str, Any]:
    """The core state for people: activity, then each processor's ``summary``."""
    return {
        "activity": state[3].value,
        "messages": _assembler.summary(state[0]),
        "state": _state_events.summary(state[1]),
        "turns": _turns.summary(state[2]),
    }
