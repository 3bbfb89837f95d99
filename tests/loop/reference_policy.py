"""The loop policy as it was before the phase table (commit 3d0d8f9), kept verbatim as
the oracle of tests/loop/test_phase_table.py: the table must accept, reject and ignore
exactly what this dispatch did. Not used by the library. The changes: the phase checks
that ``tool_calls.on_approval`` and ``elicitations.on_request`` made are made here (the
table owns them now), and ``rejected`` gives the ``error_message`` alone, as it did.
Since then, one change of behaviour is made here too: the loop answers the running calls
it cancels (``_stop``), takes a ``tool_result`` input first (``_admit``) and records the
core's ``tool_result_message``; and ``tool_calls.plan`` is given the reply's batch, as it
takes it now.

It imports the private modules ``agentcore._loop`` and ``agentcore._core``, as the policy
did: a test's oracle, kept verbatim."""

# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeAlias

from pyrsistent import pvector

from agentcore._core.content import Usage
from agentcore._core.driver import ModelRequest, OutputSpec
from agentcore._core.errors import ErrorCode
from agentcore._core.events import (
    AssistantMessage,
    ConversationClose,
    EndReason,
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
from agentcore._core.pricing import call_cost
from agentcore._loop import elicitations, output, tool_calls
from agentcore._loop.compacting import adopt_summary, compact, summarise
from agentcore._loop.compaction import render_view
from agentcore._loop.events import (
    AgentAbort,
    AgentConfigured,
    AgentContinue,
    AgentEnd,
    AgentFollowUp,
    AgentMessageEnd,
    AgentMessageStart,
    AgentOutput,
    AgentPrompt,
    AgentReset,
    AgentResume,
    AgentStart,
    AgentSteer,
    AwaitApproval,
    CallModel,
    CancelModel,
    CancelTools,
    CheckOutput,
    ClockTick,
    ContextSummary,
    ElicitationAnswer,
    ElicitationRequest,
    Finish,
    GuardrailTripped,
    ModelCallRetry,
    ModelUsage,
    OutputPassed,
    OutputRetry,
    RunEndReason,
    SetTimer,
    ToolApproval,
    ToolExecutionStart,
    ToolProgress,
    TurnStart,
)
from agentcore._loop.state import Batch, LoopState, Run
from agentcore._loop.tool_calls import rejected as _refusal, spent, turn_end


def rejected(*args: Any) -> Any:
    return _refusal(*args)[0]  # the error_message (input_rejected came later)


__all__ = ["LIMIT_HINT", "loop_processor"]

LIMIT_HINT = "raise the limit or continue_() to go on"
"""How to go on after a run stopped at a limit; the end of every limit's message."""

Out: TypeAlias = list[Any]

_DELTAS = frozenset(
    (TextDelta, ThinkingDelta, ToolUseStart, InputJsonDelta, ToolUseStop, MessageDelta, MessageStop)
)
_INTERRUPTED = ErrorCode.INTERRUPTED.value
_PAUSES = ("approval", "elicitation")
"""Phases whose time does not count towards the run's deadline."""
_OVERFLOW = ErrorCode.CONTEXT_OVERFLOW.value
_CALLING = frozenset(("model", "compacting"))
_CLOSING: dict[RunEndReason, EndReason] = {
    "completed": "completed",
    "aborted": "interrupted",
    "error": "error",
}
"""How the core's conversation ends with a run (``conversation_close``)."""


def loop_processor(state: LoopState, event: Any) -> tuple[LoopState, tuple[Any, ...]]:
    """Fold one input event into the loop state; return the new state and the outputs.

    Stream deltas are the core's to assemble: the loop decides on the assembled message,
    and ignores them. Events that do not fit the current phase of a run leave the state
    unchanged and emit one ``error_message`` with code ``AGENT_BUSY`` or ``PROTOCOL_ERROR``.
    """
    cls = type(event)
    if cls in _DELTAS:
        return state, ()
    handler = _HANDLERS.get(cls)
    if handler is None:
        return state, (rejected(f"the agent loop does not accept {cls.__name__}", event),)
    out: Out = []
    new = handler(state, event, event.timestamp, out)
    return new, tuple(out)


# -- starting and continuing runs ----------------------------------------------------------


def _on_prompt(s: LoopState, e: AgentPrompt, ts: int, out: Out) -> LoopState:
    if s.phase != "idle":
        out.append(_busy(s, e))
        return s
    # Steering left by a run that ended before taking it (it failed, hit a limit, was
    # aborted) was typed before this prompt: it enters first, in the order of typing.
    # (Steering sent while idle otherwise goes with the prompt's first model call.)
    left = s.steering if s.error is not None else ()
    s = _start_run(s, e, ts, out)
    entering = (*left, *e.messages)
    for m in entering:
        _enter(m, ts, out)
    s = s.replace(messages=s.messages.extend(entering), steering=s.steering[len(left) :])
    return _call_model(s, "steer", ts, out)


def _on_continue(s: LoopState, e: AgentContinue, ts: int, out: Out) -> LoopState:
    if s.phase != "idle":
        out.append(_busy(s, e))
        return s
    messages = s.messages
    if messages and _cut_off_reply(messages[-1]):
        messages = messages.delete(len(messages) - 1)  # asked again from before it
    last_is_reply = bool(messages) and isinstance(messages[-1], AssistantMessage)
    if not messages or (last_is_reply and not s.steering and not s.follow_ups):
        out.append(
            rejected(
                "cannot continue: the conversation is empty or ends with the assistant's "
                "reply; prompt, steer or follow up first",
                e,
            )
        )
        return s
    s = _start_run(s.replace(messages=messages), e, ts, out)
    queue = "follow_up" if last_is_reply and not s.steering else "steer"
    return _call_model(s, queue, ts, out)


def _cut_off_reply(message: Any) -> bool:
    """A reply an error or an abort cut off before it asked for any tool."""
    return isinstance(message, AssistantMessage) and message.incomplete and not message.tool_calls


def _busy(s: LoopState, e: Any) -> Any:
    if s.phase == "approval":
        batch = s.batch
        waiting = [] if batch is None else [i for i in batch.pending if i not in batch.decisions]
        what = f"waiting for tool approval: approve() or reject() {waiting}, or abort()"
    elif s.phase == "elicitation" and s.run is not None:
        waiting = [p.elicitation_id for p in s.run.elicitations]
        what = f"waiting for the user: answer_elicitation() {waiting}, or abort()"
    else:
        what = (
            "running: use steer(msg) to redirect it now, or follow_up(msg) to queue a "
            "message for when it finishes"
        )
    return rejected(f"the agent is {what}", e, ErrorCode.AGENT_BUSY)


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
        out.append(SetTimer(deadline))
    spec = e.output if type(e) is AgentPrompt else None
    return s.replace(run=Run(limits, ts, deadline, output=spec), error=None)


def _role(message: Any) -> str:
    if isinstance(message, AssistantMessage):
        return "assistant"
    if isinstance(message, ToolResultMessage):
        return "tool"
    return "user" if isinstance(message, UserMessage) else "custom"


def _enter(message: Any, ts: int, out: Out) -> None:
    """A message enters the conversation: its lifecycle, and a user message for the core."""
    role = _role(message)
    out.append(AgentMessageStart(role, message, timestamp=ts))
    out.append(AgentMessageEnd(role, message, timestamp=ts))
    if role == "user":
        out.append(message)


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
            f"stopped after {cap} model calls (max_iterations={cap}); {LIMIT_HINT}",
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
        _enter(m, ts, out)
    run = run.replace(
        iterations=run.iterations + 1,
        turn=turn,
        turn_open=True,
        inflight=run.inflight + tuple((queue, m) for m in taken),
        awaiting_error=False,
        retries=0,
        step_usage=Usage(),
        step_cost=0.0,
        overflowed=False,
    )
    s = s.replace(
        phase="model",
        run=run,
        streaming=False,
        **{"steering" if steering else "follow_ups": rest},
    )
    if s.config.compaction is not None:
        compacted = compact(s, ts, out, overflow=False)
        if compacted is not None:
            s = compacted
            if s.phase == "compacting":
                return s  # the call is made once the summary is in
    out.append(CallModel.deferred(partial(_request, s)))
    return s


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
    )
    return request if run.output is None else output.shaped_request(request, run.output)


