"""``AgentResult``: what ``Agent.run`` returns, read off the history a run added."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

import attrs

from .._core.content import ToolCallPart, Usage
from .._core.events import AssistantMessage
from .._loop.events import AwaitApproval, AwaitElicitation, Finish
from .._loop.lineage import TreeUsage, subagent_details

__all__ = ["AgentResult", "result_of"]

_STATUS: Mapping[type[Any], str] = {
    AwaitApproval: "awaiting_approval",
    AwaitElicitation: "awaiting_elicitation",
}
"""``AgentResult.status`` of a run that paused, by the effect that paused it."""


OutputT = TypeVar("OutputT")


@attrs.frozen(slots=True)
class AgentResult(Generic[OutputT]):
    """What ``Agent.run`` returns: the answer (``output``: the final text, or with
    ``output_type`` the typed answer, ``None`` while paused for approval), the messages
    the run added, the tool calls the model made, the usage of every model call of the
    run (retried and summarising calls included), wall time in seconds, ``status``
    (``completed``, ``awaiting_approval`` or ``awaiting_elicitation``), the final reply's
    ``text`` and the run's ``cost`` in US dollars (``None`` without a price). ``usage``
    and ``cost`` are this agent's own; ``tree`` adds every sub-agent the run spawned
    (``TreeUsage``, from its spawn results). The session's totals are
    ``agent.state.usage`` and ``agent.state.cost``."""

    output: OutputT
    messages: tuple[Any, ...]
    tool_calls: tuple[ToolCallPart, ...]
    usage: Usage
    duration: float
    status: str = "completed"
    text: str = ""
    cost: float | None = None
    tree: TreeUsage = attrs.field(factory=TreeUsage)


def result_of(
    messages: Sequence[Any],
    start: int,
    duration: float,
    end: Finish | AwaitApproval | AwaitElicitation | None,
) -> AgentResult[Any]:
    """What a run added to history ``messages`` since index ``start``, ``duration``
    seconds long, ended or paused by ``end``."""
    added = tuple(messages[start:])
    replies = [m for m in added if isinstance(m, AssistantMessage)]
    usage = getattr(end, "usage", None)  # a run's whole usage (Finish, AwaitApproval)
    if usage is None:
        usage = sum((m.usage for m in replies), Usage())
    cost = getattr(end, "cost", None)
    spawned = [subagent_details(getattr(m, "details", None)) for m in added]
    return AgentResult(
        replies[-1].text if replies else "",
        added,
        tuple(c for m in replies for c in m.tool_calls),
        usage,
        duration,
        _STATUS.get(type(end), "completed"),
        text=replies[-1].text if replies else "",
        cost=cost,
        tree=sum(
            (TreeUsage.from_wire(d) for d in spawned if d is not None), TreeUsage(usage, cost)
        ),
    )
