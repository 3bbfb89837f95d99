"""The state-event processor: what the conversation is doing, emitted on transitions only.

A user interface wants "thinking...", "responding", "running search" and "done", once each,
not once per delta. The transition table (also in docs/processors.md):

===================  =======================================  =============================
event                condition                                emits
===================  =======================================  =============================
user_message         no conversation active                   ConversationStart
message_start        no conversation active                   ConversationStart (assistant
                                                              message id), then the row below
message_start        no message open                          ConversationThinking
text_delta           message open, not responding             ConversationResponding
thinking_delta       message open, responding                 ConversationThinking
tool_use_start       message open, new tool call id           ToolPlanned
message_stop         message had tool calls                   ToolExecuting per call not yet
                                                              answered
message_stop         no tool calls, no results awaited        ConversationEnd("completed")
tool_result          call awaiting its result                 ToolCompleted / ToolFailed
interrupt            conversation active                      ConversationInterrupted,
                                                              ConversationEnd("interrupted")
error_received       always                                   ErrorOccurred, then
                                                              ConversationEnd("error") if active
conversation_close   conversation active                      nothing (the event itself moves
                                                              the activity to idle)
===================  =======================================  =============================

Every other event, and every row whose condition does not hold, emits nothing and returns
the same state object. Order and protocol problems are the message assembler's to report;
this processor silently ignores what it cannot place (a delta with no open message, a
second ``message_start``, a result for an unknown call), so combined with the assembler
(``agent_processor``) each problem is reported once. A result may arrive before
``message_stop`` once its call's ``tool_use_stop`` was seen (early execution); that call
then gets no ``ToolExecuting``. Interrupts and errors end the conversation and forget the
calls still awaiting results.

State is a plain tuple ``(active, mode, calls, awaiting)``: ``mode`` is ``None`` between
messages, else ``THINKING`` or ``RESPONDING``; ``calls`` holds the current message's tool
calls (and which were answered early); ``awaiting`` maps the ids of calls whose input is
complete and whose result has not come to tool names, by the assembler's rules
(``pending``: one table, one rule).

The state events of the inputs that are not deltas are made from the input's values
without checking them again (``records.builder``): the handlers take an input whose
fields passed their check (in ``agent_processor`` the assembler's handler for the same
input ran ``check_again`` first, the deltas' state events excepted, which the classes
check; ``state_event_processor`` runs it on every input it handles, and ignores one that
fails).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from .checks import check_again
from .content import Content, TextContent
from .events import (
    ConversationClose,
    ConversationEnd,
    ConversationInterrupted,
    ConversationResponding,
    ConversationStart,
    ConversationThinking,
    ErrorOccurred,
    ErrorReceived,
    Interrupt,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolCompleted,
    ToolExecuting,
    ToolFailed,
    ToolPlanned,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
    UserMessage,
)
from .pending import NOTHING_AWAITED, Awaiting, answered, awaited
from .records import builder, tuple_of

if TYPE_CHECKING:
    from typing import NamedTuple
else:  # the class typing makes, at a fifth of its cost (records.py)
    from .records import NamedTuple

__all__ = [
    "HANDLERS",
    "StateEventState",
    "create_initial_state_event_processor_context",
    "has_pending_tools",
    "quiet_for",
    "state_event_processor",
    "summary",
]

THINKING = "thinking"
RESPONDING = "responding"


class _Calls(NamedTuple):
    """Tool calls of the open message; tuples because a message has few calls."""

    ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    answered: tuple[str, ...] = ()
    """Calls answered before the message ended (early execution): no ``tool_executing``."""


_NO_CALLS = _Calls()

StateEventState: TypeAlias = tuple[bool, str | None, _Calls, Awaiting]
Result: TypeAlias = tuple[StateEventState, tuple[Any, ...]]

_IDLE: StateEventState = (False, None, _NO_CALLS, NOTHING_AWAITED)

# Outputs made of checked values (see the module docstring), in field order.
_start = builder(ConversationStart)
_thinking = builder(ConversationThinking)
_planned = builder(ToolPlanned)
_executing = builder(ToolExecuting)
_completed = builder(ToolCompleted)
_failed = builder(ToolFailed)
_interrupted = builder(ConversationInterrupted)
_end = builder(ConversationEnd)
_occurred = builder(ErrorOccurred)

# Named slots of the state tuple (read by position only in this module).
ACTIVE: Final = 0
MODE: Final = 1
CALLS: Final = 2
AWAITING: Final = 3


def create_initial_state_event_processor_context() -> StateEventState:
    """No conversation active, no message open, no tool call awaiting a result."""
    return _IDLE


def _on_user_message(state: StateEventState, event: UserMessage) -> Result:
    if state[0]:
        return state, ()
    return (True, *state[1:]), (_start(event.message_id, event.timestamp),)


def _on_message_start(state: StateEventState, event: MessageStart) -> Result:
    if state[1] is not None:
        return state, ()
    thinking = _thinking(event.timestamp)
    new = (True, THINKING, _NO_CALLS, state[3])
    if state[0]:
        return new, (thinking,)
    return new, (_start(event.message_id, event.timestamp), thinking)


def _on_text(state: StateEventState, event: TextDelta) -> Result:
    if state[1] is not THINKING:
        return state, ()
    return (state[0], RESPONDING, state[2], state[3]), (
        ConversationResponding(timestamp=event.timestamp),
    )


def _on_thinking(state: StateEventState, event: ThinkingDelta) -> Result:
    if state[1] is not RESPONDING:
        return state, ()
    return (state[0], THINKING, state[2], state[3]), (
        ConversationThinking(timestamp=event.timestamp),
    )


def _on_tool_start(state: StateEventState, event: ToolUseStart) -> Result:
    calls = state[2]
    call_id, name = event.tool_call_id, event.tool_name
    if state[1] is None or call_id in calls.ids or call_id in state[3]:
        return state, ()
    calls = tuple_of(_Calls, ((*calls.ids, call_id), (*calls.names, name), calls.answered))
    return (state[0], state[1], calls, state[3]), (_planned(call_id, name, event.timestamp),)


def _on_tool_stop(state: StateEventState, event: ToolUseStop) -> Result:
    calls, call_id = state[2], event.tool_call_id
    if call_id not in calls.ids or call_id in state[3] or call_id in calls.answered:
        return state, ()  # not of this message, or stopped already
    name = calls.names[calls.ids.index(call_id)]
    return (state[0], state[1], calls, awaited(state[3], call_id, name)), ()


def _on_message_stop(state: StateEventState, event: MessageStop) -> Result:
    if state[1] is None:
        return state, ()
    calls, awaiting = state[2], state[3]
    if not calls.ids:
        if awaiting:
            return (True, None, _NO_CALLS, awaiting), ()
        return _IDLE, (_end("completed", event.timestamp),)
    outputs: list[ToolExecuting] = []
    for call_id, name in zip(calls.ids, calls.names, strict=True):
        if call_id not in calls.answered:
            if call_id not in awaiting:  # never stopped: its input ends with the message
                awaiting = awaited(awaiting, call_id, name)
            outputs.append(_executing(call_id, name, event.timestamp))
    return (True, None, _NO_CALLS, awaiting), tuple(outputs)


def _result_text(result: Content) -> str:
    if isinstance(result, str):
        return result
    return "".join(block.text for block in result if isinstance(block, TextContent))


def _finished(event: ToolResult, name: str) -> ToolCompleted | ToolFailed:
    if event.is_error:
        return _failed(event.tool_call_id, name, _result_text(event.result), event.timestamp)
    return _completed(event.tool_call_id, name, event.timestamp)


def _on_tool_result(state: StateEventState, event: ToolResult) -> Result:
    awaiting, name = answered(state[3], event.tool_call_id)
    if name is None:
        return state, ()
    calls = state[2]
    if event.tool_call_id in calls.ids:  # answered before its message ended
        calls = tuple_of(_Calls, (calls.ids, calls.names, (*calls.answered, event.tool_call_id)))
    return (state[0], state[1], calls, awaiting), (_finished(event, name),)


def _on_interrupt(state: StateEventState, event: Interrupt) -> Result:
    if not state[0]:
        return state, ()
    return _IDLE, (
        _interrupted(event.reason, event.timestamp),
        _end("interrupted", event.timestamp),
    )


def _on_error(state: StateEventState, event: ErrorReceived) -> Result:
    occurred = _occurred(event.message, event.code, event.timestamp)
    if not state[0]:
        return state, (occurred,)
    return _IDLE, (occurred, _end("error", event.timestamp))


def _on_close(state: StateEventState, event: ConversationClose) -> Result:
    """The loop ended its run while the conversation was active (after tool results, a
    limit, a guardrail): it ends here. Nothing is emitted: the ``conversation_close``
    itself, delivered before the run's ``agent_end``, is the transition to idle
    (``state_machine.TRANSITIONS``)."""
    return (state, ()) if not state[0] else (_IDLE, ())


Handler: TypeAlias = Callable[[StateEventState, Any], Result]

HANDLERS: Mapping[type[Any], Handler] = {
    UserMessage: _on_user_message,
    MessageStart: _on_message_start,
    TextDelta: _on_text,
    ThinkingDelta: _on_thinking,
    ToolUseStart: _on_tool_start,
    ToolUseStop: _on_tool_stop,
    MessageStop: _on_message_stop,
    ToolResult: _on_tool_result,
    Interrupt: _on_interrupt,
    ErrorReceived: _on_error,
    ConversationClose: _on_close,
}
"""Event class -> handler; every other event leaves the state as it is. A handler takes an
input whose fields passed their check (see the module docstring)."""


def state_event_processor(state: StateEventState, event: object) -> Result:
    """Emit state events on transitions (see the module table); never raises.

    Emits ``ConversationStart``, ``ConversationThinking``, ``ConversationResponding``,
    ``ToolPlanned``, ``ToolExecuting``, ``ToolCompleted``, ``ToolFailed``,
    ``ConversationInterrupted``, ``ConversationEnd`` and ``ErrorOccurred``.
    """
    handler = HANDLERS.get(type(event))
    if handler is None:
        return state, ()
    try:
        check_again(event)  # the handlers take its values as they are
        return handler(state, event)
    except (AttributeError, TypeError, ValueError):
        return state, ()  # malformed fields: the assembler reports them


_SWITCHING_MODE: Mapping[type[Any], str | None] = {
    TextDelta: THINKING,
    ThinkingDelta: RESPONDING,
}


def quiet_for(state: StateEventState, delta: type[Any]) -> bool:
    """Whether a delta of class ``delta`` for an open message emits nothing in ``state``
    (text while responding, reasoning while thinking, tool input always)."""
    switching = _SWITCHING_MODE.get(delta)
    return switching is None or state[MODE] is not switching


def has_pending_tools(state: StateEventState) -> bool:
    """Whether a tool call is planned or executing and not answered yet. Constant time
    (it runs after every state event): ``answered`` only ever holds ids of ``ids``, once."""
    calls = state[CALLS]
    return len(calls.answered) < len(calls.ids) or bool(state[AWAITING])


def summary(state: StateEventState) -> dict[str, Any]:
    """Whether a conversation is active, the message mode, and the calls awaited."""
    return {
        "active": state[ACTIVE],
        "mode": state[MODE],
        "executing": dict(state[AWAITING]),
        "planned": list(state[CALLS].ids),
    }