def _call_again(s: LoopState, out: Out) -> LoopState:
    """Issue the current model call again, with the same context (not a new iteration)."""
    run = s.run
    assert run is not None
    run = run.replace(awaiting_error=False, partial=None, retry_at=None)
    s = s.replace(phase="model", run=run, streaming=False)
    out.append(CallModel.deferred(partial(_request, s)))
    return s


def _on_message_start(s: LoopState, e: MessageStart, ts: int, out: Out) -> LoopState:
    run = s.run
    if s.phase != "model" or run is None or s.streaming:
        return s
    out.append(AgentMessageStart("assistant", None, timestamp=ts))
    return s.replace(streaming=True)


def _on_assistant(s: LoopState, e: AssistantMessage, ts: int, out: Out) -> LoopState:
    run = s.run
    if run is None:
        return s  # not part of a run: the core assembles it, the loop has nothing to decide
    if s.phase != "model" or run.awaiting_error:
        out.append(rejected("an assistant message arrived while no model call was open", e))
        return s
    if run.resuming and e.incomplete:  # flushed after a process stop; the call is issued again
        out.append(AgentMessageEnd("assistant", e, timestamp=ts))
        why = "the process stopped while the reply was streamed; the model call is issued again"
        return s.with_run(_discard(run.replace(resuming=False), e, why, ts, out))
    if not s.streaming:
        out.append(AgentMessageStart("assistant", None, timestamp=ts))
    out.append(AgentMessageEnd("assistant", e, timestamp=ts))
    s = _charge(s.replace(streaming=False), e.usage, e.model, "reply", ts, out)
    run = s.run
    assert run is not None
    if e.incomplete and e.stop_reason == "error" and run.stopping is None:
        return s.with_run(run.replace(awaiting_error=True, partial=e))  # the error follows
    s = _keep_reply(s.with_run(run), e)
    run = s.run
    assert run is not None
    if run.stopping is not None:
        return _end(s, ts, out)
    if e.incomplete:
        return _finish(s, "aborted", ErrorCode.ABORTED, "the model call was interrupted", ts, out)
    limits = run.limits
    if limits.max_tokens is not None and run.usage.total_tokens > limits.max_tokens:
        used = run.usage.total_tokens
        message = f"used {used} tokens (max_tokens={limits.max_tokens}); {LIMIT_HINT}"
        return _finish(s, "error", ErrorCode.MAX_TOKENS_EXCEEDED, message, ts, out)
    if limits.max_cost is not None and run.cost > limits.max_cost:
        message = f"spent ${run.cost:.6f} (max_cost=${limits.max_cost}); {LIMIT_HINT}"
        return _finish(s, "error", ErrorCode.MAX_COST_EXCEEDED, message, ts, out)
    if s.batch is not None:
        if run.output is not None and run.output.mode == "tool":
            answered = _final_answer_call(s, run.output, ts, out)
            if answered is not None:
                return answered
        s = tool_calls.plan(s, s.batch, ts, out)
        return _after_tools(s, ts, out)
    out.append(turn_end(s, run, (), ts))
    s = s.with_run(run.replace(turn_open=False))
    if run.output is not None and not s.steering and not s.follow_ups:
        return _final_answer_text(s, run.output, e, ts, out)
    return _next_call_or_finish(s, ts, out)


