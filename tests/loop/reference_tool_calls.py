"""``agentcore/_loop/tool_calls.py`` as it was before the batch moved on in one new state
(commit cf3c115), kept verbatim as the oracle of tests/loop/test_tool_calls_oracle.py:
the tool calls' steps must make the same states and outputs as these did. Not used by
the library. The code is verbatim; its relative imports are made absolute, and ``plan``
takes the reply's batch instead of its calls, as the module's does since.

It imports the private modules ``agentcore._loop`` and ``agentcore._core``, as the
module did: a test's oracle, kept verbatim."""

# ruff: noqa
# mypy: ignore-errors

from __future__ import annotations

from typing import Any, TypeAlias

from agentcore._core.content import ToolCallPart
from agentcore._core.errors import ErrorCode
from agentcore._core.events import ErrorMessage, ToolResult, ToolResultMessage
from agentcore._loop.events import (
    AgentMessageEnd,
    AgentMessageStart,
    AwaitApproval,
    ExecuteTools,
    InputRejected,
    SetTimer,
    ToolApproval,
    ToolApprovalRequired,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolProgress,
    TurnEnd,
)
from agentcore._loop.state import LIMIT_HINT, LoopState, Run

__all__ = [
    "advance",
    "answer_running",
    "answer_unanswered",
    "close",
    "on_approval",
    "on_progress",
    "on_tool_result",
    "plan",
    "refuse_approval",
    "rejected",
    "run_again",
    "spent",
    "turn_end",
]

Out: TypeAlias = list[Any]


def rejected(
    message: str, event: Any, code: ErrorCode = ErrorCode.PROTOCOL_ERROR
) -> tuple[ErrorMessage, InputRejected]:
    """The outputs of refusing an input that does not fit the current phase: the
    ``error_message`` that shows it as history, and the ``input_rejected`` that says
    which input was refused (what a caller that fed a command reads)."""
    ts = getattr(event, "timestamp", 0)
    name = getattr(event, "type", type(event).__name__)
    return (
        ErrorMessage(message, code.value, timestamp=ts),
        InputRejected(name, message, code.value, timestamp=ts),
    )


def _answer(
    call: ToolCallPart, text: str, code: str, ts: int, out: Out, *, started: bool = False
) -> str:
    """The loop answers ``call`` with an error result: its start (unless it was started
    already) and its ``tool_result``. Returns the call id, which counts as running until
    the result comes back."""
    if not started:
        args = dict(call.input)
        out.append(ToolExecutionStart(call.tool_call_id, call.tool_name, args, timestamp=ts))
    out.append(ToolResult(call.tool_call_id, text, True, {"error_code": code}, timestamp=ts))
    return call.tool_call_id


def spent(s: LoopState, cost: float) -> float | None:
    """``cost`` as reported: ``None`` when the config has no price to compute it with."""
    return None if s.config.price is None else cost


def turn_end(s: LoopState, run: Run, results: tuple[Any, ...], ts: int) -> TurnEnd:
    """The ``turn_end`` of ``run``'s current turn, with what its model calls spent."""
    return TurnEnd(run.turn, results, run.step_usage, spent(s, run.step_cost), timestamp=ts)


# -- planning and running -------------------------------------------------------------------


def plan(s: LoopState, planned: Batch, ts: int, out: Out) -> LoopState:
    """Answer what can be answered now; pause for approvals; otherwise start running."""
    calls = planned.calls
    tools = s.config.tools_by_name
    batch = s.batch
    assert batch is not None and batch.calls == calls
    answered: list[str] = []
    runnable: list[ToolCallPart] = []
    pending: list[ToolCallPart] = []
    for call in calls:
        tool = tools.get(call.tool_name)
        if tool is None:
            known = ", ".join(sorted(tools)) or "none"
            text = f"Unknown tool {call.tool_name!r}; available tools: {known}."
            answered.append(_answer(call, text, ErrorCode.TOOL_NOT_FOUND, ts, out))
        elif call.input_error is not None:
            text = (
                f"Invalid arguments for tool {call.tool_name!r}; the call was not executed: "
                f"{call.input_error}\nYou sent: {call.raw_input}"
            )
            answered.append(_answer(call, text, ErrorCode.TOOL_VALIDATION_ERROR, ts, out))
        elif errors := tool.validation_errors(call.input):
            text = tool.invalid_arguments_message(call.input, errors)
            answered.append(_answer(call, text, ErrorCode.TOOL_VALIDATION_ERROR, ts, out))
        else:
            runnable.append(call)
            if tool.requires_approval:
                pending.append(call)
    running = frozenset(answered)
    if pending:
        out.append(ToolApprovalRequired(tuple(pending), timestamp=ts))
        run = s.run
        assert run is not None
        out.append(AwaitApproval(tuple(pending), run.usage, spent(s, run.cost)))
        pending_ids = tuple(c.tool_call_id for c in pending)
        batch = batch.replace(runnable=tuple(runnable), pending=pending_ids, running=running)
        return s.replace(phase="approval", batch=batch, run=run.replace(paused_at=ts))
    batch = batch.replace(groups=_groups(s, runnable), runnable=(), pending=(), running=running)
    s = s.replace(phase="tools", batch=batch)
    return s if answered else advance(s, ts, out)


