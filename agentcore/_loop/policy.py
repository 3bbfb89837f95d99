"""The agent loop as a pure processor: ``loop_processor(state, event) -> (state, outputs)``.

Every decision of an agent run is made here: when to call the model and with what
context, which tool calls run (``tool_calls``), when queued steering and follow-up
messages enter the conversation, when a limit ends the run and with which error code,
when a failed model call is tried again, and what is performed again when an agent is
resumed in a new process. The async runtime performs the effect requests this emits and
feeds their results back as events.

No clock, randomness, logging or I/O: times come from event timestamps; outputs are
stamped with the timestamp of the event that caused them. Hooks in ``LoopConfig`` must be
pure too. See docs/loop.md for the phases and transitions.

This module holds the phase table (``TRANSITIONS``: ``(phase, input type) -> handler``),
the dispatch, and the handlers of runs starting, queues and configuration; the other
handlers live by what they decide: ``model_calls`` (a model call, its charge, failures,
retries and summaries), ``replies`` (an assembled reply and what follows it: its tool
calls, their results and approvals, the final answer), ``ending`` (limits, aborts,
deadlines and the end of a run) and ``resuming`` (what a resumed run performs again).

The loop owns runs: stream traffic outside a run (a recorded conversation replayed
through the conversation processor, or an event that arrives after its run ended) is
the core's to assemble and report, and the loop ignores it. Inside a run, an input that
does not fit the phase is rejected with one ``error_message`` (``AGENT_BUSY`` or
``PROTOCOL_ERROR``).

A run that asks for structured output (``AgentPrompt.output``) ends only with an answer
valid against its schema: an invalid one goes back to the model (a user message, or the
error result of the final-answer tool) at most ``retries`` times, then the run ends with
``OUTPUT_PARSE_ERROR`` (``output``).

Emits: ``agent_start``, ``turn_start``, ``agent_message_start/end``, ``model_usage``,
``tool_execution_start/update/end``, ``tool_approval_required``, ``model_call_retry``,
``output_retry``, ``context_compacted``, ``turn_end``, ``agent_output``, ``agent_end``,
``error_message``; the stream events it lets into the conversation (``user_message`` for
prompts, queued messages and output retries, ``tool_result`` for a running call's result
and for calls it answers itself, cancelled ones included, ``interrupt`` to flush a reply
cut off by a process stop, ``conversation_close``
at the end of every run, so the core's activity returns to idle however the run ended), which the
conversation processor feeds to the core; and the effect requests of ``events``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any, TypeAlias, get_args

from .._core.errors import ErrorCode
from .._core.events import (
    AssistantMessage,
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
)
from .._core.vectors import pvector
from . import elicitations
from .emitted import agent_start
from .ending import PAUSES, on_abort, on_guardrail, on_interrupt_call, on_tick
from .events import (
    AgentAbort,
    AgentConfigured,
    AgentContinue,
    AgentFollowUp,
    AgentPrompt,
    AgentReset,
    AgentResume,
    AgentSteer,
    ClockTick,
    ContextSummary,
    ElicitationAnswer,
    ElicitationRequest,
    GuardrailTripped,
    OutputPassed,
    RunForgotten,
    SetTimer,
    ToolApproval,
    ToolProgress,
)
from .model_calls import (
    PricedReply,
    call_model,
    enter,
    on_error,
    on_error_elsewhere,
    on_message_start,
    on_retry_tick,
    on_summary,
)
from .replies import (
    admit,
    on_approval,
    on_assistant,
    on_elicitation_answer,
    on_output_passed,
    on_progress,
    on_tool_result,
    stray_answer,
    stray_approval,
    stray_output_passed,
    stray_reply,
)
from .resuming import (
    on_resume,
    resume_approval,
    resume_checking,
    resume_compacting,
    resume_elicitation,
    resume_model,
    resume_tools,
)
from .state import LIMIT_HINT, LoopState, Phase, Run
from .tool_calls import rejected

__all__ = ["LIMIT_HINT", "PHASES", "TRANSITIONS", "loop_processor"]


Out: TypeAlias = list[Any]

_DELTAS = frozenset(
    (TextDelta, ThinkingDelta, ToolUseStart, InputJsonDelta, ToolUseStop, MessageDelta, MessageStop)
)


def loop_processor(state: LoopState, event: Any) -> tuple[LoopState, tuple[Any, ...]]:
    """Fold one input event into the loop state; return the new state and the outputs.

    Stream deltas are the core's to assemble: the loop decides on the assembled message,
    and ignores them. Events that do not fit the current phase of a run leave the state
    unchanged and emit one ``error_message`` with code ``AGENT_BUSY`` or ``PROTOCOL_ERROR``.
    """
    cls = type(event)
    if cls in _DELTAS:
        return state, ()
    row = _ROWS.get(cls)
    if row is None:
        if cls is PricedReply:
            return _priced_reply(state, event)
        return state, rejected(f"the agent loop does not accept {cls.__name__}", event)
    handler = row[state.phase]
    if handler is _ignore:
        return state, ()
    out: Out = []
    new = handler(state, event, event.timestamp, out)
    return new, tuple(out)


def _priced_reply(state: LoopState, event: PricedReply) -> tuple[LoopState, tuple[Any, ...]]:
    """The reply as its ``assistant_message`` row takes it, charged at the cost it carries
    when that row is the open call's reply (the only row that charges)."""
    message = event.message
    if _ROWS[AssistantMessage][state.phase] is not on_assistant:
        return loop_processor(state, message)
    out: Out = []
    new = on_assistant(state, message, message.timestamp, out, event.cost)
    return new, tuple(out)


