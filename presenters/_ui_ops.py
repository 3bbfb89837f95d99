"""The UI ops: what the shared chat-UI shape (``presenters._ui``) says of a stream.

Each op names its agent and run; a protocol module maps each to its own frames.
"""

from __future__ import annotations

from typing import Any

import attrs

from agentcore.events import ToolCallPart, Usage

__all__ = [
    "Activity",
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
]


@attrs.frozen(slots=True)
class RunStarted:
    """A run opened (``activity``: what the agent is doing at that moment). A sub-agent's
    names its ``parent_run_id`` and ``parent_agent_id``, its display ``name``, its
    ``agent_type`` and the parent's ``tool_call_id`` that spawned it (when known)."""

    agent_id: str
    run_id: str
    parent_run_id: str | None
    activity: str
    timestamp: int
    parent_agent_id: str | None = None
    name: str = ""
    agent_type: str | None = None
    tool_call_id: str | None = None


@attrs.frozen(slots=True)
class RunFinished:
    """``outcome``: ``success``, ``interrupt`` (waiting for ``approvals``), ``cancelled``
    or ``error`` (with ``code`` and ``message``); a sub-agent's run repeats what its
    ``RunStarted`` said of it."""

    agent_id: str
    run_id: str
    parent_run_id: str | None
    outcome: str
    usage: Usage
    model: str | None
    stop_reason: str | None
    approvals: tuple[ToolCallPart, ...]
    code: str | None
    message: str | None
    timestamp: int
    parent_agent_id: str | None = None
    name: str = ""
    agent_type: str | None = None
    tool_call_id: str | None = None


@attrs.frozen(slots=True)
class StepStarted:
    agent_id: str
    run_id: str
    name: str
    timestamp: int


@attrs.frozen(slots=True)
class StepFinished:
    agent_id: str
    run_id: str
    name: str
    timestamp: int


@attrs.frozen(slots=True)
class TextStart:
    agent_id: str
    run_id: str
    id: str
    timestamp: int


@attrs.frozen(slots=True)
class TextStreamed:
    agent_id: str
    run_id: str
    id: str
    delta: str
    timestamp: int


@attrs.frozen(slots=True)
class TextEnd:
    agent_id: str
    run_id: str
    id: str
    timestamp: int


@attrs.frozen(slots=True)
class ReasoningStart:
    agent_id: str
    run_id: str
    id: str
    timestamp: int


@attrs.frozen(slots=True)
class ReasoningDelta:
    agent_id: str
    run_id: str
    id: str
    delta: str
    timestamp: int


@attrs.frozen(slots=True)
class ReasoningEnd:
    agent_id: str
    run_id: str
    id: str
    timestamp: int


@attrs.frozen(slots=True)
class ToolStart:
    agent_id: str
    run_id: str
    tool_call_id: str
    tool_name: str
    message_id: str | None
    timestamp: int


@attrs.frozen(slots=True)
class ToolArgs:
    agent_id: str
    run_id: str
    tool_call_id: str
    delta: str
    timestamp: int


@attrs.frozen(slots=True)
class ToolEnd:
    agent_id: str
    run_id: str
    tool_call_id: str
    timestamp: int


@attrs.frozen(slots=True)
class ToolInput:
    """The call's arguments are complete: ``call.input`` parsed, or ``call.input_error``."""

    agent_id: str
    run_id: str
    call: ToolCallPart
    timestamp: int


@attrs.frozen(slots=True)
class ToolOutput:
    agent_id: str
    run_id: str
    tool_call_id: str
    tool_name: str
    text: str
    is_error: bool
    code: str | None
    timestamp: int
    content: Any = ""
    """The result itself (``text`` is it as text, each media part a placeholder)."""


@attrs.frozen(slots=True)
class Progress:
    agent_id: str
    run_id: str
    tool_call_id: str
    progress: Any
    timestamp: int


@attrs.frozen(slots=True)
class Metadata:
    """A user-to-answer turn ended: its usage, cost (USD or None), duration and model."""

    agent_id: str
    run_id: str
    usage: Usage
    cost: float | None
    duration_ms: int
    model: str | None
    timestamp: int


@attrs.frozen(slots=True)
class Activity:
    """What the agent is doing now (``agentcore.AgentState`` values)."""

    agent_id: str
    run_id: str
    activity: str
    timestamp: int


@attrs.frozen(slots=True)
class HandedOver:
    """A handoff: agent ``target`` speaks in the conversation from now on
    (docs/handoffs.md)."""

    agent_id: str
    run_id: str
    source: str
    target: str
    timestamp: int


Op = (
    RunStarted
    | RunFinished
    | StepStarted
    | StepFinished
    | TextStart
    | TextStreamed
    | TextEnd
    | ReasoningStart
    | ReasoningDelta
    | ReasoningEnd
    | ToolStart
    | ToolArgs
    | ToolEnd
    | ToolInput
    | ToolOutput
    | Progress
    | Metadata
    | Activity
    | HandedOver
)
