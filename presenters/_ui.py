"""The shape every chat UI protocol shares, as a pure processor: outputs in, UI ops out.

AG-UI and the Vercel AI SDK stream describe the same things (a run, its steps, text and
reasoning blocks opened, streamed and closed, tool calls whose input streams in and whose
output comes back, approvals, usage) in two vocabularies. ``step(state, agent_id, output)``
works out that shape once; each protocol module maps the ops to its own frames.

Guarantees, property-tested: every output is accepted (one the UI does not show gives no
op); blocks open before their deltas and close before the run ends; no delta is empty;
nothing comes for an agent between the end of its run and the start of the next, but
content that arrives then (an approved call running on) opens a new run first.
Ids are derived from the outputs (message and tool-call ids) and from counting runs, so
replaying the same outputs gives the same ids.

Sub-agents: a ``SubagentEvent(lineage, event)`` (how a parent's presenters get a child's
outputs, docs/subagents.md) is its ``event`` folded as an output of the child
``lineage.agent_id``, whose run is ``lineage.run_id`` (stable: read back from the journal)
and whose parent run is the stream's own open run for a child of the stream's agent, the
parent child's run for a grandchild. A child's run opens and closes inside its parent's;
the stream's own run closes its children's runs still open (``cancelled``) before it
ends. A child's block ids are qualified by its run (``<run>/<message id>``), so they never
collide with the parent's. Outputs presented under another agent id than ``thread_id``
(a presenter shared by hand) are a sub-agent's too, its runs counted.
"""

from __future__ import annotations

from typing import Any

import attrs
from pyrsistent import pmap
from pyrsistent.typing import PMap