# -- starting and continuing runs ----------------------------------------------------------


def _on_prompt(s: LoopState, e: AgentPrompt, ts: int, out: Out) -> LoopState:
    # Steering left by a run that ended before taking it (it failed, hit a limit, was
    # aborted) was typed before this prompt: it enters first, in the order of typing.
    # (Steering sent while idle otherwise goes with the prompt's first model call.)
    left = s.steering if s.error is not None else ()
    start = _new_run(s, e, ts, out)
    entering = (*left, *e.messages)
    for m in entering:
        enter(m, ts, out)
    changes: dict[str, Any] = {"error": None, "messages": s.messages.extend(entering)}
    if left:
        changes["steering"] = s.steering[len(left) :]
    return call_model(s, "steer", ts, out, changes, start)  # one new state for the prompt


def _on_continue(s: LoopState, e: AgentContinue, ts: int, out: Out) -> LoopState:
    messages = s.messages
    if messages and _cut_off_reply(messages[-1]):
        messages = messages.delete(len(messages) - 1)  # asked again from before it
    last_is_reply = bool(messages) and isinstance(messages[-1], AssistantMessage)
    if not messages or (last_is_reply and not s.steering and not s.follow_ups):
        out.extend(
            rejected(
                "cannot continue: the conversation is empty or ends with the assistant's "
                "reply; prompt, steer or follow up first",
                e,
            )
        )
        return s
    queue = "follow_up" if last_is_reply and not s.steering else "steer"
    start = _new_run(s, e, ts, out)
    return call_model(s, queue, ts, out, {"messages": messages, "error": None}, start)


def _cut_off_reply(message: Any) -> bool:
    """A reply an error or an abort cut off before it asked for any tool."""
    return isinstance(message, AssistantMessage) and message.incomplete and not message.tool_calls


def _busy(s: LoopState, e: Any, ts: int, out: Out) -> LoopState:
    """A command that needs an idle agent arrived during a run."""
    what = (
        "running: use steer(msg) to redirect it now, or follow_up(msg) to queue a "
        "message for when it finishes"
    )
    out.extend(rejected(f"the agent is {what}", e, ErrorCode.AGENT_BUSY))
    return s


