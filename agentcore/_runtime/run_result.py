"""``AgentResult``: what ``Agent.run`` returns, read off the history a run added, and
the subscriber that calls ``run``'s callbacks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import attrs

from .._core.content import ToolCallPart, Usage
from .._core.events import AssistantMessage, TextDelta
from .._loop.events import (
    AgentOutput,
    AwaitApproval,
    AwaitElicitation,
    Finish,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from .._loop.lineage import TreeUsage, subagent_details

if TYPE_CHECKING:  # the attrs plugin types the class
    from attrs import frozen
else:  # the same class, its methods written on first use (see records.py)
    from .._core.records import frozen

__all__ = ["AgentResult", "result_of", "run_callbacks"]

_STATUS: Mapping[type[Any], str] = {
    AwaitApproval: "awaiting_approval",
    AwaitElicitation: "awaiting_elicitation",
}
"""``AgentResult.status`` of a run that paused, by the effect that paused it."""


OutputT = TypeVar("OutputT")


@frozen
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
    seconds long, ended or paused by ``end`` (one pass over what it added)."""
    added = tuple(messages[start:])
    usage = getattr(end, "usage", None)  # a run's whole usage (Finish, AwaitApproval)
    summing = usage is None
    if usage is None:
        usage = Usage()
    last: AssistantMessage | None = None
    calls: tuple[ToolCallPart, ...] = ()
    spawned: list[TreeUsage] = []
    for m in added:
        if isinstance(m, AssistantMessage):  # no details: never a spawn's result
            last = m
            if summing:
                usage += m.usage
            asked = m.tool_calls
            if asked:
                calls += asked
        else:
            details = subagent_details(getattr(m, "details", None))
            if details is not None:
                spawned.append(TreeUsage.from_wire(details))
    cost = getattr(end, "cost", None)
    text = "" if last is None else last.text
    tree = TreeUsage(usage, cost)
    for part in spawned:
        tree += part
    return AgentResult(
        text,
        added,
        calls,
        usage,
        duration,
        _STATUS.get(type(end), "completed"),
        text=text,
        cost=cost,
        tree=tree,
    )


def run_callbacks(
    answers: list[Any],
    on_token: Callable[[str], None] | None,
    on_tool_call: Callable[[ToolExecutionStart], None] | None,
    on_tool_result: Callable[[Any], None] | None,
) -> Callable[[Any], None]:
    """The subscriber ``Agent.run`` listens with: the loop's valid answers (as JSON)
    appended to ``answers``, and the callbacks the run was given called."""

    def relay(event: Any) -> None:
        if type(event) is AgentOutput:
            answers.append(event.output)
        elif type(event) is TextDelta:
            if on_token is not None:
                on_token(event.text)
        elif on_tool_call is not None and type(event) is ToolExecutionStart:
            on_tool_call(event)
        elif on_tool_result is not None and type(event) is ToolExecutionEnd:
            on_tool_result(event.result)

    return relay
