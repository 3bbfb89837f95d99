"""What a child is given: its prompt text, its parent's history, the step prompt, input
checks, and the lineage of its last task in a journal."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .._core.events import AssistantMessage, UserMessage
from .._journal.journal import Journal
from .._loop.events import AgentPrompt
from .._loop.lineage import Lineage
from .._loop.state import default_convert_to_llm
from .._loop.tool_schema import StrictValidator

__all__ = ["StepPrompt", "inherited", "input_problems", "last_lineage", "prompt_text"]


@attrs.frozen(slots=True)
class StepPrompt:
    """``transform_context`` adding a definition's step prompt to every model call."""

    text: str

    def __call__(self, messages: tuple[Any, ...]) -> tuple[Any, ...]:
        return (*messages, UserMessage("step_prompt", self.text))


def input_problems(schema: Mapping[str, Any], value: Any, what: str) -> list[str]:
    validator = StrictValidator(dict(schema))
    return [f"{what}: {e.message}" for e in validator.iter_errors(value)]


def prompt_text(prompt: str, params: Mapping[str, Any] | None) -> str:
    if not params:
        return prompt
    shown = json.dumps(dict(params), ensure_ascii=False, sort_keys=True)
    return f"{prompt}\n\nParameters (JSON): {shown}" if prompt else f"Parameters (JSON): {shown}"


def inherited(history: Sequence[Any]) -> tuple[Any, ...]:
    """The parent's history a child starts from: up to the reply asking for the spawn
    (whose calls are still open), provider messages only."""
    messages = list(history)
    while messages and not isinstance(messages[-1], AssistantMessage):
        messages.pop()
    if messages:
        messages.pop()  # the reply holding this call, unanswered until the children end
    return tuple(default_convert_to_llm(messages))


def last_lineage(journal: Journal, agent_id: str) -> Lineage | None:
    """The lineage of the last spawn journaled in ``agent_id``'s lane."""
    found = None
    for entry in journal.entries(agent_id):
        event = entry.event
        if type(event) is AgentPrompt and event.messages and type(event.messages[0]) is Lineage:
            found = event.messages[0]
    return found