def _charge(s: LoopState, usage: Usage, model: str, purpose: str, ts: int, out: Out) -> LoopState:
    """A model call of the run used ``usage``: its ``model_usage``, and its usage and cost
    added to the turn's, the run's and the session's."""
    run = s.run
    assert run is not None
    cost = call_cost(usage, model, s.config.price, s.config.prices) or 0.0
    out.append(ModelUsage(run.turn, model, usage, spent(s, cost), purpose, timestamp=ts))
    run = run.replace(
        usage=run.usage + usage,
        cost=run.cost + cost,
        step_usage=run.step_usage + usage,
        step_cost=run.step_cost + cost,
    )
    return s.replace(run=run, usage=s.usage + usage, cost=s.cost + cost)


def _keep_reply(s: LoopState, e: AssistantMessage) -> LoopState:
    """The reply joins the history (after the queued messages delivered for its call),
    and its tool calls become the batch."""
    run = s.run
    assert run is not None
    messages, inflight = s.messages, run.inflight
    if e.parts or not e.incomplete:
        messages, inflight = messages.extend(m for _, m in inflight), ()
    if e.parts:
        messages = messages.append(e)
    calls = e.tool_calls if e.parts else ()
    batch = Batch.of(calls) if calls else None
    return s.replace(
        messages=messages, run=run.replace(inflight=inflight, partial=None), batch=batch
    )