from agentcore.agents import Lineage, SubagentEvent, handoff_of
from agentcore.events import (
    AssistantMessage,
    Content,
    InputJsonDelta,
    MessageStart,
    TextContent,
    TextDelta,
    ThinkingDelta,
    ToolCallMessage,
    ToolCallPart,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    TurnResponse,
    Usage,
    describe_part,
)
from agentcore.loop import (
    AgentEnd,
    AgentStart,
    ToolApprovalRequired,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from agentcore.state_machine import TRANSITIONS, WHILE_TOOLS_PENDING, AgentState

from ._ui_ops import Activity as Activity
from ._ui_ops import HandedOver as HandedOver
from ._ui_ops import Metadata as Metadata
from ._ui_ops import Op as Op
from ._ui_ops import Progress as Progress
from ._ui_ops import ReasoningDelta as ReasoningDelta
from ._ui_ops import ReasoningEnd as ReasoningEnd
from ._ui_ops import ReasoningStart as ReasoningStart
from ._ui_ops import RunFinished as RunFinished
from ._ui_ops import RunStarted as RunStarted
from ._ui_ops import StepFinished as StepFinished
from ._ui_ops import StepStarted as StepStarted
from ._ui_ops import TextEnd as TextEnd
from ._ui_ops import TextStart as TextStart
from ._ui_ops import TextStreamed as TextStreamed
from ._ui_ops import ToolArgs as ToolArgs
from ._ui_ops import ToolEnd as ToolEnd
from ._ui_ops import ToolInput as ToolInput
from ._ui_ops import ToolOutput as ToolOutput
from ._ui_ops import ToolStart as ToolStart

__all__ = [
    "Activity",
    "HandedOver",
    "Metadata",
    "Op",
    "Progress",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "RunFinished",
    "RunStarted",
    "StepFinished",
    "StepStarted",
    "TextEnd",
    "TextStart",
    "TextStreamed",
    "ToolArgs",
    "ToolEnd",
    "ToolInput",
    "ToolOutput",
    "ToolStart",
    "UiState",
    "content_sizes",
    "content_text",
    "initial",
    "step",
    "with_next_run_id",
]


_NO_TOOLS: PMap[int, str] = pmap()
_ZERO = Usage()


@attrs.frozen(slots=True)
class _Agent:
    """What is open for one agent."""

    runs: int = 0
    run_id: str | None = None
    message_id: str | None = None
    segments: int = 0  # text and reasoning blocks opened in the current message (for ids)
    texted: bool = False  # a text block was opened in it (the first is named as the message)
    text: tuple[str, int] | None = None  # (id, block index)
    reasoning: tuple[str, int] | None = None
    tools: PMap[int, str] = _NO_TOOLS  # block index -> tool call id, arguments streaming
    usage: Usage = _ZERO
    model: str | None = None
    stop_reason: str | None = None
    activity: AgentState = AgentState.IDLE
    pending: frozenset[str] = frozenset()
    step: str | None = None  # the open step's name
    paused: tuple[str, str | None] | None = None  # (run id, open step) of a run paused for approval
    parent: str | None = None  # the parent's run id while a sub-agent's run is open
    origin: tuple[str | None, str, str | None, str | None] = (None, "", None, None)
    # the open run's parent agent, name, agent type and spawning call (RunStarted's)


_NO_AGENTS: PMap[str, _Agent] = pmap()


@attrs.frozen(slots=True)
class UiState:
    """The tracker's state: the stream's own agent, the next run's id if the caller chose
    it (an AG-UI ``RunAgentInput``), and what is open per agent. ``resume_paused``: a run
    that goes on after an approval pause keeps its id (one Vercel UI message) instead of
    counting as a new run (AG-UI, where answering an interrupt starts a run)."""

    thread_id: str
    resume_paused: bool = False
    next_run_id: str | None = None
    agents: PMap[str, _Agent] = _NO_AGENTS


def initial(thread_id: str, *, resume_paused: bool = False) -> UiState:
    return UiState(thread_id, resume_paused)


def with_next_run_id(state: UiState, run_id: str) -> UiState:
    """The state whose next run (of the stream's own agent) is called ``run_id``."""
    return attrs.evolve(state, next_run_id=run_id)


def content_text(content: Content) -> str:
    """A tool result's content as text: each media part a one-line placeholder
    (``describe_part``: kind, name or media type, size), never its bytes."""
    if isinstance(content, str):
        return content
    return "".join(describe_part(block) for block in content)


def content_sizes(content: Content) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The kind of each part (``text``, ``image``, ``document``, ``audio``, ``file``) and
    its size in bytes (UTF-8 text, decoded media, 0 for a file by reference)."""
    if isinstance(content, str):
        return ("text",), (len(content.encode()),)
    kinds = tuple(type(part).type for part in content)
    sizes = tuple(
        len(part.text.encode()) if isinstance(part, TextContent) else getattr(part, "size", 0)
        for part in content
    )
    return kinds, sizes


_ADDS = frozenset({"tool_planned", "tool_executing"})
_REMOVES = frozenset({"tool_completed", "tool_failed"})
_STATE_TYPES = frozenset(key[1] for key in TRANSITIONS)


def step(state: UiState, agent_id: str, output: Any) -> tuple[UiState, tuple[Op, ...]]:
    """Fold one output; return the new state and the UI ops it gives (module docstring)."""
    if type(output) is SubagentEvent:
        lineage = output.lineage
        return _step(state, lineage.agent_id, output.event, lineage)
    return _step(state, agent_id, output, None)


def _step(
    state: UiState, agent_id: str, output: Any, lineage: Lineage | None
) -> tuple[UiState, tuple[Op, ...]]:
    a = state.agents.get(agent_id) or _Agent()
    ts: int = getattr(output, "timestamp", 0)
    ops: list[Op] = []
    cls = type(output)
    if cls is TextDelta:
        if not output.text:
            return state, ()
        state, a, run = _run(state, agent_id, a, ts, ops, lineage)
        a = _close_reasoning(a, agent_id, run, ts, ops)
        if a.text is not None and a.text[1] != output.index:
            a = _close_text(a, agent_id, run, ts, ops)
        if a.text is None:
            base = _block_base(state, agent_id, a, run)
            text_id = f"{base}.{a.segments}" if a.texted else base
            a = attrs.evolve(a, text=(text_id, output.index), segments=a.segments + 1, texted=True)
            ops.append(TextStart(agent_id, run, text_id, ts))
        text_id = a.text[0] if a.text is not None else run
        ops.append(TextStreamed(agent_id, run, text_id, output.text, ts))
    elif cls is ThinkingDelta:
        if not output.text:
            return state, ()
        state, a, run = _run(state, agent_id, a, ts, ops, lineage)
        a = _close_text(a, agent_id, run, ts, ops)
        if a.reasoning is not None and a.reasoning[1] != output.index:
            a = _close_reasoning(a, agent_id, run, ts, ops)
        if a.reasoning is None:
            reasoning_id = f"{_block_base(state, agent_id, a, run)}.thinking.{a.segments}"
            a = attrs.evolve(a, reasoning=(reasoning_id, output.index), segments=a.segments + 1)
            ops.append(ReasoningStart(agent_id, run, reasoning_id, ts))
        reasoning_id = a.reasoning[0] if a.reasoning is not None else run
        ops.append(ReasoningDelta(agent_id, run, reasoning_id, output.text, ts))
    elif cls is InputJsonDelta:
        call_id = a.tools.get(output.index)
        if call_id is None or not output.partial_json:
            return state, ()
        ops.append(ToolArgs(agent_id, a.run_id or "", call_id, output.partial_json, ts))
    elif cls is ToolUseStart:
        state, a, run = _run(state, agent_id, a, ts, ops, lineage)
        a = _close_blocks(a, agent_id, run, ts, ops)
        a = attrs.evolve(a, tools=a.tools.set(output.index, output.tool_call_id))
        ops.append(
            ToolStart(agent_id, run, output.tool_call_id, output.tool_name, a.message_id, ts)
        )
    elif cls is ToolUseStop:
        call_id = a.tools.get(output.index)
        if call_id is not None:
            a = attrs.evolve(a, tools=a.tools.remove(output.index))
            ops.append(ToolEnd(agent_id, a.run_id or "", call_id, ts))
    elif cls is ToolCallMessage:
        state, a, run = _run(state, agent_id, a, ts, ops, lineage)
        ops.append(ToolInput(agent_id, run, output.tool_call, ts))
    elif cls is MessageStart:
        a = attrs.evolve(
            a, message_id=output.message_id, segments=0, texted=False, model=output.model
        )
    elif cls is AssistantMessage:
        if a.run_id is not None:
            run = a.run_id
            a = _close_tools(_close_blocks(a, agent_id, run, ts, ops), agent_id, run, ts, ops)
            a = attrs.evolve(
                a,
                usage=a.usage + output.usage,
                model=output.model or a.model,
                stop_reason=output.stop_reason or a.stop_reason,
            )
    elif cls is ToolResultMessage:
        state, a, run = _run(state, agent_id, a, ts, ops, lineage)
        code = output.details.get("error_code") if isinstance(output.details, dict) else None
        text = content_text(output.result)
        ops.append(
            ToolOutput(
                agent_id,
                run,
                output.tool_call_id,
                output.tool_name,
                text,
                output.is_error,
                code if isinstance(code, str) else None,
                ts,
                output.result,
            )
        )
        moved = handoff_of(output)
        if moved is not None:
            ops.append(HandedOver(agent_id, run, str(moved["from"]), str(moved["to"]), ts))
    elif cls is ToolExecutionUpdate:
        if a.run_id is not None:
            ops.append(Progress(agent_id, a.run_id, output.tool_call_id, output.progress, ts))
    elif cls is TurnStart:
        state, a, run = _run(state, agent_id, a, ts, ops, lineage)
        a = _close_step(a, agent_id, run, ts, ops)
        step = f"turn {output.turn}"
        a = attrs.evolve(a, step=step)
        ops.append(StepStarted(agent_id, run, step, ts))
    elif cls is TurnEnd:
        if a.run_id is not None:
            a = _close_step(a, agent_id, a.run_id, ts, ops)
    elif cls is TurnResponse:
        if a.run_id is not None:
            ops.append(
                Metadata(
                    agent_id,
                    a.run_id,
                    output.usage,
                    output.cost,
                    output.duration_ms,
                    output.model,
                    ts,
                )
            )
    elif cls is AgentStart:
        if a.run_id is not None:  # a run left open (a process stopped): close it first
            state = _close_children(state, agent_id, ts, ops)
            a = _finish(a, agent_id, "cancelled", None, None, (), ts, ops)
        a = attrs.evolve(a, usage=_ZERO, stop_reason=None, paused=None)
        state, a, _ = _run(state, agent_id, a, ts, ops, lineage)
    elif cls is AgentEnd:
        if a.run_id is not None:
            outcome = {"completed": "success", "aborted": "cancelled"}.get(output.reason, "error")
            state = _close_children(state, agent_id, ts, ops)
            a = _finish(a, agent_id, outcome, output.code, output.message, (), ts, ops)
    elif cls is ToolApprovalRequired:
        if a.run_id is not None:
            a = _finish(a, agent_id, "interrupt", None, None, output.tool_calls, ts, ops)
    elif output_type_of(output) in _STATE_TYPES:
        a = _track_activity(a, agent_id, output, ts, ops)
    if ops or state.agents.get(agent_id) is not a:
        state = attrs.evolve(state, agents=state.agents.set(agent_id, a))
    return state, tuple(ops)


def output_type_of(output: Any) -> str:
    name = getattr(output, "type", None)
    return name if isinstance(name, str) else ""


def _block_base(state: UiState, agent_id: str, a: _Agent, run: str) -> str:
    """What a block's id starts with: the message id (qualified by the run for a
    sub-agent, whose model may reuse its parent's ids), or the run's id."""
    if a.message_id is None:
        return run
    return a.message_id if agent_id == state.thread_id else f"{run}/{a.message_id}"


def _close_children(state: UiState, agent_id: str, ts: int, ops: list[Op]) -> UiState:
    """Cancel the runs still open below the stream's own agent's ending run (none when
    every child ended first, as it does live)."""
    if agent_id != state.thread_id:
        return state
    agents = state.agents
    for child, c in state.agents.items():
        if child != agent_id and c.run_id is not None:
            agents = agents.set(child, _finish(c, child, "cancelled", None, None, (), ts, ops))
    return state if agents is state.agents else attrs.evolve(state, agents=agents)


def _run(
    state: UiState, agent_id: str, a: _Agent, ts: int, ops: list[Op], lineage: Lineage | None
) -> tuple[UiState, _Agent, str]:
    """The agent's open run, opened first if there is none (for a sub-agent, inside its
    parent's run: the stream's own, itself opened if needed, or the parent child's)."""
    if a.run_id is not None:
        return state, a, a.run_id
    parent = None
    thread = state.thread_id
    if agent_id != thread:
        if lineage is not None and lineage.parent_agent_id != thread:
            parent = lineage.parent_run_id
        else:
            root = state.agents.get(thread) or _Agent()
            state, root, parent = _run(state, thread, root, ts, ops, None)
            state = attrs.evolve(state, agents=state.agents.set(thread, root))
    paused, a = a.paused, attrs.evolve(a, paused=None)
    if lineage is not None:
        run_id, runs = lineage.run_id, a.runs + 1
    elif paused is not None and state.resume_paused:
        run_id, runs = paused[0], a.runs
    else:
        runs = a.runs + 1
        run_id = f"{agent_id}:{runs}"
        if agent_id == thread and state.next_run_id is not None:
            run_id = state.next_run_id
            state = attrs.evolve(state, next_run_id=None)
    origin: tuple[str | None, str, str | None, str | None]
    if lineage is not None:
        origin = (
            lineage.parent_agent_id,
            lineage.name or lineage.agent_type,
            lineage.agent_type,
            lineage.tool_call_id or None,
        )
    else:
        origin = (
            None if parent is None else thread,
            "" if parent is None else agent_id,
            None,
            None,
        )
    a = attrs.evolve(a, runs=runs, run_id=run_id, parent=parent, origin=origin)
    ops.append(RunStarted(agent_id, run_id, parent, a.activity.value, ts, *origin))
    if paused is not None and paused[1] is not None:  # the step the pause cut goes on
        a = attrs.evolve(a, step=paused[1])
        ops.append(StepStarted(agent_id, run_id, paused[1], ts))
    return state, a, run_id


def _close_text(a: _Agent, agent_id: str, run: str, ts: int, ops: list[Op]) -> _Agent:
    if a.text is None:
        return a
    ops.append(TextEnd(agent_id, run, a.text[0], ts))
    return attrs.evolve(a, text=None)


def _close_reasoning(a: _Agent, agent_id: str, run: str, ts: int, ops: list[Op]) -> _Agent:
    if a.reasoning is None:
        return a
    ops.append(ReasoningEnd(agent_id, run, a.reasoning[0], ts))
    return attrs.evolve(a, reasoning=None)


def _close_blocks(a: _Agent, agent_id: str, run: str, ts: int, ops: list[Op]) -> _Agent:
    return _close_text(_close_reasoning(a, agent_id, run, ts, ops), agent_id, run, ts, ops)


def _close_step(a: _Agent, agent_id: str, run: str, ts: int, ops: list[Op]) -> _Agent:
    if a.step is None:
        return a
    ops.append(StepFinished(agent_id, run, a.step, ts))
    return attrs.evolve(a, step=None)


def _close_tools(a: _Agent, agent_id: str, run: str, ts: int, ops: list[Op]) -> _Agent:
    if not a.tools:
        return a
    for index in sorted(a.tools):
        ops.append(ToolEnd(agent_id, run, a.tools[index], ts))
    return attrs.evolve(a, tools=pmap())


def _finish(
    a: _Agent,
    agent_id: str,
    outcome: str,
    code: str | None,
    message: str | None,
    approvals: tuple[ToolCallPart, ...],
    ts: int,
    ops: list[Op],
) -> _Agent:
    run = a.run_id
    assert run is not None
    step = a.step
    a = _close_tools(_close_blocks(a, agent_id, run, ts, ops), agent_id, run, ts, ops)
    a = _close_step(a, agent_id, run, ts, ops)
    if outcome == "interrupt":
        a = attrs.evolve(a, paused=(run, step))
    ops.append(
        RunFinished(
            agent_id,
            run,
            a.parent,
            outcome,
            a.usage,
            a.model,
            a.stop_reason,
            approvals,
            code,
            message,
            ts,
            *a.origin,
        )
    )
    return attrs.evolve(a, run_id=None, parent=None)


def _track_activity(a: _Agent, agent_id: str, output: Any, ts: int, ops: list[Op]) -> _Agent:
    """Follow the ``agentcore.state_machine`` table; an ``Activity`` op on each change."""
    kind = output.type
    pending = a.pending
    call_id = getattr(output, "tool_call_id", None)
    if kind in _ADDS and call_id is not None:
        pending = pending | {call_id}
    elif kind in _REMOVES and call_id is not None:
        pending = pending - {call_id}
    key = (a.activity, kind)
    found = TRANSITIONS.get(key, a.activity)
    if kind in _REMOVES and pending:
        found = WHILE_TOOLS_PENDING.get(key, found)
    if kind in ("conversation_end", "conversation_interrupted"):
        pending = frozenset()
    changed = found is not a.activity
    a = attrs.evolve(a, activity=found, pending=pending)
    if changed and a.run_id is not None:
        ops.append(Activity(agent_id, a.run_id, found.value, ts))
    return a