def _groups(s: LoopState, runnable: list[ToolCallPart]) -> tuple[tuple[ToolCallPart, ...], ...]:
    """Split the runnable calls into groups: parallel runs of calls, sequential ones alone."""
    sequential_all = s.config.tool_execution == "sequential"
    tools = s.config.tools_by_name
    groups: list[tuple[ToolCallPart, ...]] = []
    current: list[ToolCallPart] = []
    for call in runnable:
        tool = tools.get(call.tool_name)  # gone when a toolset's list changed meanwhile
        if sequential_all or (tool is not None and tool.sequential):
            if current:
                groups.append(tuple(current))
                current = []
            groups.append((call,))
        else:
            current.append(call)
    if current:
        groups.append(tuple(current))
    return tuple(groups)


def advance(s: LoopState, ts: int, out: Out) -> LoopState:
    """Start the next group, skip the rest when steering arrived (policy ``skip``), or
    close the batch when nothing is left."""
    batch = s.batch
    assert batch is not None
    if batch.groups and s.steering and s.config.steering_policy == "skip":
        skipped: list[str] = []
        for group in batch.groups:
            for call in group:
                text = (
                    f"Skipped: the user sent a new message before this call to "
                    f"{call.tool_name!r} started, so it was not executed."
                )
                skipped.append(_answer(call, text, ErrorCode.TOOL_SKIPPED, ts, out))
        return s.with_batch(batch.replace(groups=(), running=frozenset(skipped)))
    if batch.groups:
        group, rest = batch.groups[0], batch.groups[1:]
        for call in group:
            args = dict(call.input)
            out.append(ToolExecutionStart(call.tool_call_id, call.tool_name, args, timestamp=ts))
        out.append(ExecuteTools(group, parallel=len(group) > 1))
        running = frozenset(c.tool_call_id for c in group)
        return s.with_batch(batch.replace(groups=rest, running=running))
    return close(s, ts, out)


def close(s: LoopState, ts: int, out: Out) -> LoopState:
    """Append every result in the order the model asked and end the turn."""
    batch, run = s.batch, s.run
    assert batch is not None and run is not None
    ordered = tuple(_must(batch.result_of(c.tool_call_id)) for c in batch.calls)
    for r in ordered:
        out.append(AgentMessageStart("tool", r, timestamp=ts))
        out.append(AgentMessageEnd("tool", r, timestamp=ts))
    out.append(turn_end(s, run, ordered, ts))
    return s.replace(
        messages=s.messages.extend(ordered), batch=None, run=run.replace(turn_open=False)
    )


def _must(result: ToolResultMessage | None) -> ToolResultMessage:
    assert result is not None, "a batch closed with an unanswered call"
    return result


# -- results and progress -------------------------------------------------------------------


def on_tool_result(s: LoopState, e: ToolResultMessage, ts: int, out: Out) -> LoopState:
    """A running call's result, as the core assembled it (the history's entry). The
    batch moves on once nothing is running, unless the run is stopping (the policy then
    ends it)."""
    batch = s.batch
    call_id = e.tool_call_id
    if batch is None or call_id not in batch.running:
        out.extend(rejected(f"no running tool call has id {call_id!r}", e))
        return s
    out.append(ToolExecutionEnd(call_id, e.tool_name, e, e.is_error, timestamp=ts))
    batch = batch.answer(call_id, e)
    s = s.with_batch(batch)
    if batch.running or s.phase != "tools" or (s.run is not None and s.run.stopping is not None):
        return s
    return advance(s, ts, out)