def _next_call_or_finish(s: LoopState, ts: int, out: Out, *, checked: bool = False) -> LoopState:
    if s.steering:
        return _call_model(s, "steer", ts, out)
    if s.follow_ups:
        return _call_model(s, "follow_up", ts, out)
    if s.config.check_output and not checked:
        out.append(CheckOutput(_final_answer(s)))
        return s.replace(phase="checking")
    return _finish(s, "completed", None, None, ts, out)


def _final_answer(s: LoopState) -> Any:
    """The message the output guardrails judge: the run's last assistant message."""
    for message in reversed(s.messages):
        if type(message) is AssistantMessage:
            return message
    return None


def _on_output_passed(s: LoopState, e: OutputPassed, ts: int, out: Out) -> LoopState:
    if s.phase != "checking":
        out.append(rejected("output_passed arrived while no final answer was being checked", e))
        return s
    run = s.run
    if run is not None and run.output_value is not None:  # a structured answer passed
        return _finish_with_output(s, run.output_value, ts, out, checked=True)
    return _next_call_or_finish(s, ts, out, checked=True)


_STAGES = {
    "input": "the input",
    "output": "the final answer",
    "tool_input": "a tool call's arguments",
    "tool_output": "a tool call's result",
}


def _on_guardrail(s: LoopState, e: GuardrailTripped, ts: int, out: Out) -> LoopState:
    where = _STAGES.get(e.stage, e.stage)
    message = f"guardrail {e.guardrail!r} tripped on {where}: {e.reason}"
    return _stop(s, ErrorCode.GUARDRAIL_TRIPPED.value, message, ts, out)


def _after_tools(s: LoopState, ts: int, out: Out) -> LoopState:
    """What follows a step of the tool calls: the next model call once the batch is
    closed, the end of the run once nothing runs while it is stopping."""
    run = s.run
    if run is None:
        return s
    if run.stopping is not None:
        return s if s.batch is not None and s.batch.running else _end(s, ts, out)
    if s.batch is None and s.phase == "tools":
        if run.output_value is not None:  # the final-answer tool gave a valid answer
            return _finish_with_output(s, run.output_value, ts, out)
        return _call_model(s, "steer", ts, out)
    return s


# -- structured output -----------------------------------------------------------------------


def _final_answer_text(
    s: LoopState, spec: OutputSpec, reply: AssistantMessage, ts: int, out: Out
) -> LoopState:
    """The run would end with ``reply``: end it with the answer its text holds, or ask
    again (``tool`` mode: a reply without a call to the final-answer tool is no answer)."""
    if spec.mode == "tool":
        value, errors = None, [f"the reply did not call the {spec.name!r} tool"]
    else:
        value, errors = output.check_text(spec, reply.text)
    if not errors:
        return _finish_with_output(s, value, ts, out)
    retried = _retry_output(s, spec, errors, ts, out)
    if retried is None:
        return _finish(
            s, "error", ErrorCode.OUTPUT_PARSE_ERROR, output.failure_message(spec, errors), ts, out
        )
    s, attempt = retried
    text = output.retry_message(spec, errors, attempt)
    message = UserMessage(f"{reply.message_id}:output-retry-{attempt}", text, timestamp=ts)
    _enter(message, ts, out)
    return _call_model(s.replace(messages=s.messages.append(message)), "steer", ts, out)


def _final_answer_call(s: LoopState, spec: OutputSpec, ts: int, out: Out) -> LoopState | None:
    """A reply that calls the final-answer tool: a valid answer ends the run once every
    call of the reply is answered (the others are not run); an invalid one is answered
    with its errors and the model is asked again. ``None`` when no call is to that tool."""
    batch = s.batch
    assert batch is not None
    call = next((c for c in batch.calls if c.tool_name == spec.name), None)
    if call is None:
        return None
    value, errors = output.check_call(spec, call)
    answer, code = "Final answer received.", None
    if errors:
        retried = _retry_output(s, spec, errors, ts, out)
        if retried is None:
            message = output.failure_message(spec, errors)
            return _finish(s, "error", ErrorCode.OUTPUT_PARSE_ERROR, message, ts, out)
        s, attempt = retried
        answer = output.invalid_call_text(spec, errors, attempt)
        code = ErrorCode.TOOL_VALIDATION_ERROR.value
    what = "was invalid" if errors else "was given"
    skipped = f"Not run: the final answer {what} in the same reply."
    for other in batch.calls:
        text, failed = (answer, code) if other is call else (skipped, ErrorCode.TOOL_SKIPPED.value)
        args = dict(other.input)
        out.append(ToolExecutionStart(other.tool_call_id, other.tool_name, args, timestamp=ts))
        details = None if failed is None else {"error_code": failed}
        out.append(ToolResult(other.tool_call_id, text, failed is not None, details, timestamp=ts))
    run = s.run
    assert run is not None
    running = frozenset(c.tool_call_id for c in batch.calls)
    return s.replace(
        phase="tools",
        batch=batch.replace(running=running),
        run=run.replace(output_value=None if errors else value),
    )


