"""The turn tracker: one ``TurnRequest`` and one ``TurnResponse`` per turn.

A turn starts at a ``user_message`` (or at a ``message_start`` when no turn is open, so a
recorded stream without user input still has turns; its ``message_id`` is then the
assistant message's). It ends when a model call stops without having started a tool call,
or at ``error_received`` / ``interrupt``; ``conversation_close`` (the loop ended its run)
drops a turn still open. A user message that arrives during a turn is steering and
joins it.

Turn ids are ``"turn-1"``, ``"turn-2"``... counted per state, so replaying the same events
gives the same ids. ``duration_ms`` is the ending event's timestamp minus the starting
event's. ``usage`` sums every model call of the turn, each call's usage being its last
``message_delta`` usage (providers report it cumulatively). ``cost`` sums each call's
cost by ``call_cost``, the rule the loop's ledger and the session tally charge by (its
own model's row in the table, else the fallback price); it is ``None`` as soon as one
call has no price (or nothing was priced), never a made-up 0. In a conversation the
pricing is the loop config's, and the loop charges each reply at the price this tracker
gave its call (``call_closed``): a call is priced once, and the turns' costs add up to
the run's.

State is a plain tuple ``(turns_started, turn, pricing, closed)``, ``pricing`` being
``(price, table)`` or ``None``; ``turn`` is ``None`` between turns; ``closed`` is
``(cost,)`` of the model call that ended last, ``None`` while a call is open or before
any ended (``call_closed``: the one price of a call, which a conversation hands its loop's
ledger). Deltas are not handled at all: they never change a turn.

As the state-event processor's, the handlers take an input whose fields passed their
check (``check_again``, which ``turn_tracker_processor`` runs on every input it handles,
and the assembler before it in ``agent_processor``) and make the turn events of its
values without checking them again (``records.builder``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from math import isfinite
from typing import TYPE_CHECKING, Any, TypeAlias

from . import pricing as _pricing
from .checks import check_again
from .content import ZERO_USAGE, Usage
from .events import (
    ConversationClose,
    ErrorReceived,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    ToolUseStart,
    TurnRequest,
    TurnResponse,
    UserMessage,
)
from .pricing import ModelPrice
from .records import builder, tuple_of

if TYPE_CHECKING:
    from pyrsistent import PMap

if TYPE_CHECKING:
    from typing import NamedTuple
else:  # the class typing makes, at a fifth of its cost (records.py)
    from .records import NamedTuple

__all__ = [
    "HANDLERS",
    "TurnTrackerState",
    "call_closed",
    "create_initial_turn_tracker_state",
    "repriced",
    "summary",
    "turn_tracker_processor",
]


class _Call(NamedTuple):
    """The model call in progress."""

    model: str
    usage: Usage = ZERO_USAGE
    stop_reason: str | None = None
    used_tools: bool = False


class _Turn(NamedTuple):
    """The turn in progress; ``call`` is its open model call, if any (always the last
    field: ``_Turn(*turn[:-1], call)`` swaps it)."""

    turn_id: str
    started_at: int
    usage: Usage = ZERO_USAGE
    cost: float | None = 0.0
    model: str | None = None
    stop_reason: str | None = None
    call: _Call | None = None


_request = builder(TurnRequest)
_response = builder(TurnResponse)

Pricing: TypeAlias = "tuple[ModelPrice | None, PMap[str, ModelPrice] | None]"
Closed: TypeAlias = tuple[float | None]
TurnTrackerState: TypeAlias = "tuple[int, _Turn | None, Pricing | None, Closed | None]"
Result: TypeAlias = tuple[TurnTrackerState, tuple[Any, ...]]


def create_initial_turn_tracker_state(
    prices: Mapping[str, ModelPrice] | None = None,
    *,
    price: ModelPrice | None = None,
) -> TurnTrackerState:
    """No turn yet. ``prices`` maps model ids (or prefixes, see ``find_price``) to prices,
    ``price`` prices the models the table does not know; without either every turn's
    cost is ``None``."""
    if prices is None and price is None:
        return (0, None, None, None)
    if prices is None:
        return (0, None, (price, None), None)
    from pyrsistent import pmap  # only a price table needs it (import time, vectors.py)

    return (0, None, (price, pmap(prices)), None)


def repriced(
    state: TurnTrackerState,
    prices: Mapping[str, ModelPrice] | None,
    price: ModelPrice | None,
) -> TurnTrackerState:
    """``state`` with turns from now on priced by ``prices`` and ``price`` (as
    ``create_initial_turn_tracker_state`` takes them)."""
    return (state[0], state[1], create_initial_turn_tracker_state(prices, price=price)[2], state[3])


def call_closed(state: TurnTrackerState) -> Closed | None:
    """``(cost,)`` of the model call that ended last (``cost`` ``None`` when unpriced), or
    ``None`` while a call is open or before any ended."""
    return state[3]


def _begin(state: TurnTrackerState, message_id: str, timestamp: int) -> Result:
    number = state[0] + 1
    turn_id = f"turn-{number}"
    request = _request(turn_id, message_id, timestamp)
    turn = tuple_of(_Turn, (turn_id, timestamp, ZERO_USAGE, 0.0, None, None, None))
    return (number, turn, state[2], state[3]), (request,)


def _on_user_message(state: TurnTrackerState, event: UserMessage) -> Result:
    if state[1] is not None:
        return state, ()
    return _begin(state, event.message_id, event.timestamp)


def _on_message_start(state: TurnTrackerState, event: MessageStart) -> Result:
    turn = state[1]
    if turn is not None and turn.call is not None:
        return state, ()  # a second message_start: the assembler reports it
    outputs: tuple[Any, ...] = ()
    if turn is None:
        state, outputs = _begin(state, event.message_id, event.timestamp)
        turn = state[1]
        assert turn is not None
    call = tuple_of(_Call, (event.model, ZERO_USAGE, None, False))
    return (state[0], tuple_of(_Turn, (*turn[:-1], call)), state[2], None), outputs


def _on_tool_start(state: TurnTrackerState, event: ToolUseStart) -> Result:
    turn = state[1]
    call = None if turn is None else turn.call
    if turn is None or call is None or call.used_tools:
        return state, ()
    call = tuple_of(_Call, (call.model, call.usage, call.stop_reason, True))
    return (state[0], tuple_of(_Turn, (*turn[:-1], call)), state[2], state[3]), ()


def _on_message_delta(state: TurnTrackerState, event: MessageDelta) -> Result:
    turn = state[1]
    if turn is None or turn.call is None:
        return state, ()
    call = turn.call
    stop_reason = call.stop_reason if event.stop_reason is None else event.stop_reason
    call = tuple_of(_Call, (call.model, event.usage, stop_reason, call.used_tools))
    return (state[0], tuple_of(_Turn, (*turn[:-1], call)), state[2], state[3]), ()


def _with_call_closed(
    state: TurnTrackerState, turn: _Turn, stop_reason: str | None = None
) -> tuple[_Turn, Closed | None]:
    """The turn with its open call's usage, cost, model and stop reason added
    (``stop_reason``, when given, overrides the call's), and the call's ``(cost,)`` (the
    state's ``closed`` when no call is open)."""
    call = turn.call
    if call is None:
        return turn, state[3]
    pricing = state[2]
    cost = None if pricing is None else _pricing.call_cost(call.usage, call.model, *pricing)
    closed = (
        turn.turn_id,
        turn.started_at,
        call.usage if turn.usage is ZERO_USAGE else turn.usage + call.usage,
        None if turn.cost is None or cost is None else turn.cost + cost,
        call.model,
        call.stop_reason if stop_reason is None else stop_reason,
        None,
    )
    return tuple_of(_Turn, closed), (cost,)


def _end(
    state: TurnTrackerState,
    turn: _Turn,
    closed: Closed | None,
    stop_reason: str | None,
    timestamp: int,
) -> Result:
    cost = None if state[2] is None else turn.cost
    response = _response(
        turn.turn_id,
        timestamp - turn.started_at,
        turn.usage,
        cost,
        turn.model,
        stop_reason,
        timestamp,
    )
    if cost is not None and not isfinite(cost):  # an infinite price: what the class refuses
        check_again(response)
    return (state[0], None, state[2], closed), (response,)


def _on_message_stop(state: TurnTrackerState, event: MessageStop) -> Result:
    turn = state[1]
    if turn is None or turn.call is None:
        return state, ()
    used_tools = turn.call.used_tools
    turn, closed = _with_call_closed(state, turn, event.stop_reason)
    if used_tools:
        return (state[0], turn, state[2], closed), ()
    return _end(state, turn, closed, turn.stop_reason, event.timestamp)


def _on_cut_short(state: TurnTrackerState, event: ErrorReceived | Interrupt) -> Result:
    turn = state[1]
    if turn is None:
        return state, ()
    reason = "error" if type(event) is ErrorReceived else "interrupted"
    turn, closed = _with_call_closed(state, turn)
    return _end(state, turn, closed, reason, event.timestamp)


def _on_close(state: TurnTrackerState, event: ConversationClose) -> Result:
    """The loop ended its run: a turn still open is dropped, silently (the run's
    ``agent_end``, its last output, reports the usage)."""
    return (state, ()) if state[1] is None else ((state[0], None, state[2], state[3]), ())


Handler: TypeAlias = Callable[[TurnTrackerState, Any], Result]

HANDLERS: Mapping[type[Any], Handler] = {
    UserMessage: _on_user_message,
    MessageStart: _on_message_start,
    ToolUseStart: _on_tool_start,
    MessageDelta: _on_message_delta,
    MessageStop: _on_message_stop,
    ErrorReceived: _on_cut_short,
    Interrupt: _on_cut_short,
    ConversationClose: _on_close,
}
"""Event class -> handler; every other event (deltas included) leaves the state as it is.
A handler takes an input whose fields passed their check (see the module docstring)."""


def turn_tracker_processor(state: TurnTrackerState, event: object) -> Result:
    """Track turns; never raises.

    Emits ``TurnRequest`` when a turn starts and ``TurnResponse`` (duration, summed usage,
    cost or ``None``, last model, stop reason: the model's, or ``error``/``interrupted``)
    when it ends.
    """
    handler = HANDLERS.get(type(event))
    if handler is None:
        return state, ()
    try:
        check_again(event)  # the handlers take its values as they are
        return handler(state, event)
    except (AttributeError, TypeError, ValueError):
        return state, ()  # malformed fields: the assembler reports them


def summary(state: TurnTrackerState) -> dict[str, Any]:
    """Turns started so far, and the open turn (id, usage so far, model) if any."""
    turn = state[1]
    current = None
    if turn is not None:
        current = {"turn_id": turn.turn_id, "usage": turn.usage, "model": turn.model}
    return {"turns": state[0], "open_turn": current, "priced": state[2] is not None}