def _busy_approving(s: LoopState, e: Any, ts: int, out: Out) -> LoopState:
    batch = s.batch
    waiting = [] if batch is None else [i for i in batch.pending if i not in batch.decisions]
    what = f"waiting for tool approval: approve() or reject() {waiting}, or abort()"
    out.extend(rejected(f"the agent is {what}", e, ErrorCode.AGENT_BUSY))
    return s


def _busy_eliciting(s: LoopState, e: Any, ts: int, out: Out) -> LoopState:
    run = s.run
    assert run is not None
    waiting = [p.elicitation_id for p in run.elicitations]
    what = f"waiting for the user: answer_elicitation() {waiting}, or abort()"
    out.extend(rejected(f"the agent is {what}", e, ErrorCode.AGENT_BUSY))
    return s


def _ignore(s: LoopState, e: Any, ts: int, out: Out) -> LoopState:
    """Not the loop's to decide in this phase: stream traffic outside a run, the answer
    to an effect whose run (or call) is over."""
    return s


_NO_LIMITS = (None, None, None, None)
"""A prompt's limits when it sets none: the config's hold (no ``override`` to make)."""


def _new_run(s: LoopState, e: AgentPrompt | AgentContinue, ts: int, out: Out) -> Callable[..., Run]:
    """The constructor of the run ``e`` starts, which its first model call completes
    (``call_model``): its ``agent_start``, and its deadline's timer."""
    limits = s.config.limits
    if (e.max_iterations, e.max_tokens, e.max_cost, e.timeout_ms) != _NO_LIMITS:
        limits = limits.override(
            max_iterations=e.max_iterations,
            max_tokens=e.max_tokens,
            max_cost=e.max_cost,
            timeout_ms=e.timeout_ms,
        )
    deadline = None if limits.timeout_ms is None else ts + limits.timeout_ms
    out.append(agent_start(ts))
    if deadline is not None:
        out.append(SetTimer(deadline))
    spec = e.output if type(e) is AgentPrompt else None
    return partial(Run, limits, ts, deadline, output=spec, cache=e.cache)


# -- queues, aborts, limits, resume, configuration ------------------------------------------


def _on_steer(s: LoopState, e: AgentSteer, ts: int, out: Out) -> LoopState:
    return s.replace(steering=(*s.steering, e.message))


def _on_follow_up(s: LoopState, e: AgentFollowUp, ts: int, out: Out) -> LoopState:
    return s.replace(follow_ups=(*s.follow_ups, e.message))


def _on_configured(s: LoopState, e: AgentConfigured, ts: int, out: Out) -> LoopState:
    return s.replace(config=s.config.from_wire(e.config))


def _on_reset(s: LoopState, e: AgentReset, ts: int, out: Out) -> LoopState:
    return s.replace(
        messages=pvector(e.messages), steering=(), follow_ups=(), error=None, context=None
    )


def _on_forget(s: LoopState, e: RunForgotten, ts: int, out: Out) -> LoopState:
    """The history back to its first ``keep`` messages; a compaction view made after
    them measured the forgotten run, so it goes too (the next call makes a new one)."""
    context = s.context
    if context is not None and context.since > e.keep:
        context = None
    return s.replace(messages=s.messages[: e.keep], context=context)


_Handler: TypeAlias = Callable[[LoopState, Any, int, Out], LoopState]

PHASES: tuple[Phase, ...] = get_args(Phase)
_RUNNING = tuple(p for p in PHASES if p != "idle")
_TICKING = tuple(p for p in _RUNNING if p not in PAUSES)


def _rows(
    *rows: tuple[Phase | tuple[Phase, ...], type[Any], _Handler],
) -> dict[tuple[Phase, type[Any]], _Handler]:
    """The table from its rows; a phase an input type has no row for ignores it."""
    table: dict[tuple[Phase, type[Any]], _Handler] = {}
    for phases, cls, handler in rows:
        for phase in (phases,) if isinstance(phases, str) else phases:
            assert (phase, cls) not in table, f"two rows for ({phase}, {cls.__name__})"
            table[phase, cls] = handler
    for _, cls, _ in rows:
        for phase in PHASES:
            table.setdefault((phase, cls), _ignore)
    return table


