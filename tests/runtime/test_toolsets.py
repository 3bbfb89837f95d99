"""Agent(toolsets=[...]) with local toolsets: when they are entered, listed and left, what
a failing or clashing toolset does, and that the tool list a run used is journaled.

MCP servers as toolsets, against real servers, are in tests/mcp/test_mcp_toolsets.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.errors import ConfigurationError
from agentcore.events import ToolResultMessage
from agentcore.journal import MemoryJournal, replay
from agentcore.loop import AgentConfigured
from agentcore.tools import Tool, Toolset, define_tool

OBJ = {"type": "object", "properties": {}}


def _tool(name: str, answer: str = "") -> Tool:
    async def run(args: Any, ctx: Any) -> str:
        return answer or f"{name} ran"

    return define_tool(name, f"the {name} tool", OBJ, run)


class Shelf(Toolset):
    """A toolset whose tools the test changes, counting what the agent does with it."""

    def __init__(self, name: str, *tools: Tool, fail: Exception | None = None) -> None:
        self.name = name
        self.listing: tuple[Tool, ...] = tools
        self.fail = fail
        self.log: list[str] = []
        self.on_change: Callable[[], None] | None = None

    async def tools(self) -> Sequence[Tool]:
        self.log.append("tools")
        if self.fail is not None:
            raise self.fail
        return self.listing

    def watch(self, on_change: Callable[[], None]) -> Callable[[], None]:
        self.on_change = on_change
        return lambda: setattr(self, "on_change", None)

    async def __aenter__(self) -> Shelf:
        self.log.append("enter")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.log.append("exit")


def _results(agent: Agent) -> list[Any]:
    return [m.result for m in agent.state.messages if isinstance(m, ToolResultMessage)]


def test_toolsets_are_entered_listed_each_run_and_left_on_close() -> None:
    shelf = Shelf("shelf", _tool("a"))
    turns = [tool_turn([("c1", "a", {})]), text_turn("one"), text_turn("two")]

    async def main() -> Agent:
        agent = Agent(ScriptedDriver(turns), toolsets=[shelf], tools=[_tool("own")])
        assert shelf.log == [] and shelf.on_change is not None  # nothing before the first run
        await agent.run("first")
        await agent.run("second")
        assert [t.name for t in agent.config.tools] == ["own", "a"]
        await agent.aclose()
        await agent.aclose()
        return agent

    agent = asyncio.run(main())
    assert shelf.log == ["enter", "tools", "tools", "exit"]
    assert shelf.on_change is None and _results(agent) == ["a ran"]


def test_a_change_announced_mid_run_reaches_the_next_model_call() -> None:
    shelf = Shelf("shelf")

    async def grow(args: Any, ctx: Any) -> str:
        shelf.listing = (*shelf.listing, _tool("late", "late ran"))
        assert shelf.on_change is not None
        shelf.on_change()  # as an MCP server's list_changed arrives before the result
        return "grown"

    shelf.listing = (define_tool("grow", "add a tool", OBJ, grow),)
    model = ScriptedDriver(
        [tool_turn([("c1", "grow", {})]), tool_turn([("c2", "late", {})]), text_turn("done")]
    )
    journal = MemoryJournal()

    async def main() -> Agent:
        agent = Agent(model, toolsets=[shelf], journal=journal, agent_id="a")
        await agent.run("grow")
        return agent

    agent = asyncio.run(main())
    assert _results(agent) == ["grown", "late ran"]
    assert [t.name for t in model.requests[1].tools] == ["grow", "late"]
    configured = [e for e in journal.entries("a") if isinstance(e.event, AgentConfigured)]
    assert [[t["name"] for t in c.event.config["tools"]] for c in configured] == [
        [],
        ["grow"],
        ["grow", "late"],
    ]
    assert [o for _, o in replay(journal) if isinstance(o, ToolResultMessage)] == [
        m for m in agent.state.messages if isinstance(m, ToolResultMessage)
    ]


def test_a_failing_toolset_is_reported_and_keeps_its_last_tools() -> None:
    broken = Shelf("broken", _tool("b"))
    good = Shelf("good", _tool("g"))
    failures: list[Any] = []
    turns = [
        tool_turn([("c1", "g", {})]),
        text_turn("one"),
        tool_turn([("c2", "b", {})], message_id="m3"),
        text_turn("two"),
    ]

    async def main() -> Agent:
        agent = Agent(ScriptedDriver(turns), toolsets=[broken, good])
        agent.on_error(failures.append)
        await agent.run("first")
        broken.fail = RuntimeError("listing failed")
        await agent.run("second")  # b stays, from the last listing
        return agent

    agent = asyncio.run(main())
    assert _results(agent) == ["g ran", "b ran"]
    ((failure),) = failures
    assert (failure.source, failure.name, str(failure.error)) == (
        "toolset",
        "broken",
        "listing failed",
    )


def test_a_toolset_that_cannot_start_is_tried_again_at_the_next_run() -> None:
    class Flaky(Shelf):
        starts = 0

        async def __aenter__(self) -> Flaky:
            self.starts += 1
            if self.starts == 1:
                raise ConnectionError("not yet")
            return self

    flaky = Flaky("flaky", _tool("f"))
    failures: list[Any] = []

    async def main() -> Agent:
        turns = [text_turn("no tools yet"), tool_turn([("c1", "f", {})]), text_turn("ok")]
        agent = Agent(ScriptedDriver(turns), toolsets=[flaky])
        agent.on_error(failures.append)
        assert (await agent.run("one")).output == "no tools yet"
        assert agent.config.tools == ()
        await agent.run("two")
        return agent

    agent = asyncio.run(main())
    assert [type(f.error) for f in failures] == [ConnectionError]
    assert _results(agent) == ["f ran"] and flaky.starts == 2


def test_a_name_clash_keeps_the_first_owner_and_is_reported() -> None:
    first, second = Shelf("first", _tool("x", "first x")), Shelf("second", _tool("x", "other"))
    failures: list[Any] = []

    async def main() -> Agent:
        turns = [tool_turn([("c1", "x", {})]), text_turn("ok"), text_turn("again")]
        agent = Agent(ScriptedDriver(turns), toolsets=[first, second])
        agent.on_error(failures.append)
        await agent.run("go")
        await agent.run("go again")  # nothing changed: not reported twice
        return agent

    agent = asyncio.run(main())
    assert _results(agent) == ["first x"]
    (failure,) = failures
    assert failure.name == "second" and "prefix=" in str(failure.error)


def test_toolsets_must_be_toolsets() -> None:
    with pytest.raises(ConfigurationError, match="pass plain tools as tools="):
        Agent(ScriptedDriver([]), toolsets=[_tool("t")])  # type: ignore[list-item]
