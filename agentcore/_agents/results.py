"""What a child gives back: its output (by output mode), its outcome, the spawn tools' shapes.

Pure helpers over a child's history; ``tree`` runs the children. ``output_of`` reads the
output of one spawn from the messages after its ``Lineage`` record:

- ``last_message``: the text of the last assistant message;
- ``all_messages``: every message of the spawn, in its wire form;
- ``structured_output``: the input of the last ``set_output`` call that succeeded (the
  loop has validated it against the definition's ``output_schema``; a schema that is not
  an object is wrapped as ``{"output": ...}`` for the tool, and unwrapped here).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .._core.events import AssistantMessage, ToolResultMessage, is_event
from .._core.wire import to_dict
from .._loop.lineage import Lineage, TreeUsage
from .._loop.tools import Tool, define_tool
from .definition import AgentDefinition

__all__ = [
    "SET_OUTPUT",
    "SpawnOutcome",
    "output_of",
    "set_output_tool",
    "spawn_agents_schema",
    "spawn_messages",
    "task_schema",
]

SET_OUTPUT = "set_output"
_WRAPPED = "output"


@attrs.frozen(slots=True)
class SpawnOutcome:
    """How one child's task went: ``status`` is ``completed``, ``error``, ``aborted`` or
    ``refused`` (never started: an unknown agent type, bad input, a limit), with the
    ``output`` or the ``error`` message, the child's ids and what it used."""

    task_id: str
    agent_type: str
    status: str
    output: Any = None
    error: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    usage: TreeUsage = attrs.field(factory=TreeUsage)

    @property
    def ok(self) -> bool:
        return self.status == "completed"

    def for_model(self) -> dict[str, Any]:
        """What the parent's model reads of it."""
        out: dict[str, Any] = {
            "agent_type": self.agent_type,
            "task_id": self.task_id,
            "status": self.status,
        }
        if self.ok:
            out["output"] = self.output
        else:
            out["error"] = self.error
        return out

    def details(self) -> dict[str, Any]:
        """What user interfaces read of it (``details["subagents"]["agents"]``)."""
        return {
            "task_id": self.task_id,
            "agent_type": self.agent_type,
            "agent_id": self.agent_id,
            "run_id": self.run_id,
            "status": self.status,
            **self.usage.to_wire(),
        }


def spawn_details(outcomes: Sequence[SpawnOutcome]) -> dict[str, Any]:
    """A spawn's ``details``: per child, and the sum of what they used."""
    total = TreeUsage()
    for outcome in outcomes:
        total += outcome.usage
    return {"subagents": {**total.to_wire(), "agents": [o.details() for o in outcomes]}}


def spawn_messages(messages: Sequence[Any], lineage: Lineage) -> tuple[Any, ...]:
    """The messages of the spawn ``lineage`` started: those after its record."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if type(m) is Lineage and m.run_id == lineage.run_id:
            return tuple(messages[i + 1 :])
    return ()


def output_of(definition: AgentDefinition, messages: Sequence[Any]) -> tuple[Any, str | None]:
    """``(output, problem)`` of a spawn's ``messages`` under the definition's output mode;
    ``problem`` says why there is none (a structured output never set)."""
    mode = definition.output_mode
    if mode == "all_messages":
        return [to_dict(m) for m in messages if is_event(m)], None
    if mode == "structured_output":
        return _structured(definition, messages)
    replies = [m for m in messages if isinstance(m, AssistantMessage) and m.text]
    return (replies[-1].text if replies else ""), None


def _structured(definition: AgentDefinition, messages: Sequence[Any]) -> tuple[Any, str | None]:
    failed = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage) and m.is_error}
    found = None
    for m in messages:
        if isinstance(m, AssistantMessage):
            for call in m.tool_calls:
                if call.tool_name == SET_OUTPUT and call.tool_call_id not in failed:
                    found = call.input
    if found is None:
        return None, f"agent {definition.id!r} finished without calling {SET_OUTPUT}"
    if _wraps(definition.output_schema):
        return found.get(_WRAPPED), None
    return dict(found), None


def _wraps(schema: Mapping[str, Any] | None) -> bool:
    return schema is not None and schema.get("type") != "object"


async def _output_set(args: Any, ctx: Any) -> str:
    return "Output set."


def set_output_tool(definition: AgentDefinition) -> Tool:
    """The ``set_output`` tool of a structured-output agent: its parameters are the
    output schema, so the loop validates the output before the call counts."""
    schema: dict[str, Any] = dict(definition.output_schema or {"type": "object"})
    if _wraps(schema):
        schema = {"type": "object", "properties": {_WRAPPED: schema}, "required": [_WRAPPED]}
    return define_tool(
        SET_OUTPUT,
        "Set your final output, the result the agent that gave you this task receives. "
        "Call it once your work is done; the last call that succeeds counts.",
        schema,
        _output_set,
        idempotent=True,
    )


def _catalogue(spawnable: Sequence[AgentDefinition]) -> str:
    lines = []
    for d in spawnable:
        line = f"- {d.id}" + (f" ({d.display_name})" if d.display_name else "")
        if d.description:
            line += f": {d.description}"
        schema = d.input_schema or {}
        if schema.get("prompt", {}).get("description"):
            line += f" Prompt: {schema['prompt']['description']}"
        if schema.get("params"):
            line += f" Params (JSON Schema): {json.dumps(schema['params'], sort_keys=True)}"
        lines.append(line)
    return "\n".join(lines)


def spawn_agents_schema(spawnable: Sequence[AgentDefinition]) -> tuple[str, dict[str, Any]]:
    """Description and parameters of ``spawn_agents`` for these spawnable agents."""
    description = (
        "Run one or more sub-agents in parallel, each on its own task with its own "
        "conversation; returns one result per agent, in order (its output, or its error). "
        "Agents you can spawn:\n" + _catalogue(spawnable)
    )
    item = {
        "type": "object",
        "properties": {
            "agent_type": {"type": "string", "enum": [d.id for d in spawnable]},
            "prompt": {"type": "string", "description": "The task for this agent."},
            "params": {"type": "object", "description": "Parameters the agent takes."},
        },
        "required": ["agent_type"],
        "additionalProperties": False,
    }
    parameters = {
        "type": "object",
        "properties": {"agents": {"type": "array", "items": item, "minItems": 1}},
        "required": ["agents"],
        "additionalProperties": False,
    }
    return description, parameters


def task_schema(spawnable: Sequence[AgentDefinition]) -> tuple[str, dict[str, Any]]:
    """Description and parameters of ``task`` (one sub-agent; resumable by task id)."""
    description = (
        "Launch a sub-agent to handle a complex or multi-step task on its own and return "
        "its output. Give a short description, a detailed prompt and the subagent_type. "
        "To continue a previous task in the same sub-agent conversation, pass its task_id. "
        "Sub-agents:\n" + _catalogue(spawnable)
    )
    parameters = {
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "A short (3-5 words) summary."},
            "prompt": {"type": "string", "description": "The task for the sub-agent."},
            "subagent_type": {"type": "string", "enum": [d.id for d in spawnable]},
            "task_id": {
                "type": "string",
                "description": "Only to continue a previous task: the task_id it returned.",
            },
            "command": {"type": "string", "description": "The command that triggered it."},
        },
        "required": ["description", "prompt", "subagent_type"],
        "additionalProperties": False,
    }
    return description, parameters
