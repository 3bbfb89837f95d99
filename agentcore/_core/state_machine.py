"""What an agent is doing right now, driven by state-layer events.

Everything that affects a transition lives in this file (h11's rule). ``TRANSITIONS`` maps
``(state, event type)`` to the next state; ``WHILE_TOOLS_PENDING`` overrides it for a tool
result that leaves other tool calls still unanswered. A pair in neither table is ignored:
the state does not change and no handler runs, so a late or duplicated event can never
move the agent somewhere nonsensical. docs/machine.md draws its table from these dicts.

Pending tools are tracked by ``tool_call_id``: accepted ``tool_planned`` and
``tool_executing`` events add an id; ``tool_completed`` and ``tool_failed`` remove it in
every state (a result may arrive early, while the model is still streaming, and then moves
nothing but must not be waited for later). The agent leaves
``awaiting_tool_result`` for ``thinking`` (the model is called again with the results)
only when the last pending tool is answered. Entering ``idle`` or ``error``, and every
``conversation_start``, forget all pending tools.

``error`` is sticky: only a new ``conversation_start`` or ``reset()`` leaves it, so the
``conversation_end`` that follows an ``error_occurred`` does not hide the error.

Handlers registered with ``on_state_change`` run after each change, in registration
order, with one ``StateChange``. See ``AgentStateMachine`` for failure isolation.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .events import (
    ConversationClose,
    ConversationEnd,
    ConversationInterrupted,
    ConversationResponding,
    ConversationStart,
    ConversationThinking,
    ErrorOccurred,
    StateEvent,
    ToolCompleted,
    ToolExecuting,
    ToolFailed,
    ToolPlanned,
)
from .observers import call_hooks

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = [
    "AgentState",
    "AgentStateMachine",
    "StateChange",
    "StateChangeHandler",
    "TRANSITIONS",
    "ANSWERS",
    "WHILE_TOOLS_PENDING",
    "next_state",
]


class AgentState(StrEnum):
    """What the agent is doing."""

    IDLE = "idle"
    THINKING = "thinking"
    RESPONDING = "responding"
    PLANNING_TOOL = "planning_tool"
    AWAITING_TOOL_RESULT = "awaiting_tool_result"
    ERROR = "error"


IDLE, THINKING, RESPONDING = AgentState.IDLE, AgentState.THINKING, AgentState.RESPONDING
PLANNING, AWAITING, ERROR = (
    AgentState.PLANNING_TOOL,
    AgentState.AWAITING_TOOL_RESULT,
    AgentState.ERROR,
)
_START, _THINK, _RESPOND = "conversation_start", "conversation_thinking", "conversation_responding"
_PLANNED, _EXECUTING = "tool_planned", "tool_executing"
_COMPLETED, _FAILED = "tool_completed", "tool_failed"
_INTERRUPTED, _END, _ERROR = "conversation_interrupted", "conversation_end", "error_occurred"
_CLOSE = "conversation_close"

_BUSY = (THINKING, RESPONDING, PLANNING, AWAITING)

TRANSITIONS: dict[tuple[AgentState, str], AgentState] = {
    # a new conversation turn starts from anywhere, and is the way out of error
    **{(state, _START): THINKING for state in AgentState},
    (THINKING, _RESPOND): RESPONDING,
    (THINKING, _PLANNED): PLANNING,
    (RESPONDING, _THINK): THINKING,
    (RESPONDING, _PLANNED): PLANNING,
    (PLANNING, _PLANNED): PLANNING,
    (PLANNING, _THINK): THINKING,
    (PLANNING, _RESPOND): RESPONDING,
    (PLANNING, _EXECUTING): AWAITING,
    (AWAITING, _EXECUTING): AWAITING,
    (AWAITING, _COMPLETED): THINKING,
    (AWAITING, _FAILED): THINKING,
    (AWAITING, _THINK): THINKING,
    (AWAITING, _RESPOND): RESPONDING,
    # every busy state can be interrupted, end, or fail
    **{(state, _INTERRUPTED): IDLE for state in _BUSY},
    **{(state, _END): IDLE for state in _BUSY},
    # the agent loop ended its run with the conversation still active
    **{(state, _CLOSE): IDLE for state in _BUSY},
    **{(state, _ERROR): ERROR for state in (IDLE, *_BUSY)},
}
"""``(state, event type) -> next state``; pairs not listed are ignored."""

WHILE_TOOLS_PENDING: dict[tuple[AgentState, str], AgentState] = {
    (AWAITING, _COMPLETED): AWAITING,
    (AWAITING, _FAILED): AWAITING,
}
"""Overrides ``TRANSITIONS`` when other tool calls are still pending after this result."""

_ADDS_TOOL = frozenset({_PLANNED, _EXECUTING})
ANSWERS = frozenset({_COMPLETED, _FAILED})
"""The state events (by ``type``) that answer a tool call: the only ones whose next state
reads ``next_state``'s ``others_pending``."""
_STATE_EVENTS = (
    ConversationClose,
    ConversationStart,
    ConversationThinking,
    ConversationResponding,
    ToolPlanned,
    ToolExecuting,
    ToolCompleted,
    ToolFailed,
    ConversationInterrupted,
    ConversationEnd,
    ErrorOccurred,
)


