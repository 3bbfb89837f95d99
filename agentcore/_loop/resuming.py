"""Resuming a run in a new process (pure; the loop policy's, ``policy``; docs/journal.md,
Resume): what was in flight when the process stopped is performed again, by phase."""

from __future__ import annotations

from typing import Any, TypeAlias

from .._core.errors import ErrorCode
from .._core.events import Interrupt
from . import elicitations, tool_calls
from .compacting import summarise
from .ending import arm, end
from .events import AgentResume, AwaitApproval, CheckOutput
from .model_calls import call_again
from .replies import final_answer
from .state import LoopState
from .tool_calls import spent

Out: TypeAlias = list[Any]


def on_resume(s: LoopState, e: AgentResume, ts: int, out: Out) -> LoopState:
    """Re-perform what was in flight when the process stopped (docs/journal.md, Resume).
    This handler serves the phases with nothing to perform again: the timer is set again."""
    arm(s, out)
    return s


def resume_model(s: LoopState, e: AgentResume, ts: int, out: Out) -> LoopState:
    """A model call is issued again (a reply it had streamed is flushed as incomplete
    first)."""
    run = s.run
    assert run is not None
    if s.streaming:  # the core holds the open reply: flush it
        out.append(Interrupt(e.reason, timestamp=ts))
        s = s.with_run(run.replace(resuming=run.stopping is None))
        if run.stopping is not None:
            return s  # the flushed reply ends the run (see on_assistant)
    if run.stopping is not None:
        return end(s, ts, out)
    return on_resume(call_again(s, ts, out), e, ts, out)


def resume_compacting(s: LoopState, e: AgentResume, ts: int, out: Out) -> LoopState:
    run = s.run
    assert run is not None
    if run.stopping is not None:
        return end(s, ts, out)
    out.append(summarise(s))
    return on_resume(s, e, ts, out)


def resume_tools(s: LoopState, e: AgentResume, ts: int, out: Out) -> LoopState:
    """A running idempotent tool call runs again, any other is answered with an
    ``INTERRUPTED`` error result."""
    run, batch = s.run, s.batch
    assert run is not None
    if batch is not None and batch.running:
        running = tuple(sorted(batch.running))
        tools = s.config.tools_by_name
        again = (
            ()
            if run.stopping
            else tuple(i for i in running if _idempotent(tools.get(batch.name_of(i))))
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
    return on_resume(s, e, ts, out)


def resume_elicitation(s: LoopState, e: AgentResume, ts: int, out: Out) -> LoopState:
    """Nobody waits for an answer any more: the questions are answered ``cancel``, then
    as in ``tools``."""
    return resume_tools(elicitations.cancel_all(s, ts, out), e, ts, out)


def resume_approval(s: LoopState, e: AgentResume, ts: int, out: Out) -> LoopState:
    """A pause for approval stays a pause."""
    run, batch = s.run, s.batch
    assert run is not None
    if batch is not None:
        pending = tuple(c for c in batch.calls if c.tool_call_id in batch.pending)
        out.append(AwaitApproval(pending, run.usage, spent(s, run.cost)))
    return on_resume(s, e, ts, out)


def resume_checking(s: LoopState, e: AgentResume, ts: int, out: Out) -> LoopState:
    run = s.run
    assert run is not None
    out.append(CheckOutput(final_answer(s), run.output_value))
    return on_resume(s, e, ts, out)


def _idempotent(tool: Any) -> bool:
    return tool is not None and bool(tool.idempotent)
