"""Agents given an MCP server's tools (``tools=await server.tools()``, the server used on
its own), end to end against real servers; agents that own their servers
(``toolsets=[server]``) are in test_mcp_toolsets.py."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from agentcore.agent import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.errors import AbortedError
from agentcore.events import ImageContent, ToolResultMessage
from agentcore.loop import ToolExecutionStart
from agentcore.mcp import MCPServer


def _results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


def test_an_agent_calls_mcp_tools_and_sees_their_results(stdio: Callable[..., MCPServer]) -> None:
    script = [
        tool_turn([("t1", "ev_add", {"a": 2, "b": 3}), ("t2", "ev_image", {})]),
        text_turn("2 + 3 = 5, and a red dot"),
    ]

    async def main() -> tuple[Agent, Any]:
        async with stdio(prefix="ev") as server:
            agent = Agent(ScriptedDriver(script), tools=await server.tools())
            return agent, await agent.run("add 2 and 3, then draw")

    agent, result = asyncio.run(main())
    assert result.output == "2 + 3 = 5, and a red dot"
    added, image = _results(agent)
    assert (added.tool_name, added.result, added.is_error) == ("ev_add", "5", False)
    assert isinstance(image.result, tuple) and isinstance(image.result[1], ImageContent)
    assert image.details == {"server": "everything"}


def test_two_agents_share_one_server_at_the_same_time(http_server: Any) -> None:
    def script(tag: str) -> list[Any]:
        calls = [(f"{tag}{i}", "echo", {"text": f"{tag}{i}", "delay": 0.2}) for i in range(3)]
        return [tool_turn(calls), text_turn(f"{tag} done")]

    async def main() -> tuple[list[Agent], list[Any], float]:
        async with http_server.server() as server:
            tools = await server.tools()
            agents = [Agent(ScriptedDriver(script(tag)), tools=tools) for tag in "ab"]
            began = time.monotonic()
            results = await asyncio.gather(*(a.run("go") for a in agents))
            return agents, results, time.monotonic() - began

    agents, results, elapsed = asyncio.run(main())
    assert [r.output for r in results] == ["a done", "b done"]
    for tag, agent in zip("ab", agents, strict=True):
        assert [m.result for m in _results(agent)] == [f"{tag}{i}" for i in range(3)]
    assert elapsed < 1.2 * 3  # six 0.2 s calls ran side by side, not one after the other


def test_aborting_an_agent_during_an_mcp_call_cancels_it_on_the_server(http_server: Any) -> None:
    script = [tool_turn([("t1", "hang", {})])]

    async def main() -> tuple[Agent, float, dict[str, int], dict[str, int]]:
        async with http_server.server() as server:
            before = (await server.call_tool("stats")).details["structured_content"]
            agent = Agent(ScriptedDriver(script), tools=await server.tools())

            def on_event(event: Any) -> None:
                if isinstance(event, ToolExecutionStart):
                    asyncio.get_running_loop().call_later(0.3, agent.abort)

            agent.subscribe(on_event)
            began = time.monotonic()
            with contextlib.suppress(AbortedError):
                await agent.run("hang")
            elapsed = time.monotonic() - began
            after = before
            for _ in range(50):
                after = (await server.call_tool("stats")).details["structured_content"]
                if after["cancelled"] > before["cancelled"]:
                    break
                await asyncio.sleep(0.02)
            return agent, elapsed, before, after

    agent, elapsed, before, after = asyncio.run(main())
    assert elapsed < 2
    assert agent.state.error is not None and agent.state.error.code == "ABORTED"
    (result,) = _results(agent)
    assert result.is_error and result.details == {"error_code": "ABORTED"}
    assert after["cancelled"] == before["cancelled"] + 1


def test_a_hung_mcp_tool_times_out_and_the_agent_moves_on(http_server: Any) -> None:
    script = [
        tool_turn([("t1", "hang", {})]),
        tool_turn([("t2", "add", {"a": 1, "b": 1})], message_id="m2"),
        text_turn("the first tool timed out; 1 + 1 = 2", message_id="m3"),
    ]

    async def main() -> tuple[Agent, Any]:
        async with http_server.server(timeout=0.5) as server:
            agent = Agent(ScriptedDriver(script), tools=await server.tools())
            return agent, await agent.run("try both")

    agent, result = asyncio.run(main())
    assert result.output == "the first tool timed out; 1 + 1 = 2"
    hung, added = _results(agent)
    assert hung.is_error and "did not answer tool 'hang' within 0.5 s" in str(hung.result)
    assert hung.details is not None and hung.details["kind"] == "timeout"
    assert (added.result, added.is_error) == ("2", False)


def test_mcp_tools_can_require_approval(http_server: Any) -> None:
    script = [tool_turn([("t1", "add", {"a": 1, "b": 1})]), text_turn("2")]

    async def main() -> tuple[Any, Any]:
        async with http_server.server(requires_approval=["add"]) as server:
            agent = Agent(ScriptedDriver(script), tools=await server.tools())
            first = await agent.run("add")
            await agent.approve("t1")
            return first, agent

    first, agent = asyncio.run(main())
    assert first.status == "awaiting_approval"
    assert [m.result for m in _results(agent)] == ["2"]