def _retry_output(
    s: LoopState, spec: OutputSpec, errors: list[str], ts: int, out: Out
) -> tuple[LoopState, int] | None:
    """Count one more failed answer and say so (``output_retry``); ``None`` when no retry
    is left."""
    run = s.run
    assert run is not None
    if run.output_retries >= spec.retries:
        return None
    attempt = run.output_retries + 1
    out.append(OutputRetry(attempt, tuple(errors), timestamp=ts))
    return s.with_run(run.replace(output_retries=attempt)), attempt


def _finish_with_output(
    s: LoopState, value: Any, ts: int, out: Out, *, checked: bool = False
) -> LoopState:
    """End the run with its valid answer ``value``, once the output guardrails passed it."""
    run = s.run
    if s.config.check_output and not checked and run is not None:
        out.append(CheckOutput(_final_answer(s), value))
        return s.with_run(run.replace(output_value=value)).replace(phase="checking")
    out.append(AgentOutput(value, timestamp=ts))
    return _finish(s, "completed", None, None, ts, out)


def _on_error(s: LoopState, e: ErrorReceived, ts: int, out: Out) -> LoopState:
    run = s.run
    if run is None:
        return s  # not part of a run: the core reports it
    partial = run.partial
    run = run.replace(partial=None, awaiting_error=False)
    s = s.with_run(run)
    if s.phase != "model":
        return _stop(s, e.code, e.message, ts, out)
    if e.code == _OVERFLOW and run.stopping is None and not run.overflowed:
        compacted = _compact_for_overflow(s, e, partial, ts, out)
        if compacted is not None:
            return compacted
    if run.stopping is None and e.retryable and run.retries < s.config.model_retries:
        return _retry_later(s, e, partial, ts, out)
    if partial is not None:
        s = _keep_reply(s, partial)
    if run.stopping is not None:
        return _end(s, ts, out)
    return _finish(s, "error", e.code, e.message, ts, out, retryable=e.retryable)


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
        compacted = compacted.with_run(_discard(compacted.run, partial, why, ts, out))  # type: ignore[arg-type]
    return compacted if compacted.phase == "compacting" else _call_again(compacted, out)


def _on_summary(s: LoopState, e: ContextSummary, ts: int, out: Out) -> LoopState:
    """The summary a compaction asked for: adopt it and make the model call; a failed (or
    empty) one ends the run with its error."""
    run = s.run
    if run is None or s.phase != "compacting" or run.summary is None:
        return s  # the answer to a summary whose run is over
    s = _charge(s, e.usage, e.model, "summary", ts, out)
    if run.stopping is not None:
        return _end(s, ts, out)
    if e.code is not None or not e.summary.strip():
        code = e.code or ErrorCode.PROVIDER_ERROR.value
        why = e.message or "the model's summary was empty"
        s = s.with_run(s.run.replace(summary=None))  # type: ignore[union-attr]
        message = f"compacting the context failed: {why}"
        return _finish(s, "error", code, message, ts, out, retryable=e.retryable)
    return _call_again(adopt_summary(s, e, ts, out), out)


def _discard(run: Run, reply: AssistantMessage, why: str, ts: int, out: Out) -> Run:
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
        run = _discard(run, partial, f"the model call failed ({e.code}) and is retried", ts, out)
    s = s.replace(phase="waiting", run=run, streaming=False)
    _arm(s, out)
    return s


def _arm(s: LoopState, out: Out) -> None:
    """Ask for a clock tick at the next time the loop has to act (retry, or deadline)."""
    run = s.run
    if run is None:
        return
    times = [
        t for t in (run.retry_at, None if s.phase in _PAUSES else run.deadline) if t is not None
    ]
    if times:
        out.append(SetTimer(min(times)))


# -- queues, aborts, limits, resume, configuration ------------------------------------------


def _on_steer(s: LoopState, e: AgentSteer, ts: int, out: Out) -> LoopState:
    return s.replace(steering=(*s.steering, e.message))