def answer_running(
    s: LoopState, call_ids: tuple[str, ...], text: str, code: str, ts: int, out: Out
) -> None:
    """Answer running calls ``call_ids`` with an error result made by the loop (their
    task is gone: the process that ran them stopped); ``text`` may name ``{name}``."""
    batch = s.batch
    assert batch is not None
    for call_id in call_ids:
        call = batch.calls[batch.positions[call_id]]
        _answer(call, text.format(name=call.tool_name), code, ts, out, started=True)


def run_again(s: LoopState, call_ids: tuple[str, ...], out: Out) -> None:
    """Request running calls ``call_ids`` again (idempotent tools after a process stop)."""
    batch = s.batch
    assert batch is not None
    calls = tuple(batch.calls[batch.positions[i]] for i in call_ids)
    out.append(ExecuteTools(calls, parallel=len(calls) > 1))


def on_progress(s: LoopState, e: ToolProgress, ts: int, out: Out) -> LoopState:
    batch = s.batch
    if batch is not None and e.tool_call_id in batch.running:
        name = batch.name_of(e.tool_call_id)
        out.append(ToolExecutionUpdate(e.tool_call_id, name, e.progress, timestamp=ts))
    return s


def answer_unanswered(s: LoopState, code: str, message: str, ts: int, out: Out) -> LoopState:
    """The run is ending: answer every call that has no result and is not running; they
    count as running until their results come back. Close the batch when none is left."""
    batch = s.batch
    assert batch is not None
    answered: set[str] = set()
    for call in batch.calls:
        call_id = call.tool_call_id
        if call_id in answered or call_id in batch.running or batch.result_of(call_id) is not None:
            continue
        why = message.removesuffix(f"; {LIMIT_HINT}")  # the hint is the caller's, not the model's
        text = f"The call to {call.tool_name!r} was not completed: the run ended ({code}: {why})."
        answered.add(_answer(call, text, code, ts, out))
    if answered or batch.running:
        return s.with_batch(batch.replace(groups=(), running=batch.running | answered))
    return close(s, ts, out)


# -- approvals ------------------------------------------------------------------------------


def refuse_approval(s: LoopState, e: ToolApproval, out: Out) -> LoopState:
    """A decision for a call that does not await one."""
    batch = s.batch
    waiting = [i for i in batch.pending if i not in batch.decisions] if batch else []
    call_id = e.tool_call_id
    out.extend(rejected(f"no tool call with id {call_id!r} awaits approval; waiting: {waiting}", e))
    return s


def on_approval(s: LoopState, e: ToolApproval, ts: int, out: Out) -> LoopState:
    """Record a decision; once every pending call is decided, answer the rejected ones
    and run the approved ones (the run's deadline moves by the time spent paused)."""
    batch, run = s.batch, s.run
    call_id = e.tool_call_id
    if batch is None or run is None or call_id not in batch.pending:
        return refuse_approval(s, e, out)
    if call_id in batch.decisions:
        decided = "approved" if batch.decisions[call_id][0] else "rejected"
        out.extend(rejected(f"tool call {call_id!r} was already {decided}", e))
        return s
    decisions = {**batch.decisions, call_id: (e.approved, e.reason)}
    batch = batch.replace(decisions=decisions)
    if len(decisions) < len(batch.pending):
        return s.with_batch(batch)
    rejections: list[str] = []
    runnable = []
    for call in batch.runnable:
        approved, reason = decisions.get(call.tool_call_id, (True, None))
        if approved:
            runnable.append(call)
        else:
            why = f": {reason}" if reason else "."
            text = f"The user rejected this call to {call.tool_name!r}{why} It was not executed."
            rejections.append(_answer(call, text, ErrorCode.TOOL_REJECTED, ts, out))
    batch = batch.replace(
        groups=_groups(s, runnable),
        runnable=(),
        pending=(),
        decisions={},
        running=batch.running | frozenset(rejections),
    )
    deadline = run.deadline
    if deadline is not None and run.paused_at is not None:
        deadline += ts - run.paused_at
        out.append(SetTimer(deadline))
    run = run.replace(deadline=deadline, paused_at=None)
    s = s.replace(phase="tools", batch=batch, run=run)
    return s if batch.running else advance(s, ts, out)
