"""Model calls of a run (pure; the loop policy's, ``policy``): queued messages entering
the conversation, the ``CallModel`` request, its charge (``model_usage``), a failed call
retried later or compacted and made again, a summary adopted, a cut-off reply
discarded."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from .._core import pricing
from .._core.content import ZERO_USAGE, Usage
from .._core.driver import ModelRequest
from .._core.errors import ErrorCode
from .._core.events import (
    AssistantMessage,
    ErrorReceived,
    MessageStart,
    ToolResult,
    ToolResultMessage,
    UserMessage,
)
from . import output
from .caching import issue_call
from .compacting import adopt_summary, compact
from .compaction import render_view
from .emitted import agent_message_end, agent_message_start, model_usage, turn_start
from .ending import arm, end, finish, on_tick, stop
from .events import (
    ClockTick,
    ContextSummary,
    ModelCallRetry,
)
from .state import LIMIT_HINT, Batch, LoopState, Run
from .tool_calls import spent

if TYPE_CHECKING:
    from typing import NamedTuple
else:  # the class typing makes, at a fifth of its cost (records.py)
    from .._core.records import NamedTuple

Out: TypeAlias = list[Any]


_INTERRUPTED = ErrorCode.INTERRUPTED.value
_OVERFLOW = ErrorCode.CONTEXT_OVERFLOW.value


Changes: TypeAlias = dict[str, Any]
"""Field changes of a ``Run`` or a ``LoopState`` not made yet: a handler gathers them and
builds each new state once (``replace``), not once per step of its decision."""


def _role(message: Any) -> str:
    if isinstance(message, AssistantMessage):
        return "assistant"
    if isinstance(message, ToolResultMessage):
        return "tool"
    return "user" if isinstance(message, UserMessage) else "custom"


def enter(message: Any, ts: int, out: Out) -> None:
    """A message enters the conversation: its lifecycle, and a user message for the core."""
    role = _role(message)
    out.append(agent_message_start(role, message, ts))
    out.append(agent_message_end(role, message, ts))
    if role == "user":
        out.append(message)


def call_model(
    s: LoopState,
    queue: str,
    ts: int,
    out: Out,
    changes: Changes | None = None,
    start: Callable[..., Run] | None = None,
) -> LoopState:
    """Deliver queued messages from ``queue`` (per its mode) and request a model call.
    ``changes``: the state's changes the caller decided and has not made yet (its
    ``messages``...); they are made with this call's, in one new state. ``start``: the
    constructor of the run this call is the first of (``_new_run``), given this call's
    fields, so a new run is built once."""
    pending: Changes = {} if changes is None else changes
    run = s.run
    if start is None:
        assert run is not None
        cap = run.limits.max_iterations
        if cap is not None and run.iterations >= cap:
            return finish(
                s.replace(**pending) if pending else s,
                "error",
                ErrorCode.MAX_ITERATIONS_EXCEEDED,
                f"stopped after {cap} model calls (max_iterations={cap}); {LIMIT_HINT}",
                ts,
                out,
            )
        iterations, turn, inflight = run.iterations + 1, run.turn + 1, run.inflight
    else:  # a run's first call: max_iterations is at least 1
        iterations, turn, inflight = 1, 1, ()
    steering = queue == "steer"
    field = "steering" if steering else "follow_ups"
    queued = pending.get(field, getattr(s, field))
    mode = s.config.steering_mode if steering else s.config.follow_up_mode
    taken = queued if mode == "all" else queued[:1]
    out.append(turn_start(turn, ts))
    for m in taken:
        enter(m, ts, out)
    if taken:
        inflight += tuple((queue, m) for m in taken)
    if start is not None:  # the other fields are a new run's defaults
        run = start(iterations=iterations, turn=turn, turn_open=True, inflight=inflight)
    else:
        assert run is not None
        run = run.replace(
            iterations=iterations,
            turn=turn,
            turn_open=True,
            inflight=inflight,
            awaiting_error=False,
            retries=0,
            step_usage=ZERO_USAGE,
            step_cost=0.0,
            overflowed=False,
        )
    pending.update(phase="model", run=run, streaming=False)
    pending[field] = queued[len(taken) :]
    s = s.replace(**pending)
    if s.config.compaction is not None:
        compacted = compact(s, ts, out, overflow=False)
        if compacted is not None:
            s = compacted
            if s.phase == "compacting":
                return s  # the call is made once the summary is in
    return issue_call(s, ts, out, _request)


def _request(s: LoopState) -> ModelRequest:
    """The request of the current model call: the history as the context view sends it,
    then the queued messages that were delivered for it, through the config's hooks."""
    run = s.run
    assert run is not None
    cfg = s.config
    history = s.messages if s.context is None else render_view(s.context, s.messages)
    context = tuple(cfg.convert_to_llm([*history, *(m for _, m in run.inflight)]))
    if cfg.transform_context is not None:
        context = tuple(cfg.transform_context(context))
    request = ModelRequest(
        context,
        cfg.system_prompt,
        cfg.tool_specs,
        cfg.model,
        cfg.thinking_level,
        cfg.max_output_tokens,
        cfg.temperature,
        provider_tools=cfg.provider_tools,
    )
    return request if run.output is None else output.shaped_request(request, run.output)