def _on_follow_up(s: LoopState, e: AgentFollowUp, ts: int, out: Out) -> LoopState:
    return s.replace(follow_ups=(*s.follow_ups, e.message))


def _on_abort(s: LoopState, e: AgentAbort | Interrupt, ts: int, out: Out) -> LoopState:
    run = s.run
    if (
        type(e) is Interrupt
        and run is not None
        and run.stopping is not None
        and s.phase in _CALLING
    ):
        return _end(s, ts, out)  # the cancelled call had no reply
    return _stop(s, ErrorCode.ABORTED.value, f"the run was aborted ({e.reason})", ts, out)


def _on_tick(s: LoopState, e: ClockTick, ts: int, out: Out) -> LoopState:
    run = s.run
    if run is None:
        return s
    if s.phase == "waiting" and run.retry_at is not None and ts >= run.retry_at:
        s = _call_again(s, out)
        _arm(s, out)
        return s
    if run.deadline is None or ts < run.deadline or s.phase in _PAUSES:
        return s
    limit = run.limits.timeout_ms
    message = f"the run took longer than {limit} ms (timeout); {LIMIT_HINT}"
    return _stop(s, ErrorCode.TIMEOUT.value, message, ts, out)


def _stop(s: LoopState, code: str, message: str, ts: int, out: Out) -> LoopState:
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
        text = "The call was cancelled before it finished: the run was stopped."
        tool_calls.answer_running(s, running, text, ErrorCode.ABORTED.value, ts, out)
        s = s.replace(cancelled=s.cancelled | frozenset(running))
    else:
        return _finish(s, reason, code, message, ts, out)
    return s.with_run(run.replace(stopping=(reason, code, message, False)))


def _end(s: LoopState, ts: int, out: Out) -> LoopState:
    """End a stopping run the way ``_stop`` (or ``_finish``) decided."""
    run = s.run
    assert run is not None and run.stopping is not None
    reason, code, message, retryable = run.stopping
    return _finish(s, reason, code, message, ts, out, retryable=retryable)  # type: ignore[arg-type]


def _finish(
    s: LoopState,
    reason: RunEndReason,
    code: str | None,
    message: str | None,
    ts: int,
    out: Out,
    *,
    retryable: bool = False,
) -> LoopState:
    """End the run with a well-formed history: every open tool call answered, unanswered
    queued messages back at the front of their queues, ``turn_end`` and ``agent_end``."""
    run = s.run
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
    back = run.inflight
    steering = tuple(m for q, m in back if q == "steer") + s.steering
    follow_ups = tuple(m for q, m in back if q == "follow_up") + s.follow_ups
    cost = spent(s, run.cost)
    out.append(ConversationClose(_CLOSING[reason], timestamp=ts))
    out.append(AgentEnd(reason, code, message, run.usage, cost, timestamp=ts))
    out.append(Finish(reason, code, message, run.usage, cost))
    error = None if code is None else (code, message or "", retryable)
    return s.replace(
        phase="idle",
        run=None,
        batch=None,
        streaming=False,
        steering=steering,
        follow_ups=follow_ups,
        error=error,
    )


def _on_resume(s: LoopState, e: AgentResume, ts: int, out: Out) -> LoopState:
    """Re-perform what was in flight when the process stopped (docs/journal.md, Resume):
    a model call is issued again (a reply it had streamed is flushed as incomplete
    first); a running idempotent tool call runs again, any other is answered with an
    ``INTERRUPTED`` error result; a pause for approval stays a pause."""
    run = s.run
    if run is None:
        return s
    s = elicitations.cancel_all(s, ts, out)  # nobody waits for an answer any more
    if s.phase == "model":
        if s.streaming:  # the core holds the open reply: flush it
            out.append(Interrupt(e.reason, timestamp=ts))
            s = s.with_run(run.replace(resuming=run.stopping is None))
            if run.stopping is not None:
                return s  # the flushed reply ends the run (see _on_assistant)
        if run.stopping is not None:
            return _end(s, ts, out)
        s = _call_again(s, out)
    elif s.phase == "compacting":
        if run.stopping is not None:
            return _end(s, ts, out)
        out.append(summarise(s))
    elif s.phase == "tools" and s.batch is not None and s.batch.running:
        running = tuple(sorted(s.batch.running))
        tools = s.config.tools_by_name
        again = (
            ()
            if run.stopping
            else tuple(i for i in running if _idempotent(tools.get(s.batch.name_of(i))))
        )
        lost = tuple(i for i in running if i not in again)
        if lost:
            text = (
                "The process running this call to {name!r} stopped before it finished; the "
                "call was not run again (the tool is not marked idempotent)."
            )
            tool_calls.answer_running(s, lost, text, ErrorCode.INTERRUPTED.value, ts, out)
        if again:
            tool_calls.run_again(s, again, out)
    elif s.phase == "approval" and s.batch is not None:
        pending = tuple(c for c in s.batch.calls if c.tool_call_id in s.batch.pending)
        out.append(AwaitApproval(pending, run.usage, spent(s, run.cost)))
    elif s.phase == "checking":
        out.append(CheckOutput(_final_answer(s), run.output_value))
    _arm(s, out)
    return s


