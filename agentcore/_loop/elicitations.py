"""Elicitations: a running tool call asks the user something, and the run pauses (pure).

Called by the loop policy. An ``elicitation_request`` from a running call is delivered
(the application shows it), recorded in ``Run.elicitations``, and pauses the run: phase
``elicitation``, ``AwaitElicitation``; the run's deadline stops counting, as for an
approval. Each ``elicitation_answer`` is checked against its request (its action, and
the content against the form's schema), delivered, and handed to the waiting call with
``AnswerElicitation``; once none is left the run goes on in phase ``tools``, its
deadline moved by the pause.

Every elicitation gets exactly one answer: the application's; ``cancel`` when the run
stops (abort, timeout) or its call ends without waiting for it; ``cancel`` at once for a
request the loop cannot take (no such call running, the run ending). Being inputs, the
request and the answer are journaled, so a replay pauses and resumes exactly where the
live run did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from .events import (
    AnswerElicitation,
    AwaitElicitation,
    ElicitationAnswer,
    ElicitationRequest,
    SetTimer,
)
from .state import LoopState, Run
from .tool_calls import advance, rejected
from .tool_schema import strict_validator

__all__ = [
    "answer_problem",
    "cancel_all",
    "cancel_for",
    "on_answer",
    "on_request",
    "refuse_answer",
    "refuse_request",
]

Out: TypeAlias = list[Any]


def on_request(s: LoopState, e: ElicitationRequest, ts: int, out: Out) -> LoopState:
    """Pause for ``e`` when its call is running; otherwise answer it ``cancel`` at once."""
    run, batch = s.run, s.batch
    problem = None
    if run is None or batch is None:
        problem = "no tool call is running"
    elif e.tool_call_id not in batch.running:
        problem = f"tool call {e.tool_call_id!r} is not running"
    elif any(p.elicitation_id == e.elicitation_id for p in run.elicitations):
        problem = f"elicitation {e.elicitation_id!r} is already waiting"
    if problem is not None or run is None:
        return _refused(s, e, problem, ts, out)
    if run.stopping is not None:  # the run is ending: nobody will answer
        out.append(AnswerElicitation(_cancel(e, ts)))
        return s
    pending = (*run.elicitations, e)
    out.append(e)
    out.append(AwaitElicitation(pending))
    paused_at = run.paused_at if s.phase == "elicitation" else ts
    return s.replace(
        phase="elicitation", run=run.replace(elicitations=pending, paused_at=paused_at)
    )


def refuse_request(s: LoopState, e: ElicitationRequest, ts: int, out: Out) -> LoopState:
    """A question while no tool call runs: answered ``cancel`` at once."""
    return _refused(s, e, "no tool call is running", ts, out)


def _refused(
    s: LoopState, e: ElicitationRequest, problem: str | None, ts: int, out: Out
) -> LoopState:
    out.extend(rejected(f"elicitation {e.elicitation_id!r} was not asked: {problem}", e))
    out.append(AnswerElicitation(_cancel(e, ts)))
    return s


def refuse_answer(s: LoopState, e: ElicitationAnswer, out: Out) -> LoopState:
    """An answer no question waits for."""
    run = s.run
    waiting = [] if run is None else [p.elicitation_id for p in run.elicitations]
    message = f"no elicitation with id {e.elicitation_id!r} awaits an answer; waiting: {waiting}"
    out.extend(rejected(message, e))
    return s


def on_answer(s: LoopState, e: ElicitationAnswer, ts: int, out: Out) -> LoopState:
    """Hand a valid answer to its call; resume the run once nothing else waits."""
    run = s.run
    pending = () if run is None else run.elicitations
    request = next((p for p in pending if p.elicitation_id == e.elicitation_id), None)
    if request is None or run is None:
        return refuse_answer(s, e, out)
    problem = answer_problem(request, e)
    if problem is not None:
        out.extend(rejected(f"elicitation {e.elicitation_id!r}: {problem}", e))
        return s
    out.append(e)
    out.append(AnswerElicitation(e))
    rest = tuple(p for p in pending if p is not request)
    s = s.with_run(run.replace(elicitations=rest))
    return s if rest else _resumed(s, ts, out)


def cancel_for(s: LoopState, tool_call_id: str, ts: int, out: Out) -> LoopState:
    """Call ``tool_call_id`` ended: its unanswered elicitations are answered ``cancel``
    (the run resumes when none is left)."""
    run = s.run
    if run is None or not any(p.tool_call_id == tool_call_id for p in run.elicitations):
        return s
    rest = []
    for request in run.elicitations:
        if request.tool_call_id == tool_call_id:
            _cancelled(request, ts, out)
        else:
            rest.append(request)
    s = s.with_run(run.replace(elicitations=tuple(rest)))
    return s if rest else _resumed(s, ts, out)


def cancel_all(s: LoopState, ts: int, out: Out) -> LoopState:
    """The run stops, or was resumed in a new process: every unanswered elicitation is
    answered ``cancel``; phase ``tools`` again, the deadline moved by the pause."""
    run = s.run
    if run is None or s.phase != "elicitation":
        return s
    for request in run.elicitations:
        _cancelled(request, ts, out)
    return s.replace(phase="tools", run=_unpaused(run, ts))


def _cancel(request: ElicitationRequest, ts: int) -> ElicitationAnswer:
    return ElicitationAnswer("cancel", None, request.elicitation_id, timestamp=ts)


def _cancelled(request: ElicitationRequest, ts: int, out: Out) -> None:
    """Answer a delivered ``request`` with ``cancel``: delivered, and handed to its call."""
    answer = _cancel(request, ts)
    out.append(answer)
    out.append(AnswerElicitation(answer))


def _resumed(s: LoopState, ts: int, out: Out) -> LoopState:
    """Back to phase ``tools``: the deadline moves by the pause; a batch whose calls all
    ended meanwhile moves on."""
    run = s.run
    assert run is not None
    run = _unpaused(run, ts)
    if run.deadline is not None:
        out.append(SetTimer(run.deadline))
    s = s.replace(phase="tools", run=run)
    batch = s.batch
    if batch is not None and not batch.running and run.stopping is None:
        return advance(s, ts, out)
    return s


def _unpaused(run: Run, ts: int) -> Run:
    """``run`` after its pause, the deadline moved by the time paused."""
    deadline = run.deadline
    if deadline is not None and run.paused_at is not None:
        deadline += ts - run.paused_at
    return run.replace(elicitations=(), deadline=deadline, paused_at=None)


def answer_problem(request: ElicitationRequest, answer: ElicitationAnswer) -> str | None:
    """Why ``answer`` cannot answer ``request``, or ``None``: only an accepted form
    carries content, a mapping that fits the form's schema."""
    content = answer.content
    if answer.action != "accept" or request.mode == "url":
        if content is None:
            return None
        what = "an accepted URL elicitation" if answer.action == "accept" else answer.action
        return f"{what} carries no content, got {content!r}"
    if not isinstance(content, Mapping):
        return "an accepted form needs content: a mapping of the form's fields"
    schema = request.schema
    if not isinstance(schema, Mapping):
        return None
    try:
        errors = sorted(strict_validator()(schema).iter_errors(content), key=lambda x: x.message)
    except Exception:  # a schema the validator cannot use checks nothing
        return None
    if not errors:
        return None
    return "the content does not fit the form: " + "; ".join(x.message for x in errors)
