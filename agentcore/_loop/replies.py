"""An assembled reply and what follows it (pure; the loop policy's, ``policy``): its
tool calls planned (``tool_calls``) and their results let in and recorded, approvals,
the final answer of a structured-output run, the output check, the next model call or
the end of the run."""

from __future__ import annotations

from typing import Any, TypeAlias

from .._core.driver import OutputSpec
from .._core.errors import ErrorCode
from .._core.events import AssistantMessage, ToolResult, ToolResultMessage, UserMessage
from . import elicitations, output, tool_calls
from .emitted import agent_message_end, agent_message_start
from .emitted import turn_end as make_turn_end
from .ending import Spent, close, end, finish
from .events import (
    AgentOutput,
    CheckOutput,
    ElicitationAnswer,
    OutputPassed,
    OutputRetry,
    ToolApproval,
    ToolExecutionStart,
    ToolProgress,
)
from .model_calls import call_model, charged, discard, enter, kept
from .state import LIMIT_HINT, LoopState
from .tool_calls import rejected, spent, turn_end

Out: TypeAlias = list[Any]


def on_assistant(
    s: LoopState, e: AssistantMessage, ts: int, out: Out, cost: float | None = None
) -> LoopState:
    """The reply of the open model call; ``cost`` is its price when the call was already
    priced (``PricedReply``), else it is priced here (``charged``)."""
    run = s.run
    assert run is not None
    if run.awaiting_error:
        return stray_reply(s, e, ts, out)
    if run.resuming and e.incomplete:  # flushed after a process stop; the call is issued again
        out.append(agent_message_end("assistant", e, ts))
        why = "the process stopped while the reply was streamed; the model call is issued again"
        return s.with_run(discard(run.replace(resuming=False), e, why, ts, out))
    if not s.streaming:
        out.append(agent_message_start("assistant", None, ts))
    out.append(agent_message_end("assistant", e, ts))
    # the new run and state are built once, from the changes each step decides
    run_changes, changes = charged(s, e.usage, e.model, "reply", ts, out, cost)
    changes["streaming"] = False
    if e.incomplete and e.stop_reason == "error" and run.stopping is None:
        run_changes.update(awaiting_error=True, partial=e)  # the error follows
        return s.replace(run=run.replace(**run_changes), **changes)
    kept_run, kept_state = kept(s, e)
    run_changes.update(kept_run)
    changes.update(kept_state)
    limits, used, cost = run.limits, run_changes["usage"].total_tokens, run_changes["cost"]
    over_tokens = limits.max_tokens is not None and used > limits.max_tokens
    over_cost = limits.max_cost is not None and cost > limits.max_cost
    stops = run.stopping is not None or e.incomplete or over_tokens or over_cost
    batch = kept_state["batch"]
    ends_turn = not stops and batch is None
    if ends_turn:  # the turn ends here (its turn_end below)
        run_changes["turn_open"] = False
    completes = ends_turn and run.output is None and not s.config.check_output
    if completes and not (s.steering or s.follow_ups):  # one new state, no new run
        step_cost = spent(s, run_changes["step_cost"])
        out.append(make_turn_end(run.turn, (), run_changes["step_usage"], step_cost, ts))
        ended = Spent(run_changes["usage"], run_changes["cost"], run_changes["inflight"])
        return close(s, "completed", None, None, ended, ts, out, changes=changes)
    run = run.replace(**run_changes)
    if batch is not None and not stops and (run.output is None or run.output.mode != "tool"):
        del changes["batch"]  # planned, then made with the run's changes in one new state
        return _after_tools(tool_calls.plan(s, batch, ts, out, run=run, **changes), ts, out)
    s = s.replace(run=run, **changes)
    if run.stopping is not None:
        return end(s, ts, out)
    if e.incomplete:
        return finish(s, "aborted", ErrorCode.ABORTED, "the model call was interrupted", ts, out)
    if over_tokens:
        message = f"used {used} tokens (max_tokens={limits.max_tokens}); {LIMIT_HINT}"
        return finish(s, "error", ErrorCode.MAX_TOKENS_EXCEEDED, message, ts, out)
    if over_cost:
        message = f"spent ${cost:.6f} (max_cost=${limits.max_cost}); {LIMIT_HINT}"
        return finish(s, "error", ErrorCode.MAX_COST_EXCEEDED, message, ts, out)
    if s.batch is not None:  # a structured-output run's reply, in its ``tool`` mode
        assert run.output is not None
        answered = _final_answer_call(s, run.output, ts, out)
        if answered is not None:
            return answered
        return _after_tools(tool_calls.plan(s, s.batch, ts, out), ts, out)
    out.append(turn_end(s, run, (), ts))
    if run.output is not None and not s.steering and not s.follow_ups:
        return _final_answer_text(s, run.output, e, ts, out)
    return _next_call_or_finish(s, ts, out)


def stray_reply(s: LoopState, e: AssistantMessage, ts: int, out: Out) -> LoopState:
    out.extend(rejected("an assistant message arrived while no model call was open", e))
    return s