def next_state(current: AgentState, event: Any, others_pending: bool) -> AgentState:
    """The state after state event ``event`` (other events change nothing).

    ``others_pending`` says whether tool calls other than the one ``event`` answers are
    still waiting for their result (it selects ``WHILE_TOOLS_PENDING`` for a result).
    This is the one transition function: ``AgentStateMachine`` and the core processor's
    activity (``agentcore.processors.activity_of``) both use it.
    """
    kind = getattr(event, "type", None)
    key = (current, kind)
    found = TRANSITIONS.get(key)  # type: ignore[arg-type]
    if found is None:
        return current
    if kind in ANSWERS and others_pending:
        return WHILE_TOOLS_PENDING.get(key, found)  # type: ignore[arg-type]
    return found


@frozen
class StateChange:
    """One change: ``previous`` -> ``current``, caused by ``event`` (``None`` for reset;
    a ``ConversationClose`` when the agent loop ended its run mid-conversation)."""

    previous: AgentState
    current: AgentState
    event: StateEvent | ConversationClose | None


StateChangeHandler = Callable[[StateChange], object]


class _Subscription:
    """A handler slot; ``active`` turns false on unsubscribe, even mid-notification."""

    __slots__ = ("active", "handler")

    def __init__(self, handler: StateChangeHandler) -> None:
        self.handler = handler
        self.active = True


class AgentStateMachine:
    """Follows state-layer events and tells handlers when the agent's state changes.

    ``process(event)`` accepts any event and ignores those outside the state layer, so
    the machine can be fed a processor's whole output stream.

    Handlers are isolated: one raising does not stop the others. Failures go to
    ``on_handler_error(error, change)`` when given; otherwise they are raised together
    as an ``ExceptionGroup`` once every handler ran. Either way the transition has
    already happened. A handler may unsubscribe itself or others at any time: a handler
    removed mid-notification is not called for the rest of it, and one added
    mid-notification is first called on the next change.
    """

    __slots__ = ("_on_handler_error", "_pending", "_state", "_subscriptions")

    def __init__(
        self, *, on_handler_error: Callable[[Exception, StateChange], object] | None = None
    ) -> None:
        self._state = IDLE
        self._pending: set[str] = set()
        self._subscriptions: tuple[_Subscription, ...] = ()
        self._on_handler_error = on_handler_error

    @property
    def state(self) -> AgentState:
        """The current state."""
        return self._state

    @property
    def pending_tools(self) -> frozenset[str]:
        """Ids of tool calls planned or executing and not yet answered."""
        return frozenset(self._pending)

    def __repr__(self) -> str:
        return f"AgentStateMachine(state={self._state.value!r}, pending={len(self._pending)})"

    def process(self, event: Any) -> AgentState:
        """Apply ``event``; return the (possibly unchanged) state.

        Raises only what handlers raise, as described in the class docstring.
        """
        if not isinstance(event, _STATE_EVENTS):
            return self._state
        previous = self._state
        kind = event.type
        if kind in ANSWERS:  # an answer is an answer, even one that moves nothing
            self._pending.discard(event.tool_call_id)  # type: ignore[union-attr]
        if (previous, kind) not in TRANSITIONS:
            return previous
        current = next_state(previous, event, bool(self._pending))
        if kind in _ADDS_TOOL:
            self._pending.add(event.tool_call_id)  # type: ignore[union-attr]
        if kind == _START or current in (IDLE, ERROR):
            self._pending.clear()
        self._move(current, event)
        return current

    def reset(self) -> None:
        """Back to ``idle`` with no pending tools; handlers hear of it if the state changed."""
        self._pending.clear()
        self._move(IDLE, None)

    def on_state_change(self, handler: StateChangeHandler) -> Callable[[], None]:
        """Call ``handler(change)`` after every change; return an idempotent unsubscribe."""
        if not callable(handler):
            raise TypeError(f"state-change handler must be callable, got {handler!r}")
        subscription = _Subscription(handler)
        self._subscriptions = (*self._subscriptions, subscription)

        def unsubscribe() -> None:
            subscription.active = False
            self._subscriptions = tuple(s for s in self._subscriptions if s is not subscription)

        return unsubscribe

    def _move(self, current: AgentState, event: StateEvent | ConversationClose | None) -> None:
        previous = self._state
        if current is previous:
            return
        self._state = current
        if self._subscriptions:
            # lazy over a snapshot: a handler unsubscribed mid-notification is skipped
            snapshot = self._subscriptions
            call_hooks(
                (s.handler for s in snapshot if s.active),
                StateChange(previous, current, event),
                self._on_handler_error,
                "state-change handler",
            )
