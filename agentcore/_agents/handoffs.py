"""Handoffs: an agent hands the conversation itself over to another agent.

A definition's ``handoffs`` name the agents it may hand off to (an id, or a ``Handoff``
with its own tool name, description, input schema and history filter). The model of the
speaking agent sees one handoff tool per target (``transfer_to_<id>``); calling one is an
ordinary tool call whose result, journaled like every tool result, carries
``details["handoff"] = {"from", "to", "tool"}``. That result is the handoff: from it on,
the target speaks in the same conversation, in the same run (the next model call is the
target's), with its own model, system prompt, tools, spawnable agents and handoffs.

Who speaks is a pure function of the history (``speaker``): the target of the last
handoff result, else the conversation's first agent. The conversation runs on one
``Agent`` and one journal lane; its driver (``HandoffDriver``) asks the speaker's model,
with the speaker's system prompt and tools, over the history as the handoffs' filters
(``history``) let the speaker see it (``handoff_view``). Replay, resume and fork fold the
same journal, so they reproduce every handoff; nothing about handoffs lives outside it.

History filters (what the target sees of the conversation before the handoff; the
handoff call, its results and everything after are always seen):

- ``"all"``: everything the handing agent saw;
- ``"summary"``: one user message with the summary the handing agent's model wrote (the
  handoff tool then takes a required ``summary`` argument);
- an ``int`` N: the last N messages, starting at a user message;
- a function ``(messages) -> messages``, which must be pure (it runs at every model call
  of the target, and again on replay or resume).

Handoffs in a row without a user message between them are bounded by
``TreeLimits.max_handoffs``: the next one is refused with an error result saying so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import attrs

from .._core.driver import ModelRequest, OutputMode, ToolSpec
from .._core.errors import ConfigurationError
from .._core.events import AssistantMessage, ToolResultMessage, UserMessage
from .._edges.driver import BaseDriver, close_stream
from .._loop.tools import Tool, ToolOutput, define_tool
from .._runtime.tool_runner import ToolContext
from .definition import SUMMARY, AgentDefinition, Handoff
from .inputs import input_problems
from .steps import LazyDriver

__all__ = [
    "Cast",
    "HandoffDriver",
    "Role",
    "handoff_of",
    "handoff_view",
    "speaker",
]


def handoff_of(message: Any) -> Mapping[str, Any] | None:
    """The handoff a history entry records (``{"from", "to", "tool"}``), if it is one:
    a tool result that succeeded, with ``details["handoff"]``."""
    if type(message) is not ToolResultMessage or message.is_error:
        return None
    details = message.details
    if not isinstance(details, Mapping):
        return None
    found = details.get("handoff")
    return found if isinstance(found, Mapping) else None


def speaker(messages: Sequence[Any], first: str) -> str:
    """Who speaks after ``messages``: the target of the last handoff, else ``first``."""
    for i in range(len(messages) - 1, -1, -1):
        found = handoff_of(messages[i])
        if found is not None:
            return str(found["to"])
    return first


def _in_a_row(messages: Sequence[Any]) -> int:
    """Handoffs since the last user message."""
    count = 0
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if type(m) is UserMessage:
            break
        if handoff_of(m) is not None:
            count += 1
    return count


@attrs.frozen(slots=True)
class Role:
    """One agent of a conversation with handoffs: its definition, its handoffs by tool
    name, and what its model is told about the tools it has (by name)."""

    definition: AgentDefinition
    handoffs: Mapping[str, Handoff]
    specs: Mapping[str, ToolSpec]


class Cast:
    """Every agent a conversation may hand off to, from its first (``first``): the
    closure of ``handoffs``. ``own_tools(definition)`` gives a member's own tools (its
    registry tools and spawn tools); ``get(id)`` the definitions; ``max_in_a_row`` is
    ``TreeLimits.max_handoffs``."""

    def __init__(
        self,
        first: AgentDefinition,
        get: Callable[[str], AgentDefinition],
        own_tools: Callable[[AgentDefinition], Sequence[Tool]],
        max_in_a_row: int,
    ) -> None:
        self.first = first.id
        self.max_in_a_row = max_in_a_row
        self.members: dict[str, Role] = {}
        self.handoff_tools: dict[str, Tool] = {}
        todo = [first]
        while todo:
            definition = todo.pop()
            if definition.id in self.members:
                continue
            specs = {t.name: t.spec for t in own_tools(definition)}
            handoffs: dict[str, Handoff] = {}
            for handoff in definition.handoffs:
                target = get(handoff.agent)
                handoffs[handoff.name] = handoff
                specs[handoff.name] = _handoff_spec(handoff, target)
                if handoff.name not in self.handoff_tools:
                    self.handoff_tools[handoff.name] = self._handoff_tool(handoff.name)
                todo.append(target)
            self.members[definition.id] = Role(definition, handoffs, specs)
        self.managed = frozenset(name for m in self.members.values() for name in m.specs)
        """Every tool name some member has: a member's model sees only its own."""

    def speaker(self, messages: Sequence[Any]) -> Role:
        """The member who speaks after ``messages``; ``ConfigurationError`` when the
        history hands the conversation to an agent this cast does not have (a journal
        written with other definitions)."""
        found = speaker(messages, self.first)
        member = self.members.get(found)
        if member is None:
            raise ConfigurationError(
                f"the conversation was handed to agent {found!r}, which agent "
                f"{self.first!r} cannot reach by handoffs (known: {sorted(self.members)})"
            )
        return member

    def _handoff_tool(self, name: str) -> Tool:
        """The tool ``name`` of every member with a handoff by that name: what it takes and
        where it leads are the speaker's (``_hand_off``), whose model sees its own spec."""

        async def execute(args: Mapping[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
            return self._hand_off(args, ctx)

        return define_tool(
            name, "Hand the conversation over.", {"type": "object"}, execute, idempotent=True
        )

    def _hand_off(self, args: Mapping[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """The result of a handoff call: the handoff, or why it is refused."""
        messages = ctx.messages
        current = self.speaker(messages)
        handoff = current.handoffs.get(ctx.tool_name)
        if handoff is None:
            return _refused(
                f"agent {current.definition.id!r} cannot hand off with {ctx.tool_name!r}; "
                f"its handoffs are {sorted(current.handoffs)}"
            )
        problems = input_problems(current.specs[ctx.tool_name].parameters, dict(args), "input")
        if problems:
            return _refused("; ".join(problems))
        if _earlier_handoff(messages, ctx.tool_call_id, current.handoffs):
            return _refused("only the first handoff of a reply is taken")
        in_a_row = _in_a_row(messages)
        if in_a_row >= self.max_in_a_row:
            return _refused(
                f"{in_a_row} handoffs in a row without a user message "
                f"(TreeLimits.max_handoffs={self.max_in_a_row}); answer the user yourself"
            )
        target = self.members[handoff.agent].definition
        details = {
            "handoff": {"from": current.definition.id, "to": target.id, "tool": handoff.name}
        }
        return ToolOutput(f"Handed over to {target.name}.", details)


def _handoff_spec(handoff: Handoff, target: AgentDefinition) -> ToolSpec:
    """What the handing agent's model is told about a handoff tool."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    schema = handoff.input_schema
    if schema is not None:
        properties.update(schema.get("properties", {}))
        required += list(schema.get("required", []))
    if handoff.history == SUMMARY:
        properties[SUMMARY] = {
            "type": "string",
            "description": "What the next agent must know of the conversation so far.",
        }
        required.append(SUMMARY)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    description = handoff.description or (
        f"Hand the conversation over to {target.name}"
        + (f": {target.description}" if target.description else ".")
        + " They answer the user from now on."
    )
    return ToolSpec(handoff.name, description, parameters)


def _refused(reason: str) -> ToolOutput:
    return ToolOutput(f"Handoff refused: {reason}.", {"handoff_refused": reason}, is_error=True)


def _earlier_handoff(
    messages: Sequence[Any], call_id: str, handoffs: Mapping[str, Handoff]
) -> bool:
    """Whether the reply holding ``call_id`` asked for a handoff before it."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if type(m) is AssistantMessage and any(c.tool_call_id == call_id for c in m.tool_calls):
            for call in m.tool_calls:
                if call.tool_call_id == call_id:
                    return False
                if call.tool_name in handoffs:
                    return True
    return False


def _apply(
    history: Any, visible: tuple[Any, ...], call_input: Mapping[str, Any]
) -> tuple[Any, ...]:
    if history == "all":
        return visible
    if history == SUMMARY:
        summary = call_input.get(SUMMARY, "")
        text = f"Summary of the conversation before it was handed over to you:\n{summary}"
        return (UserMessage("handoff_summary", text),)
    if isinstance(history, int):
        kept = list(visible[-history:])
        while kept and type(kept[0]) is not UserMessage:
            kept.pop(0)
        return tuple(kept)
    return tuple(history(visible))


def handoff_view(messages: Sequence[Any], cast: Cast) -> tuple[Any, ...]:
    """What the speaker sees of ``messages``: each handoff's filter applied, in order, to
    what was visible before the reply that asked for it (module docstring)."""
    visible: tuple[Any, ...] = ()
    start = 0
    calls: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for i, m in enumerate(messages):
        if type(m) is AssistantMessage:
            for call in m.tool_calls:
                calls[call.tool_call_id] = (i, call.input)
            continue
        found = handoff_of(m)
        if found is None or m.tool_call_id not in calls:
            continue
        boundary, call_input = calls[m.tool_call_id]
        member = cast.members.get(str(found["from"]))
        handoff = None if member is None else member.handoffs.get(str(found["tool"]))
        history = "all" if handoff is None else handoff.history
        visible = _apply(history, (*visible, *messages[start:boundary]), call_input)
        start = boundary
    if start == 0:
        return tuple(messages)
    return (*visible, *messages[start:])


class HandoffDriver(BaseDriver):
    """The driver of a conversation with handoffs: each model call goes to the speaker's
    model, with its system prompt and tools, over its view of the history."""

    def __init__(self, cast: Cast, factory: Callable[[str], Any] | None) -> None:
        self.cast = cast
        self._drivers = {
            agent_id: LazyDriver(m.definition.model, factory)
            for agent_id, m in cast.members.items()
        }
        self._current: LazyDriver | None = None

    @property
    def name(self) -> str:
        return "handoffs"

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        return self._drivers[self.cast.first]().output_modes

    def request_for(self, request: ModelRequest) -> tuple[str, ModelRequest]:
        """Who answers ``request``, and the request their model gets."""
        cast = self.cast
        member = cast.speaker(request.messages)
        own = member.specs
        tools = tuple(
            own.get(spec.name, spec)
            for spec in request.tools
            if spec.name in own or spec.name not in cast.managed
        )
        changes: dict[str, Any] = {"tools": tools, "messages": handoff_view(request.messages, cast)}
        if member.definition.id != cast.first:
            changes["system_prompt"] = member.definition.system_prompt
        return member.definition.id, attrs.evolve(request, **changes)

    async def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[Any]]:
        agent_id, asked = self.request_for(request)
        driver = self._current = self._drivers[agent_id]
        stream = driver().receive_batches(asked)
        try:
            async for batch in stream:
                yield batch
        finally:
            await close_stream(stream)

    def receive(self, request: ModelRequest) -> AsyncIterator[Any]:
        return self._events(request)

    async def _events(self, request: ModelRequest) -> AsyncIterator[Any]:
        async for batch in self.receive_batches(request):
            for event in batch:
                yield event

    def interrupt(self) -> None:
        if self._current is not None:
            self._current().interrupt()

    async def aclose(self) -> None:
        for driver in self._drivers.values():
            await driver.aclose()
