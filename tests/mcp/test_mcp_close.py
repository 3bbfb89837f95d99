"""Closing a stdio server is bounded by ``close_timeout`` whatever the server does (a
tool stuck in a worker thread, a frozen event loop, SIGTERM ignored), and no process of
the server outlives ``aclose()``: its group is terminated, then killed.

Tests the private module ``agentcore._mcp.stdio``: its grace and reaping timeouts."""

from __future__ import annotations

import asyncio
import os
import sys
import time

import pytest

from agentcore import Agent
from agentcore._mcp.stdio import REAP_TIMEOUT, TERM_GRACE
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.mcp import MCPServer

from .conftest import EVERYTHING, SERVERS

STUBBORN = str(SERVERS / "stubborn.py")

SLACK = 1.0
"""Seconds allowed beyond the documented bound (process start-up, a loaded machine)."""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by its parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def _int(server: MCPServer, tool: str) -> int:
    result = await server.call_tool(tool)
    assert not result.is_error, result.content
    return int(result.content)


async def _timed_close(server: MCPServer, bound: float) -> float:
    """``aclose()``'s duration; fails (instead of hanging) past ``bound`` + slack."""
    started = time.monotonic()
    await asyncio.wait_for(server.aclose(), bound + SLACK + 5)
    took = time.monotonic() - started
    assert took < bound + SLACK, f"aclose took {took:.1f} s (bound {bound:g} s)"
    return took


@pytest.mark.parametrize("close_timeout", [1, 2])
@pytest.mark.parametrize("stuck", ["worker thread", "frozen loop"])
def test_closing_a_server_that_does_not_exit_is_bounded_by_close_timeout(
    close_timeout: float, stuck: str
) -> None:
    """The attack run's repro: a call timed out, the server keeps running at close (a
    tool sleeping in a worker thread, or the whole event loop blocked), and a short
    ``close_timeout``. ``aclose()`` returns after about ``close_timeout`` (SIGTERM ends
    it) and the process is gone."""
    script, tool = (STUBBORN, "slow") if stuck == "worker thread" else (EVERYTHING, "freeze")

    async def main() -> None:
        server = MCPServer.stdio(
            sys.executable, [script], timeout=0.5, probe_timeout=60, close_timeout=close_timeout
        )
        pid = await _int(server, "pid")
        stuck_call = await server.call_tool(tool)
        assert stuck_call.is_error and stuck_call.details["kind"] == "timeout"
        took = await _timed_close(server, close_timeout + TERM_GRACE)
        assert took >= close_timeout - 0.1  # it was given its grace first
        assert not _alive(pid)

    asyncio.run(main())


def test_a_server_ignoring_sigterm_is_killed_and_so_is_its_child() -> None:
    """SIGTERM ignored: SIGKILL follows ``TERM_GRACE`` later. A child the server started
    (same process group) dies with it."""

    async def main() -> None:
        server = MCPServer.stdio(sys.executable, [STUBBORN], timeout=0.5, close_timeout=1)
        pid = await _int(server, "pid")
        child = await _int(server, "spawn")
        assert (await server.call_tool("ignore_term")).content == "ignoring SIGTERM"
        await server.call_tool("slow")
        await _timed_close(server, 1 + TERM_GRACE + REAP_TIMEOUT)
        assert not _alive(pid)
        deadline = time.monotonic() + 2  # the child's parent reaps it when it dies
        while _alive(child) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert not _alive(child)

    asyncio.run(main())


def test_a_server_that_exits_on_its_own_closes_without_waiting_out_the_timeout() -> None:
    async def main() -> None:
        server = MCPServer.stdio(sys.executable, [STUBBORN], close_timeout=30)
        pid = await _int(server, "pid")
        await _timed_close(server, 3)
        assert not _alive(pid)

    asyncio.run(main())


def test_agent_aclose_is_bounded_by_its_servers_close_timeout() -> None:
    async def main() -> None:
        server = MCPServer.stdio(
            sys.executable, [STUBBORN], timeout=0.5, probe_timeout=60, close_timeout=1
        )
        agent = Agent(ScriptedDriver([text_turn("hi")]), toolsets=[server])
        await agent.run("hi")
        pid = await _int(server, "pid")
        await server.call_tool("slow")
        started = time.monotonic()
        await asyncio.wait_for(agent.aclose(), 1 + TERM_GRACE + SLACK + 5)
        assert time.monotonic() - started < 1 + TERM_GRACE + SLACK
        assert not _alive(pid)

    asyncio.run(main())


def test_a_cancelled_close_still_ends_the_server() -> None:
    """The caller of ``aclose()`` gives up half way: the session's owner finishes the
    teardown on its own, within the same bound."""

    async def main() -> None:
        server = MCPServer.stdio(
            sys.executable, [STUBBORN], timeout=0.5, probe_timeout=60, close_timeout=1
        )
        pid = await _int(server, "pid")
        await server.call_tool("slow")
        closing = asyncio.ensure_future(server.aclose())
        await asyncio.sleep(0.2)
        closing.cancel()
        deadline = time.monotonic() + 1 + TERM_GRACE + SLACK
        while _alive(pid):
            assert time.monotonic() < deadline, "the server outlived a cancelled close"
            await asyncio.sleep(0.05)

    asyncio.run(main())


def test_the_server_runs_in_a_process_group_of_its_own() -> None:
    """So a signal reaches everything it started, and a terminal's Ctrl-C does not."""

    async def main() -> None:
        async with MCPServer.stdio(sys.executable, [STUBBORN]) as server:
            pid = await _int(server, "pid")
            assert os.getpgid(pid) == pid != os.getpgid(0)

    asyncio.run(main())