def _next_call_or_finish(s: LoopState, ts: int, out: Out, *, checked: bool = False) -> LoopState:
    if s.steering:
        return call_model(s, "steer", ts, out)
    if s.follow_ups:
        return call_model(s, "follow_up", ts, out)
    if s.config.check_output and not checked:
        out.append(CheckOutput(final_answer(s)))
        return s.replace(phase="checking")
    return finish(s, "completed", None, None, ts, out)


def final_answer(s: LoopState) -> Any:
    """The message the output guardrails judge: the run's last assistant message."""
    for message in reversed(s.messages):
        if type(message) is AssistantMessage:
            return message
    return None


def stray_output_passed(s: LoopState, e: OutputPassed, ts: int, out: Out) -> LoopState:
    out.extend(rejected("output_passed arrived while no final answer was being checked", e))
    return s


def on_output_passed(s: LoopState, e: OutputPassed, ts: int, out: Out) -> LoopState:
    run = s.run
    if run is not None and run.output_value is not None:  # a structured answer passed
        return _finish_with_output(s, run.output_value, ts, out, checked=True)
    return _next_call_or_finish(s, ts, out, checked=True)


def _after_tools(s: LoopState, ts: int, out: Out) -> LoopState:
    """What follows a step of the tool calls: the next model call once the batch is
    closed, the end of the run once nothing runs while it is stopping."""
    run = s.run
    if run is None:
        return s
    if run.stopping is not None:
        return s if s.batch is not None and s.batch.running else end(s, ts, out)
    if s.batch is None and s.phase == "tools":
        if run.output_value is not None:  # the final-answer tool gave a valid answer
            return _finish_with_output(s, run.output_value, ts, out)
        return call_model(s, "steer", ts, out)
    return s


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
        return finish(
            s, "error", ErrorCode.OUTPUT_PARSE_ERROR, output.failure_message(spec, errors), ts, out
        )
    s, attempt = retried
    text = output.retry_message(spec, errors, attempt)
    message = UserMessage(f"{reply.message_id}:output-retry-{attempt}", text, timestamp=ts)
    enter(message, ts, out)
    return call_model(s, "steer", ts, out, {"messages": s.messages.append(message)})


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
            return finish(s, "error", ErrorCode.OUTPUT_PARSE_ERROR, message, ts, out)
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
        out.append(CheckOutput(final_answer(s), value))
        return s.with_run(run.replace(output_value=value)).replace(phase="checking")
    out.append(AgentOutput(value, timestamp=ts))
    return finish(s, "completed", None, None, ts, out)


def admit(s: LoopState, e: ToolResult, ts: int, out: Out) -> LoopState:
    """A ``tool_result`` input reaches the loop first: the result of a running call is
    let into the conversation (the core assembles it, and its ``tool_result_message``
    comes back to ``on_tool_result``); a late one for a call the loop cancelled and
    answered itself is dropped, journaled but without effect; outside a run, stream
    traffic is the core's (let through); any other is refused."""
    call_id = e.tool_call_id
    batch = s.batch
    if batch is not None and call_id in batch.running:
        out.append(e)
        return s
    if call_id in s.cancelled:
        return s.replace(cancelled=s.cancelled - {call_id})
    if s.run is None:
        out.append(e)
        return s
    out.extend(rejected(f"no running tool call has id {call_id!r}", e))
    return s


def on_tool_result(s: LoopState, e: ToolResultMessage, ts: int, out: Out) -> LoopState:
    """A running call's answer, as the core assembled it (every answer, the loop's own
    included, comes this way)."""
    run = s.run
    assert run is not None
    if e.tool_call_id in run.discarded:  # the answer to a dropped reply's call: recorded
        return s.with_run(run.replace(discarded=run.discarded - {e.tool_call_id}))
    if run.elicitations:  # the call ended: what it asked needs no answer any more
        s = elicitations.cancel_for(s, e.tool_call_id, ts, out)
    return _after_tools(tool_calls.on_tool_result(s, e, ts, out), ts, out)


def on_approval(s: LoopState, e: ToolApproval, ts: int, out: Out) -> LoopState:
    return _after_tools(tool_calls.on_approval(s, e, ts, out), ts, out)


def stray_approval(s: LoopState, e: ToolApproval, ts: int, out: Out) -> LoopState:
    return tool_calls.refuse_approval(s, e, out)


def stray_answer(s: LoopState, e: ElicitationAnswer, ts: int, out: Out) -> LoopState:
    return elicitations.refuse_answer(s, e, out)


def on_elicitation_answer(s: LoopState, e: ElicitationAnswer, ts: int, out: Out) -> LoopState:
    s = elicitations.on_answer(s, e, ts, out)
    return _after_tools(s, ts, out) if s.phase == "tools" else s


def on_progress(s: LoopState, e: ToolProgress, ts: int, out: Out) -> LoopState:
    return tool_calls.on_progress(s, e, ts, out)