def call_again(s: LoopState, ts: int, out: Out) -> LoopState:
    """Issue the current model call again, with the same context (not a new iteration)."""
    run = s.run
    assert run is not None
    run = run.replace(awaiting_error=False, partial=None, retry_at=None)
    s = s.replace(phase="model", run=run, streaming=False)
    return issue_call(s, ts, out, _request)


def on_message_start(s: LoopState, e: MessageStart, ts: int, out: Out) -> LoopState:
    if s.streaming:
        return s
    out.append(agent_message_start("assistant", None, ts))
    return s.replace(streaming=True)


class PricedReply(NamedTuple):
    """A reply with the cost its call was already charged at: what a conversation feeds
    its loop instead of the bare ``assistant_message``, the cost being its core's turn
    tracker's (``call_closed``), so each model call is priced once (``charged``)."""

    message: AssistantMessage
    cost: float

    @property
    def timestamp(self) -> int:
        return self.message.timestamp


def charged(
    s: LoopState,
    usage: Usage,
    model: str,
    purpose: str,
    ts: int,
    out: Out,
    cost: float | None = None,
) -> tuple[Changes, Changes]:
    """A model call of the run used ``usage``: its ``model_usage``; returns the changes of
    the run (usage and cost added to the turn's and the run's) and of the state (the
    session's). ``cost`` is the call's price when it was already priced (a reply that went
    through the conversation's core); otherwise the call is priced here, by ``call_cost``
    at the configuration's prices (summaries, a loop run alone)."""
    run = s.run
    assert run is not None
    if cost is None:
        cost = pricing.call_cost(usage, model, s.config.price, s.config.prices) or 0.0
    out.append(model_usage(run.turn, model, usage, spent(s, cost), purpose, ts))
    return {
        "usage": _plus(run.usage, usage),
        "cost": run.cost + cost,
        "step_usage": _plus(run.step_usage, usage),
        "step_cost": run.step_cost + cost,
    }, {"usage": _plus(s.usage, usage), "cost": s.cost + cost}


def _plus(total: Usage, usage: Usage) -> Usage:
    """``total + usage``; ``usage`` itself when ``total`` is zero (a run's or a turn's
    first call: no new ``Usage`` to build)."""
    return usage if total is ZERO_USAGE else total + usage


def charge(s: LoopState, usage: Usage, model: str, purpose: str, ts: int, out: Out) -> LoopState:
    """``s`` with a model call charged (``charged``)."""
    run_changes, changes = charged(s, usage, model, purpose, ts, out)
    return s.replace(run=s.run.replace(**run_changes), **changes)  # type: ignore[union-attr]


def kept(s: LoopState, e: AssistantMessage) -> tuple[Changes, Changes]:
    """The reply joins the history (after the queued messages delivered for its call),
    and its tool calls become the batch: the changes of the run and of the state."""
    run = s.run
    assert run is not None
    messages, inflight = s.messages, run.inflight
    if inflight and (e.parts or not e.incomplete):
        messages, inflight = messages.extend(m for _, m in inflight), ()
    if e.parts:
        messages = messages.append(e)
    calls = e.tool_calls if e.parts else ()
    batch = Batch.of(calls) if calls else None
    return {"inflight": inflight, "partial": None}, {"messages": messages, "batch": batch}


def keep_reply(s: LoopState, e: AssistantMessage) -> LoopState:
    """``s`` with the reply kept (``kept``)."""
    run_changes, changes = kept(s, e)
    return s.replace(run=s.run.replace(**run_changes), **changes)  # type: ignore[union-attr]


