"""The agent loop as a pure processor: ``loop_processor(state, event) -> (state, outputs)``.

Every decision of an agent run is made here: when to call the model and with what
context, which tool calls run (grouped for parallel or sequential execution), which are
answered at once with an error (unknown tool, invalid arguments, skipped by steering,
rejected), when queued steering and follow-up messages are delivered, when a limit ends
the run and with which error code. The async runtime performs the effect requests this
emits and feeds their results back as events.

No clock, randomness, logging or I/O: times come from event timestamps; outputs are
stamped with the timestamp of the event that caused them. Hooks in ``LoopConfig`` must be
pure too. See docs/loop.md for the transition table.

Emits: ``agent_start``, ``turn_start``, ``agent_message_start/update/end``,
``tool_execution_start/update/end``, ``tool_approval_required``, ``turn_end``,
``agent_end``, ``error_message`` (for events that do not fit the current phase), and the
effect requests of ``_loop_events``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from .._core.content import ToolCallPart
from .._core.driver import ModelRequest
from .._core.errors import ErrorCode
from .._core.events import (
    AssistantMessage,
    ErrorMessage,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    UserMessage,
)
from .._core.pricing import cost_of
from .events import (
    AgentAbort,
    AgentContinue,
    AgentEnd,
    AgentFollowUp,
    AgentMessageEnd,
    AgentMessageStart,
    AgentMessageUpdate,
    AgentPrompt,
    AgentStart,
    AgentSteer,
    AwaitApproval,
    CallModel,
    CancelModel,
    CancelTools,
    ClockTick,
    ExecuteTools,
    Finish,
    RunEndReason,
    SetDeadline,
    ToolApproval,
    ToolApprovalRequired,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolProgress,
    TurnEnd,
    TurnStart,
)
from .state import Batch, LoopState, Run

__all__ = ["loop_processor"]

Out: TypeAlias = list[Any]


def loop_processor(state: LoopState, event: Any) -> tuple[LoopState, tuple[Any, ...]]:
    """Fold one input event into the loop state; return the new state and the outputs.

    Events that do not fit the current phase (a prompt while a run is active, a tool
    result nobody is waiting for) leave the state unchanged and emit one ``error_message``
    with code ``AGENT_BUSY`` or ``PROTOCOL_ERROR``. Stream deltas outside a model call are
    ignored (late arrivals after an abort).
    """
    handler = _HANDLERS.get(type(event))
    if handler is None:
        return state, (_rejected(f"the agent loop does not accept {type(event).__name__}", event),)
    out: Out = []
    new = handler(state, event, event.timestamp, out)
    return new, tuple(out)


def _rejected(message: str, event: Any, code: ErrorCode = ErrorCode.PROTOCOL_ERROR) -> Any:
    return ErrorMessage(message, code.value, timestamp=getattr(event, "timestamp", 0))


# -- starting and continuing runs ----------------------------------------------------------


def _on_prompt(s: LoopState, e: AgentPrompt, ts: int, out: Out) -> LoopState:
    if s.phase != "idle":
        out.append(_busy(s, e))
        return s
    s = _start_run(s, e, ts, out)
    for m in e.messages:
        out.append(AgentMessageStart(_role(m), m, timestamp=ts))
        out.append(AgentMessageEnd(_role(m), m, timestamp=ts))
    s = s.replace(messages=s.messages.extend(e.messages))
    return _call_model(s, "steer", ts, out)


def _on_continue(s: LoopState, e: AgentContinue, ts: int, out: Out) -> LoopState:
    if s.phase != "idle":
        out.append(_busy(s, e))
        return s
    last_is_reply = bool(s.messages) and isinstance(s.messages[-1], AssistantMessage)
    if not s.messages or (last_is_reply and not s.steering and not s.follow_ups):
        out.append(
            _rejected(
                "cannot continue: the conversation is empty or ends with the assistant's "
                "reply; prompt, steer or follow up first",
                e,
            )
        )
        return s
    s = _start_run(s, e, ts, out)
    queue = "follow_up" if last_is_reply and not s.steering else "steer"
    return _call_model(s, queue, ts, out)


def _busy(s: LoopState, e: Any) -> Any:
    what = "waiting for tool approval" if s.phase == "approval" else "running"
    return _rejected(
        f"the agent is {what}; use steer() or follow_up() to add a message", e, ErrorCode.AGENT_BUSY
    )


def _start_run(s: LoopState, e: AgentPrompt | AgentContinue, ts: int, out: Out) -> LoopState:
    limits = s.config.limits.override(
        max_iterations=e.max_iterations,
        max_tokens=e.max_tokens,
        max_cost=e.max_cost,
        timeout_ms=e.timeout_ms,
    )
    deadline = None if limits.timeout_ms is None else ts + limits.timeout_ms
    out.append(AgentStart(timestamp=ts))
    if deadline is not None:
        out.append(SetDeadline(deadline))
    return s.replace(run=Run(limits, ts, deadline), error=None)


def _role(message: Any) -> str:
    if isinstance(message, AssistantMessage):
        return "assistant"
    if isinstance(message, ToolResultMessage):
        return "tool"
    return "user" if isinstance(message, UserMessage) else "custom"


# -- model calls ----------------------------------------------------------------------------


def _call_model(s: LoopState, queue: str, ts: int, out: Out) -> LoopState:
    """Deliver queued messages from ``queue`` (per its mode) and request a model call."""
    run = s.run
    assert run is not None
    cap = run.limits.max_iterations
    if cap is not None and run.iterations >= cap:
        return _finish(
            s,
            "error",
            ErrorCode.MAX_ITERATIONS_EXCEEDED,
            f"stopped after {cap} model calls (max_iterations={cap}); raise the limit or "
            "continue_() to go on",
            ts,
            out,
        )
    steering = queue == "steer"
    pending = s.steering if steering else s.follow_ups
    mode = s.config.steering_mode if steering else s.config.follow_up_mode
    taken = pending if mode == "all" else pending[:1]
    rest = pending[len(taken) :]
    turn = run.turn + 1
    out.append(TurnStart(turn, timestamp=ts))
    for m in taken:
        out.append(AgentMessageStart(_role(m), m, timestamp=ts))
        out.append(AgentMessageEnd(_role(m), m, timestamp=ts))
    inflight = run.inflight + tuple((queue, m) for m in taken)
    cfg = s.config
    context = tuple(cfg.convert_to_llm([*s.messages, *(m for _, m in inflight)]))
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
    )
    out.append(CallModel(request))
    run = run.replace(
        iterations=run.iterations + 1,
        turn=turn,
        turn_open=True,
        inflight=inflight,
        streaming=False,
        awaiting_error=False,
    )
    if steering:
        return s.replace(phase="model", run=run, steering=rest)
    return s.replace(phase="model", run=run, follow_ups=rest)


def _on_message_start(s: LoopState, e: MessageStart, ts: int, out: Out) -> LoopState:
    if s.phase != "model" or s.run is None:
        return s
    out.append(AgentMessageStart("assistant", None, timestamp=ts))
    return s.with_run(s.run.replace(streaming=True))


def _on_delta(s: LoopState, e: Any, ts: int, out: Out) -> LoopState:
    if s.phase == "model":
        out.append(AgentMessageUpdate(e, timestamp=ts))
    return s


def _on_assistant(s: LoopState, e: AssistantMessage, ts: int, out: Out) -> LoopState:
    run = s.run
    if s.phase != "model" or run is None or run.awaiting_error:
        out.append(_rejected("an assistant message arrived while no model call was open", e))
        return s
    if not run.streaming:
        out.append(AgentMessageStart("assistant", None, timestamp=ts))
    out.append(AgentMessageEnd("assistant", e, timestamp=ts))
    messages = s.messages
    inflight = run.inflight
    if e.parts or not e.incomplete:
        messages = messages.extend(m for _, m in inflight)
        inflight = ()
    if e.parts:
        messages = messages.append(e)
    usage = run.usage + e.usage
    price = s.config.price
    cost = run.cost + (cost_of(e.usage, price) if price is not None else 0.0)
    run = run.replace(usage=usage, cost=cost, inflight=inflight, streaming=False)
    calls = e.tool_calls if e.parts else ()
    s = s.replace(messages=messages, run=run, batch=Batch.of(calls) if calls else None)
    if run.stopping is not None:
        return _finish(s, "aborted", *run.stopping, ts, out)
    if e.incomplete and e.stop_reason == "error":
        return s.with_run(run.replace(awaiting_error=True))
    if e.incomplete:
        return _finish(s, "aborted", ErrorCode.ABORTED, "the model call was interrupted", ts, out)
    limits = run.limits
    if limits.max_tokens is not None and usage.total_tokens > limits.max_tokens:
        message = f"used {usage.total_tokens} tokens (max_tokens={limits.max_tokens})"
        return _finish(s, "error", ErrorCode.MAX_TOKENS_EXCEEDED, message, ts, out)
    if limits.max_cost is not None and cost > limits.max_cost:
        message = f"spent ${cost:.6f} (max_cost=${limits.max_cost})"
        return _finish(s, "error", ErrorCode.MAX_COST_EXCEEDED, message, ts, out)
    if calls:
        return _plan_batch(s, calls, ts, out)
    out.append(TurnEnd(run.turn, timestamp=ts))
    s = s.with_run(run.replace(turn_open=False))
    if s.steering:
        return _call_model(s, "steer", ts, out)
    if s.follow_ups:
        return _call_model(s, "follow_up", ts, out)
    return _finish(s, "completed", None, None, ts, out)


def _on_error(s: LoopState, e: ErrorReceived, ts: int, out: Out) -> LoopState:
    run = s.run
    if run is None:
        out.append(_rejected(f"error outside a run: {e.message}", e))
        return s
    if run.stopping is not None and s.phase == "model":
        return _finish(s, "aborted", *run.stopping, ts, out)
    code = e.code if e.code in ErrorCode.__members__ else ErrorCode.PROVIDER_ERROR.value
    if s.phase == "model":
        return _finish(s, "error", code, e.message, ts, out)
    return _stop(s, code, e.message, ts, out)


# -- tool calls -----------------------------------------------------------------------------


def _plan_batch(s: LoopState, calls: tuple[ToolCallPart, ...], ts: int, out: Out) -> LoopState:
    """Answer what can be answered now; queue approvals; group the runnable calls."""
    tools = s.config.tools_by_name
    batch = s.batch
    assert batch is not None
    results: dict[str, ToolResultMessage] = {}
    runnable: list[ToolCallPart] = []
    pending: list[ToolCallPart] = []
    for call in calls:
        tool = tools.get(call.tool_name)
        if tool is None:
            known = ", ".join(sorted(tools)) or "none"
            text = f"Unknown tool {call.tool_name!r}; available tools: {known}."
            results[call.tool_call_id] = _answer(call, text, ErrorCode.TOOL_NOT_FOUND, ts, out)
        elif call.input_error is not None:
            text = (
                f"Invalid arguments for tool {call.tool_name!r}; the call was not executed: "
                f"{call.input_error}\nYou sent: {call.raw_input}"
            )
            results[call.tool_call_id] = _answer(
                call, text, ErrorCode.TOOL_VALIDATION_ERROR, ts, out
            )
        elif errors := tool.validation_errors(call.input):
            text = tool.invalid_arguments_message(call.input, errors)
            results[call.tool_call_id] = _answer(
                call, text, ErrorCode.TOOL_VALIDATION_ERROR, ts, out
            )
        elif tool.requires_approval:
            pending.append(call)
            runnable.append(call)
        else:
            runnable.append(call)
    batch = batch.replace(
        results=batch.answered(results),
        runnable=tuple(runnable),
        pending=tuple(c.tool_call_id for c in pending),
    )
    s = s.replace(phase="tools", batch=batch)
    if pending:
        out.append(ToolApprovalRequired(tuple(pending), timestamp=ts))
        out.append(AwaitApproval(tuple(pending)))
        run = s.run
        assert run is not None
        return s.replace(phase="approval", run=run.replace(paused_at=ts))
    return _next_group(_grouped(s), ts, out)


def _grouped(s: LoopState) -> LoopState:
    """Split the runnable calls into groups: parallel runs of calls, sequential ones alone."""
    batch = s.batch
    assert batch is not None
    sequential_all = s.config.tool_execution == "sequential"
    tools = s.config.tools_by_name
    groups: list[tuple[ToolCallPart, ...]] = []
    current: list[ToolCallPart] = []
    for call in batch.runnable:
        if sequential_all or tools[call.tool_name].sequential:
            if current:
                groups.append(tuple(current))
                current = []
            groups.append((call,))
        else:
            current.append(call)
    if current:
        groups.append(tuple(current))
    return s.with_batch(batch.replace(groups=tuple(groups), runnable=()))


def _answer(
    call: ToolCallPart, text: str, code: ErrorCode | str, ts: int, out: Out
) -> ToolResultMessage:
    """An error result for a call that is not run; emits its start and end."""
    out.append(
        ToolExecutionStart(call.tool_call_id, call.tool_name, dict(call.input), timestamp=ts)
    )
    result = ToolResultMessage(
        call.tool_call_id, call.tool_name, text, True, {"error_code": str(code)}, timestamp=ts
    )
    out.append(ToolExecutionEnd(call.tool_call_id, call.tool_name, result, True, timestamp=ts))
    return result


def _next_group(s: LoopState, ts: int, out: Out) -> LoopState:
    batch = s.batch
    assert batch is not None
    if batch.groups and s.steering and s.config.steering_policy == "skip":
        results: dict[str, ToolResultMessage] = {}
        for group in batch.groups:
            for call in group:
                text = (
                    f"Skipped: the user sent a new message before this call to "
                    f"{call.tool_name!r} started, so it was not executed."
                )
                results[call.tool_call_id] = _answer(call, text, "SKIPPED_BY_STEERING", ts, out)
        batch = batch.replace(results=batch.answered(results), groups=())
    if batch.groups:
        group, rest = batch.groups[0], batch.groups[1:]
        for call in group:
            out.append(
                ToolExecutionStart(
                    call.tool_call_id, call.tool_name, dict(call.input), timestamp=ts
                )
            )
        out.append(ExecuteTools(group, parallel=len(group) > 1))
        running = frozenset(c.tool_call_id for c in group)
        return s.with_batch(batch.replace(groups=rest, running=running))
    s = _close_batch(s.with_batch(batch), ts, out)
    return _call_model(s, "steer", ts, out)


def _close_batch(s: LoopState, ts: int, out: Out) -> LoopState:
    """Append every result in the order the model asked and end the turn."""
    batch, run = s.batch, s.run
    assert batch is not None and run is not None
    ordered = tuple(_must(batch.result_of(c.tool_call_id)) for c in batch.calls)
    for r in ordered:
        out.append(AgentMessageStart("tool", r, timestamp=ts))
        out.append(AgentMessageEnd("tool", r, timestamp=ts))
    out.append(TurnEnd(run.turn, ordered, timestamp=ts))
    return s.replace(
        messages=s.messages.extend(ordered),
        batch=None,
        run=run.replace(turn_open=False),
    )


def _must(result: ToolResultMessage | None) -> ToolResultMessage:
    assert result is not None, "a batch closed with an unanswered call"
    return result


def _on_tool_result(s: LoopState, e: ToolResult, ts: int, out: Out) -> LoopState:
    batch = s.batch
    call_id = e.tool_call_id
    if batch is None or call_id not in batch.running:
        out.append(_rejected(f"no running tool call has id {call_id!r}", e))
        return s
    name = batch.name_of(call_id)
    result = ToolResultMessage(call_id, name, e.result, e.is_error, e.details, timestamp=ts)
    out.append(ToolExecutionEnd(call_id, name, result, e.is_error, timestamp=ts))
    batch = batch.answer(call_id, result)
    s = s.with_batch(batch)
    if batch.running:
        return s
    assert s.run is not None
    if s.run.stopping is not None:
        return _finish(s, "aborted", *s.run.stopping, ts, out)
    return _next_group(s, ts, out)


def _on_progress(s: LoopState, e: ToolProgress, ts: int, out: Out) -> LoopState:
    batch = s.batch
    if batch is not None and e.tool_call_id in batch.running:
        name = batch.name_of(e.tool_call_id)
        out.append(ToolExecutionUpdate(e.tool_call_id, name, e.progress, timestamp=ts))
    return s


def _on_approval(s: LoopState, e: ToolApproval, ts: int, out: Out) -> LoopState:
    batch, run = s.batch, s.run
    if s.phase != "approval" or batch is None or run is None or e.tool_call_id not in batch.pending:
        out.append(_rejected(f"no tool call with id {e.tool_call_id!r} awaits approval", e))
        return s
    decisions = {**batch.decisions, e.tool_call_id: (e.approved, e.reason)}
    batch = batch.replace(decisions=decisions)
    if len(decisions) < len(batch.pending):
        return s.with_batch(batch)
    results: dict[str, ToolResultMessage] = {}
    runnable = []
    for call in batch.runnable:
        approved, reason = decisions.get(call.tool_call_id, (True, None))
        if approved:
            runnable.append(call)
        else:
            why = f": {reason}" if reason else "."
            text = f"The user rejected this call to {call.tool_name!r}{why} It was not executed."
            results[call.tool_call_id] = _answer(call, text, "REJECTED", ts, out)
    batch = batch.replace(
        results=batch.answered(results), runnable=tuple(runnable), pending=(), decisions={}
    )
    deadline = run.deadline
    if deadline is not None and run.paused_at is not None:
        deadline += ts - run.paused_at
        out.append(SetDeadline(deadline))
    run = run.replace(deadline=deadline, paused_at=None)
    s = s.replace(phase="tools", batch=batch, run=run)
    return _next_group(_grouped(s), ts, out)


# -- queues, aborts, limits -----------------------------------------------------------------


def _on_steer(s: LoopState, e: AgentSteer, ts: int, out: Out) -> LoopState:
    return s.replace(steering=(*s.steering, e.message))


def _on_follow_up(s: LoopState, e: AgentFollowUp, ts: int, out: Out) -> LoopState:
    return s.replace(follow_ups=(*s.follow_ups, e.message))


def _on_abort(s: LoopState, e: AgentAbort | Interrupt, ts: int, out: Out) -> LoopState:
    return _stop(s, ErrorCode.ABORTED.value, f"the run was aborted ({e.reason})", ts, out)


def _on_tick(s: LoopState, e: ClockTick, ts: int, out: Out) -> LoopState:
    run = s.run
    if run is None or run.deadline is None or ts < run.deadline or s.phase == "approval":
        return s
    limit = run.limits.timeout_ms
    return _stop(s, ErrorCode.TIMEOUT.value, f"the run took longer than {limit} ms", ts, out)


def _stop(s: LoopState, code: str, message: str, ts: int, out: Out) -> LoopState:
    """Begin ending the run: cancel what is in flight, or finish at once if nothing is."""
    run = s.run
    if run is None or run.stopping is not None:
        return s
    reason: RunEndReason = "aborted" if code == ErrorCode.ABORTED else "error"
    if s.phase == "model" and not run.awaiting_error:
        out.append(CancelModel())
    elif s.phase == "tools" and s.batch is not None and s.batch.running:
        out.append(CancelTools(tuple(sorted(s.batch.running))))
    else:
        return _finish(s, reason, code, message, ts, out)
    return s.with_run(run.replace(stopping=(code, message)))


def _finish(
    s: LoopState, reason: RunEndReason, code: str | None, message: str | None, ts: int, out: Out
) -> LoopState:
    """End the run with a well-formed history: every open tool call answered, unanswered
    queued messages back at the front of their queues, ``turn_end`` and ``agent_end``."""
    run = s.run
    assert run is not None
    if reason == "aborted" and code == ErrorCode.TIMEOUT:
        reason = "error"
    batch = s.batch
    if batch is not None:
        results: dict[str, ToolResultMessage] = {}
        for call in batch.calls:
            if call.tool_call_id not in results and batch.result_of(call.tool_call_id) is None:
                text = (
                    f"The call to {call.tool_name!r} was not completed: "
                    f"the run ended ({code}: {message})."
                )
                results[call.tool_call_id] = _answer(call, text, code or "ABORTED", ts, out)
        s = _close_batch(s.with_batch(batch.replace(results=batch.answered(results))), ts, out)
    elif run.turn_open:
        out.append(TurnEnd(run.turn, timestamp=ts))
    back = run.inflight
    steering = tuple(m for q, m in back if q == "steer") + s.steering
    follow_ups = tuple(m for q, m in back if q == "follow_up") + s.follow_ups
    out.append(AgentEnd(reason, code, message, timestamp=ts))
    out.append(Finish(reason, code, message))
    error = None if code is None else (code, message or "")
    return s.replace(
        phase="idle",
        run=None,
        batch=None,
        steering=steering,
        follow_ups=follow_ups,
        error=error,
    )


_Handler: TypeAlias = Callable[[LoopState, Any, int, Out], LoopState]

_HANDLERS: dict[type[Any], _Handler] = {
    AgentPrompt: _on_prompt,
    AgentContinue: _on_continue,
    AgentSteer: _on_steer,
    AgentFollowUp: _on_follow_up,
    AgentAbort: _on_abort,
    Interrupt: _on_abort,
    ClockTick: _on_tick,
    ToolApproval: _on_approval,
    ToolProgress: _on_progress,
    ToolResult: _on_tool_result,
    MessageStart: _on_message_start,
    TextDelta: _on_delta,
    ThinkingDelta: _on_delta,
    ToolUseStart: _on_delta,
    InputJsonDelta: _on_delta,
    ToolUseStop: _on_delta,
    MessageDelta: _on_delta,
    MessageStop: _on_delta,
    AssistantMessage: _on_assistant,
    ErrorReceived: _on_error,
}
