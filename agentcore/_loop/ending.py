"""How a run stops and ends (pure; the loop policy's, ``policy``): limits, aborts,
interrupts, deadlines and tripped guardrails stop a run (``stop``: what is in flight is
cancelled, and running tool calls are answered ``ABORTED`` here), and ``finish`` ends it
with a well-formed history: every open call answered, queued messages back in their
queues, ``conversation_close``, ``agent_end`` and ``Finish``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from .._core.content import Usage
from .._core.errors import ErrorCode
from .._core.events import EndReason, Interrupt
from . import elicitations, tool_calls
from .emitted import agent_end, conversation_close
from .emitted import finish as finish_effect
from .events import (
    AgentAbort,
    CancelModel,
    CancelTools,
    ClockTick,
    GuardrailTripped,
    RunEndReason,
    SetTimer,
)
from .state import LIMIT_HINT, LoopState, Run
from .tool_calls import spent, turn_end

if TYPE_CHECKING:
    from typing import NamedTuple
else:  # the class typing makes, at a fifth of its cost (records.py)
    from .._core.records import NamedTuple

Out: TypeAlias = list[Any]


PAUSES = ("approval", "elicitation")
"""Phases whose time does not count towards the run's deadline."""
_CALLING = frozenset(("model", "compacting"))
_CANCELLED = "The call was cancelled before it finished: the run was stopped."
"""The loop's answer to a running call it cancels (``stop``); the performer only cancels."""
_CLOSING: dict[RunEndReason, EndReason] = {
    "completed": "completed",
    "aborted": "interrupted",
    "error": "error",
}
"""How the core's conversation ends with a run (``conversation_close``)."""


_STAGES = {
    "input": "the input",
    "output": "the final answer",
    "tool_input": "a tool call's arguments",
    "tool_output": "a tool call's result",
}


def on_abort(s: LoopState, e: AgentAbort | Interrupt, ts: int, out: Out) -> LoopState:
    return stop(s, ErrorCode.ABORTED.value, f"the run was aborted ({e.reason})", ts, out)


def on_interrupt_call(s: LoopState, e: Interrupt, ts: int, out: Out) -> LoopState:
    """The stream of a model call ended by an interrupt."""
    run = s.run
    assert run is not None
    if run.stopping is not None:
        return end(s, ts, out)  # the cancelled call had no reply
    return on_abort(s, e, ts, out)


def on_tick(s: LoopState, e: ClockTick, ts: int, out: Out) -> LoopState:
    """Past the deadline, the run stops with ``TIMEOUT`` (pauses do not tick)."""
    run = s.run
    assert run is not None
    if run.deadline is None or ts < run.deadline:
        return s
    limit = run.limits.timeout_ms
    message = f"the run took longer than {limit} ms (timeout); {LIMIT_HINT}"
    return stop(s, ErrorCode.TIMEOUT.value, message, ts, out)


def on_guardrail(s: LoopState, e: GuardrailTripped, ts: int, out: Out) -> LoopState:
    where = _STAGES.get(e.stage, e.stage)
    message = f"guardrail {e.guardrail!r} tripped on {where}: {e.reason}"
    return stop(s, ErrorCode.GUARDRAIL_TRIPPED.value, message, ts, out)


def stop(s: LoopState, code: str, message: str, ts: int, out: Out) -> LoopState:
    """Begin ending the run: cancel what is in flight, or finish at once if nothing is."""
    run = s.run
    if run is None or run.stopping is not None:
        return s
    reason: RunEndReason = "aborted" if code == ErrorCode.ABORTED else "error"
    s = elicitations.cancel_all(s, ts, out)
    run = s.run
    assert run is not None
    if s.phase in _CALLING and not run.awaiting_error:
        out.append(CancelModel())
    elif s.phase == "tools" and s.batch is not None and s.batch.running:
        running = tuple(sorted(s.batch.running))
        out.append(CancelTools(running))
        tool_calls.answer_running(s, running, _CANCELLED, ErrorCode.ABORTED.value, ts, out)
        s = s.replace(cancelled=s.cancelled | frozenset(running))
    else:
        return finish(s, reason, code, message, ts, out)
    return s.with_run(run.replace(stopping=(reason, code, message, False)))