def discard(run: Run, reply: AssistantMessage, why: str, ts: int, out: Out) -> Run:
    """Drop a cut-off ``reply`` from the run: it is not history, and its tool calls are
    answered (so the core stops waiting for them) with results nobody records."""
    ids = []
    for call in reply.tool_calls:
        text = f"Not run: {why}."
        out.append(
            ToolResult(call.tool_call_id, text, True, {"error_code": _INTERRUPTED}, timestamp=ts)
        )
        ids.append(call.tool_call_id)
    return run.replace(discarded=run.discarded | frozenset(ids)) if ids else run


def on_error(s: LoopState, e: ErrorReceived, ts: int, out: Out) -> LoopState:
    run = s.run
    assert run is not None
    partial = run.partial
    run = run.replace(partial=None, awaiting_error=False)
    s = s.with_run(run)
    if e.code == _OVERFLOW and run.stopping is None and not run.overflowed:
        compacted = _compact_for_overflow(s, e, partial, ts, out)
        if compacted is not None:
            return compacted
    if run.stopping is None and e.retryable and run.retries < s.config.model_retries:
        return _retry_later(s, e, partial, ts, out)
    if partial is not None:
        s = keep_reply(s, partial)
    if run.stopping is not None:
        return end(s, ts, out)
    return finish(s, "error", e.code, e.message, ts, out, retryable=e.retryable)


def on_error_elsewhere(s: LoopState, e: ErrorReceived, ts: int, out: Out) -> LoopState:
    """An error while no model call is open (a tool's, the runtime's): the run stops."""
    run = s.run
    assert run is not None
    s = s.with_run(run.replace(partial=None, awaiting_error=False))
    return stop(s, e.code, e.message, ts, out)


def _compact_for_overflow(
    s: LoopState, e: ErrorReceived, partial: AssistantMessage | None, ts: int, out: Out
) -> LoopState | None:
    """The provider refused the context: compact it and make the call once more (``None``
    when there is no compaction, or nothing left to compact)."""
    if s.config.compaction is None:
        return None
    run = s.run
    assert run is not None
    tried = s.with_run(run.replace(overflowed=True))
    compacted = compact(tried, ts, out, overflow=True)
    if compacted is None:
        return None
    if partial is not None:
        why = f"the context was too long ({e.code}); it was compacted and the call is made again"
        compacted = compacted.with_run(discard(compacted.run, partial, why, ts, out))  # type: ignore[arg-type]
    return compacted if compacted.phase == "compacting" else call_again(compacted, ts, out)


def on_summary(s: LoopState, e: ContextSummary, ts: int, out: Out) -> LoopState:
    """The summary a compaction asked for: adopt it and make the model call; a failed (or
    empty) one ends the run with its error."""
    run = s.run
    assert run is not None
    if run.summary is None:
        return s  # the answer to a summary whose compaction is over
    s = charge(s, e.usage, e.model, "summary", ts, out)
    if run.stopping is not None:
        return end(s, ts, out)
    if e.code is not None or not e.summary.strip():
        code = e.code or ErrorCode.PROVIDER_ERROR.value
        why = e.message or "the model's summary was empty"
        s = s.with_run(s.run.replace(summary=None))  # type: ignore[union-attr]
        message = f"compacting the context failed: {why}"
        return finish(s, "error", code, message, ts, out, retryable=e.retryable)
    return call_again(adopt_summary(s, e, ts, out), ts, out)


def _retry_later(
    s: LoopState, e: ErrorReceived, partial: AssistantMessage | None, ts: int, out: Out
) -> LoopState:
    """Schedule the failed call again after an exponential delay; the partial reply (if
    any) was delivered as incomplete and stays out of the history."""
    run = s.run
    assert run is not None
    attempt = run.retries + 1
    delay = s.config.retry_delay_ms * 2 ** (attempt - 1)
    out.append(ModelCallRetry(attempt, delay, e.code, e.message, timestamp=ts))
    run = run.replace(retries=attempt, retry_at=ts + delay)
    if partial is not None:
        run = discard(run, partial, f"the model call failed ({e.code}) and is retried", ts, out)
    s = s.replace(phase="waiting", run=run, streaming=False)
    arm(s, out)
    return s


def on_retry_tick(s: LoopState, e: ClockTick, ts: int, out: Out) -> LoopState:
    """A failed call waits: issue it again once its time has come."""
    run = s.run
    assert run is not None
    if run.retry_at is not None and ts >= run.retry_at:
        s = call_again(s, ts, out)
        arm(s, out)
        return s
    return on_tick(s, e, ts, out)
