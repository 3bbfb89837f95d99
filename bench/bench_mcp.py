"""MCP figures: what a tool call through ``MCPServer`` costs beyond the server's own time.

For each transport (stdio, streamable HTTP on 127.0.0.1) the test server of
``tests/mcp/servers/everything.py`` answers ``add``. Calls are timed sequentially, as
the median of ``BLOCKS`` blocks of ``CALLS`` calls, in wall time and in this process's
CPU time (the client's own work; the server runs in another process):

- the raw SDK (``mcp.Client.call_tool`` awaited in the caller's task): the transport's
  and the server's time, the floor any client pays;
- an agentcore tool from ``MCPServer.tools()`` run with ``run_tool``, as the agent runs
  it. The CPU difference to the raw SDK is agentcore's overhead (the owner task's queue,
  the request's task and deadline, the abort-signal race, result conversion); wall time
  on this shared 2-core machine adds scheduling noise on top;
- the hop alone: a request through the owner task that does no I/O;
- a direct function tool run with ``run_tool``, for scale.

Connect time (spawn, import, handshake for stdio; handshake for HTTP) is the median of
``CONNECTS`` connections.

Through an agent (``Agent(toolsets=[server])``, a scripted model): what owning a server
adds to a run that calls no tool (listing the server's tools from its cache before the
run), per run, against the same agent without toolsets (the median of ``BLOCKS`` blocks
of ``RUNS`` runs); and a turn of ``TURN_CALLS`` calls to ``add``, per call, through the
server and as a direct function tool.
"""

from __future__ import annotations

import asyncio
import pathlib
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client, StdioServerParameters

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.mcp import MCPServer
from agentcore.tools import AbortSignal, ToolContext, run_tool, tool

SERVER = str(pathlib.Path(__file__).parents[1] / "tests" / "mcp" / "servers" / "everything.py")
CALLS = 200
BLOCKS = 9
CONNECTS = 3
RUNS = 100
TURN_CALLS = 50
TURNS = 5
ARGS = {"a": 2, "b": 3}


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _ctx() -> ToolContext:
    return ToolContext("call_bench", "add", AbortSignal(), (), lambda _: None)


async def _per_call(call: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """Median over blocks of (wall seconds, CPU seconds of this process) per call."""
    await call()  # warm up
    walls, cpus = [], []
    for _ in range(BLOCKS):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(CALLS):
            await call()
        walls.append((time.perf_counter() - wall) / CALLS)
        cpus.append((time.process_time() - cpu) / CALLS)
    return statistics.median(walls), statistics.median(cpus)


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} µs"


async def _transport(label: str, target: str | StdioServerParameters, server: MCPServer) -> None:
    async with Client(target, cache=None) as client:
        raw_wall, raw_cpu = await _per_call(lambda: client.call_tool("add", ARGS))
    async with server:
        mcp_tool = next(t for t in await server.tools() if t.name == "add")
        wall, cpu = await _per_call(lambda: run_tool(mcp_tool, ARGS, _ctx()))
        hop_wall, _ = await _per_call(lambda: server._request(_nothing, "nothing"))
        parallel = time.perf_counter()
        await asyncio.gather(*(run_tool(mcp_tool, ARGS, _ctx()) for _ in range(100)))
        parallel = time.perf_counter() - parallel
    print(
        f"{label}: raw SDK call {_us(raw_wall)} wall, {_us(raw_cpu)} client CPU; "
        f"MCPServer tool via run_tool {_us(wall)} wall, {_us(cpu)} client CPU; "
        f"agentcore overhead {(cpu - raw_cpu) * 1e6:+,.0f} µs CPU "
        f"({(wall - raw_wall) * 1e6:+,.0f} µs wall); hop through the owner task alone "
        f"{_us(hop_wall)}; 100 calls at once {parallel * 1e3:,.0f} ms"
    )


async def _agent_figures(label: str, make: Callable[[], MCPServer]) -> None:
    """A run's cost of owning a server, and the per-call cost of a turn through an agent."""
    texts = [text_turn("ok", message_id=f"m{i}") for i in range(RUNS * BLOCKS + 1)]
    alone = Agent(ScriptedDriver(texts))
    owning = Agent(ScriptedDriver(texts), toolsets=[make()])
    blocks: dict[Agent, list[float]] = {alone: [], owning: []}
    async with alone, owning:
        for agent in blocks:
            await agent.run("warm up")
        for _ in range(BLOCKS):  # alternate, so drift on a shared machine hits both
            for agent, times in blocks.items():
                began = time.perf_counter()
                for _ in range(RUNS):
                    await agent.run("hi")
                times.append((time.perf_counter() - began) / RUNS)
    run_times = [statistics.median(blocks[alone]), statistics.median(blocks[owning])]
    calls = [(f"c{i}", "add", ARGS) for i in range(TURN_CALLS)]
    per_call = []
    for toolsets, tools in (([make()], []), ([], [add])):
        turns = [t for i in range(TURNS + 1) for t in (tool_turn(calls), text_turn("ok"))]
        async with Agent(ScriptedDriver(turns), tools=tools, toolsets=toolsets) as agent:
            await agent.run("warm up")
            walls = []
            for _ in range(TURNS):
                began = time.perf_counter()
                await agent.run("add")
                walls.append((time.perf_counter() - began) / TURN_CALLS)
            per_call.append(statistics.median(walls))
    print(
        f"{label} through an agent: a run without tool calls {_us(run_times[0])} alone, "
        f"{_us(run_times[1])} owning the server ({(run_times[1] - run_times[0]) * 1e6:+,.0f} "
        f"µs per run); a turn of {TURN_CALLS} calls {_us(per_call[0])} per MCP call, "
        f"{_us(per_call[1])} per direct function call"
    )


async def _nothing(client: Client) -> None:
    return None


async def _connect_time(make: Callable[[], MCPServer]) -> float:
    times = []
    for _ in range(CONNECTS):
        server = make()
        start = time.perf_counter()
        await server.connect()
        times.append(time.perf_counter() - start)
        await server.aclose()
    return statistics.median(times)


async def _run(url: str) -> None:
    direct, _ = await _per_call(lambda: run_tool(add, ARGS, _ctx()))
    print(f"direct function tool via run_tool: {direct * 1e6:,.1f} µs per call")
    stdio_params = StdioServerParameters(command=sys.executable, args=[SERVER])
    await _transport("stdio", stdio_params, MCPServer.stdio(sys.executable, [SERVER]))
    await _transport("streamable HTTP", url, MCPServer.http(url))
    stdio = await _connect_time(lambda: MCPServer.stdio(sys.executable, [SERVER]))
    http = await _connect_time(lambda: MCPServer.http(url))
    print(
        f"connect: stdio {stdio * 1e3:,.0f} ms (spawn, Python and SDK import, handshake); "
        f"streamable HTTP {http * 1e3:,.0f} ms (handshake with a running server); "
        f"median of {CONNECTS}"
    )
    await _agent_figures("stdio", lambda: MCPServer.stdio(sys.executable, [SERVER]))
    await _agent_figures("streamable HTTP", lambda: MCPServer.http(url))


def main() -> None:
    process = subprocess.Popen([sys.executable, SERVER, "http"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = f"http://127.0.0.1:{int(process.stdout.readline())}/mcp"
        asyncio.run(_run(url))
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