TRANSITIONS: Mapping[tuple[Phase, type[Any]], _Handler] = MappingProxyType(
    _rows(
        ("idle", AgentPrompt, _on_prompt),
        ("idle", AgentContinue, _on_continue),
        ("idle", AgentReset, _on_reset),
        ("idle", RunForgotten, _on_forget),
        (("model", "compacting", "waiting", "tools", "checking"), AgentPrompt, _busy),
        (("model", "compacting", "waiting", "tools", "checking"), AgentContinue, _busy),
        (("model", "compacting", "waiting", "tools", "checking"), AgentReset, _busy),
        (("model", "compacting", "waiting", "tools", "checking"), RunForgotten, _busy),
        ("approval", AgentPrompt, _busy_approving),
        ("approval", AgentContinue, _busy_approving),
        ("approval", AgentReset, _busy_approving),
        ("approval", RunForgotten, _busy_approving),
        ("elicitation", AgentPrompt, _busy_eliciting),
        ("elicitation", AgentContinue, _busy_eliciting),
        ("elicitation", AgentReset, _busy_eliciting),
        ("elicitation", RunForgotten, _busy_eliciting),
        (PHASES, AgentSteer, _on_steer),
        (PHASES, AgentFollowUp, _on_follow_up),
        (PHASES, AgentConfigured, _on_configured),
        (_RUNNING, AgentAbort, on_abort),
        (("model", "compacting"), Interrupt, on_interrupt_call),
        (("waiting", "tools", "approval", "elicitation", "checking"), Interrupt, on_abort),
        (_RUNNING, GuardrailTripped, on_guardrail),
        ("waiting", ClockTick, on_retry_tick),
        (("model", "compacting", "tools", "checking"), ClockTick, on_tick),
        ("model", MessageStart, on_message_start),
        ("model", AssistantMessage, on_assistant),
        (tuple(p for p in _RUNNING if p != "model"), AssistantMessage, stray_reply),
        ("model", ErrorReceived, on_error),
        (tuple(p for p in _RUNNING if p != "model"), ErrorReceived, on_error_elsewhere),
        ("compacting", ContextSummary, on_summary),
        (PHASES, ToolResult, admit),
        (_RUNNING, ToolResultMessage, on_tool_result),
        (_RUNNING, ToolProgress, on_progress),
        ("approval", ToolApproval, on_approval),
        (tuple(p for p in PHASES if p != "approval"), ToolApproval, stray_approval),
        (("tools", "elicitation"), ElicitationRequest, elicitations.on_request),
        (
            ("idle", "model", "compacting", "waiting", "approval", "checking"),
            ElicitationRequest,
            elicitations.refuse_request,
        ),
        ("elicitation", ElicitationAnswer, on_elicitation_answer),
        (tuple(p for p in PHASES if p != "elicitation"), ElicitationAnswer, stray_answer),
        ("checking", OutputPassed, on_output_passed),
        (tuple(p for p in PHASES if p != "checking"), OutputPassed, stray_output_passed),
        ("model", AgentResume, resume_model),
        ("compacting", AgentResume, resume_compacting),
        ("tools", AgentResume, resume_tools),
        ("elicitation", AgentResume, resume_elicitation),
        ("approval", AgentResume, resume_approval),
        ("checking", AgentResume, resume_checking),
        ("waiting", AgentResume, on_resume),
    )
)
"""The loop policy as data: ``(phase, input type) -> handler`` (h11's
``EVENT_TRIGGERED_TRANSITIONS``). docs/loop.md's "Phases and transitions" table lists
every pair whose handler is not ``_ignore``; tests/loop/test_phase_table.py checks it."""

_ROWS: dict[type[Any], dict[str, _Handler]] = {}
for (_phase, _cls), _handler in TRANSITIONS.items():
    _ROWS.setdefault(_cls, {})[_phase] = _handler
"""The table by input type, then phase: one lookup of each on the hot path."""