def _idempotent(tool: Any) -> bool:
    return tool is not None and bool(tool.idempotent)


def _on_configured(s: LoopState, e: AgentConfigured, ts: int, out: Out) -> LoopState:
    return s.replace(config=s.config.from_wire(e.config))


def _on_reset(s: LoopState, e: AgentReset, ts: int, out: Out) -> LoopState:
    if s.phase != "idle":
        out.append(_busy(s, e))
        return s
    return s.replace(
        messages=pvector(e.messages), steering=(), follow_ups=(), error=None, context=None
    )


def _admit(s: LoopState, e: ToolResult, ts: int, out: Out) -> LoopState:
    call_id = e.tool_call_id
    if s.batch is not None and call_id in s.batch.running:
        out.append(e)
        return s
    if call_id in s.cancelled:
        return s.replace(cancelled=s.cancelled - {call_id})
    if s.run is None:
        out.append(e)
        return s
    out.append(rejected(f"no running tool call has id {call_id!r}", e))
    return s


def _on_tool_result(s: LoopState, e: ToolResultMessage, ts: int, out: Out) -> LoopState:
    run = s.run
    if run is None:
        return s  # not part of a run: the core records it
    if e.tool_call_id in run.discarded:  # the answer to a dropped reply's call: recorded
        return s.with_run(run.replace(discarded=run.discarded - {e.tool_call_id}))
    if run.elicitations:  # the call ended: what it asked needs no answer any more
        s = elicitations.cancel_for(s, e.tool_call_id, ts, out)
    return _after_tools(tool_calls.on_tool_result(s, e, ts, out), ts, out)


def _on_approval(s: LoopState, e: ToolApproval, ts: int, out: Out) -> LoopState:
    return _after_tools(tool_calls.on_approval(s, e, ts, out), ts, out)


def _on_elicitation_answer(s: LoopState, e: ElicitationAnswer, ts: int, out: Out) -> LoopState:
    paused = s.phase == "elicitation"
    s = elicitations.on_answer(s, e, ts, out)
    return _after_tools(s, ts, out) if paused and s.phase == "tools" else s


def _on_progress(s: LoopState, e: ToolProgress, ts: int, out: Out) -> LoopState:
    return tool_calls.on_progress(s, e, ts, out)


_Handler: TypeAlias = Callable[[LoopState, Any, int, Out], LoopState]

_HANDLERS: dict[type[Any], _Handler] = {
    AgentPrompt: _on_prompt,
    AgentContinue: _on_continue,
    AgentSteer: _on_steer,
    AgentFollowUp: _on_follow_up,
    AgentAbort: _on_abort,
    AgentResume: _on_resume,
    AgentReset: _on_reset,
    AgentConfigured: _on_configured,
    Interrupt: _on_abort,
    ClockTick: _on_tick,
    ContextSummary: _on_summary,
    ToolApproval: lambda s, e, ts, out: (
        _on_approval(s, e, ts, out)
        if s.phase == "approval"
        else tool_calls.refuse_approval(s, e, out)
    ),
    ToolProgress: _on_progress,
    ElicitationRequest: lambda s, e, ts, out: (
        elicitations.on_request(s, e, ts, out)
        if s.phase in ("tools", "elicitation")
        else elicitations.refuse_request(s, e, ts, out)
    ),
    ElicitationAnswer: _on_elicitation_answer,
    ToolResult: _admit,
    ToolResultMessage: _on_tool_result,
    MessageStart: _on_message_start,
    AssistantMessage: _on_assistant,
    ErrorReceived: _on_error,
    GuardrailTripped: _on_guardrail,
    OutputPassed: _on_output_passed,
}