def end(s: LoopState, ts: int, out: Out) -> LoopState:
    """End a stopping run the way ``stop`` (or ``finish``) decided."""
    run = s.run
    assert run is not None and run.stopping is not None
    reason, code, message, retryable = run.stopping
    return finish(s, reason, code, message, ts, out, retryable=retryable)  # type: ignore[arg-type]


def finish(
    s: LoopState,
    reason: RunEndReason,
    code: str | None,
    message: str | None,
    ts: int,
    out: Out,
    *,
    retryable: bool = False,
    changes: dict[str, Any] | None = None,
) -> LoopState:
    """End the run with a well-formed history: every open tool call answered, unanswered
    queued messages back at the front of their queues, ``turn_end`` and ``agent_end``.
    ``changes``: the state's changes the caller decided and has not made yet; they are
    made with the end's, in one new state."""
    pending: dict[str, Any] = {} if changes is None else changes
    if pending and pending.get("batch", s.batch) is not None:
        s, pending = s.replace(**pending), {}
    run = pending.get("run", s.run)
    assert run is not None
    if reason == "aborted" and code == ErrorCode.TIMEOUT:
        reason = "error"
    if s.batch is not None:
        s = tool_calls.answer_unanswered(s, code or ErrorCode.ABORTED.value, message or "", ts, out)
        if s.batch is not None:  # answers are on their way back: the run ends when they land
            return s.replace(
                phase="tools",
                run=run.replace(stopping=(reason, code or "", message or "", retryable)),
            )
    elif run.turn_open:
        out.append(turn_end(s, run, (), ts))
    return close(s, reason, code, message, run, ts, out, retryable=retryable, changes=pending)


def close(
    s: LoopState,
    reason: RunEndReason,
    code: str | None,
    message: str | None,
    run: Run | Spent,
    ts: int,
    out: Out,
    *,
    retryable: bool = False,
    changes: dict[str, Any] | None = None,
) -> LoopState:
    """End a run whose calls are all answered and whose turn is closed (``finish``'s
    last step): the queued messages delivered for its open call (``run.inflight``) back
    at the front of their queues, ``conversation_close``, ``agent_end`` and ``Finish``
    with what it spent (``run.usage``, ``run.cost``: a ``Run``, or a ``Spent`` when the
    run ends with the step that would have made a new one). ``changes``: as ``finish``'s.
    """
    pending: dict[str, Any] = {} if changes is None else changes
    back = run.inflight
    if back:
        pending["steering"] = tuple(m for q, m in back if q == "steer") + pending.get(
            "steering", s.steering
        )
        pending["follow_ups"] = tuple(m for q, m in back if q == "follow_up") + pending.get(
            "follow_ups", s.follow_ups
        )
    cost = spent(s, run.cost)
    out.append(conversation_close(_CLOSING[reason], ts))
    out.append(agent_end(reason, code, message, run.usage, cost, ts))
    out.append(finish_effect(reason, code, message, run.usage, cost))
    error = None if code is None else (code, message or "", retryable)
    pending.update(phase="idle", run=None, batch=None, error=error, streaming=False)
    return s.replace(**pending)


class Spent(NamedTuple):
    """What a run spent and the messages still in flight for its open call: all
    ``close`` reads of a ``Run``."""

    usage: Usage
    cost: float
    inflight: tuple[tuple[str, Any], ...]


def arm(s: LoopState, out: Out) -> None:
    """Ask for a clock tick at the next time the loop has to act (retry, or deadline)."""
    run = s.run
    if run is None:
        return
    times = [
        t for t in (run.retry_at, None if s.phase in PAUSES else run.deadline) if t is not None
    ]
    if times:
        out.append(SetTimer(min(times)))
