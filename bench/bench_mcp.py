"""MCP figures: what a tool call through ``MCPServer`` costs beyond the server's own time.

For each transport (stdio, streamable HTTP on 127.0.0.1) the test server of
``tests/mcp/servers/everything.py`` answers ``add``. Three ways of calling are timed,
sequentially, each as the median of ``BLOCKS`` blocks of ``CALLS`` calls:

- the raw SDK (``mcp.Client.call_tool`` awaited in the caller's task): the transport's
  and the server's own time, the floor any client pays;
- an agentcore tool from ``MCPServer.tools()`` run with ``run_tool``, as the agent runs
  it: the difference to the raw SDK is agentcore's overhead (the owner task's queue and
  future, the abort-signal race, result conversion);
- a direct function tool run with ``run_tool``, for scale.

Connect time (spawn, import, handshake for stdio; handshake for HTTP) is the median of
``CONNECTS`` connections. The machine has 2 cores shared with the server process, so
figures are noisy; compare medians.
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

from agentcore.mcp import MCPServer
from agentcore.tools import AbortSignal, ToolContext, run_tool, tool

SERVER = str(pathlib.Path(__file__).parents[1] / "tests" / "mcp" / "servers" / "everything.py")
CALLS = 200
BLOCKS = 5
CONNECTS = 3
ARGS = {"a": 2, "b": 3}


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _ctx() -> ToolContext:
    return ToolContext("call_bench", "add", AbortSignal(), (), lambda _: None)


async def _per_call(call: Callable[[], Awaitable[Any]]) -> float:
    """Median over blocks of the mean seconds per call."""
    await call()  # warm up
    means = []
    for _ in range(BLOCKS):
        start = time.perf_counter()
        for _ in range(CALLS):
            await call()
        means.append((time.perf_counter() - start) / CALLS)
    return statistics.median(means)


async def _transport(label: str, target: str | StdioServerParameters, server: MCPServer) -> None:
    async with Client(target, cache=None) as client:
        raw = await _per_call(lambda: client.call_tool("add", ARGS))
    async with server:
        mcp_tool = next(t for t in await server.tools() if t.name == "add")
        ours = await _per_call(lambda: run_tool(mcp_tool, ARGS, _ctx()))
        parallel = time.perf_counter()
        await asyncio.gather(*(run_tool(mcp_tool, ARGS, _ctx()) for _ in range(100)))
        parallel = time.perf_counter() - parallel
    print(
        f"{label}: raw SDK call {raw * 1e6:,.0f} µs; MCPServer tool via run_tool "
        f"{ours * 1e6:,.0f} µs; agentcore overhead {(ours - raw) * 1e6:+,.0f} µs per call "
        f"({(ours / raw - 1) * 100:+.1f} %); 100 calls at once {parallel * 1e3:,.0f} ms"
    )


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
    direct = await _per_call(lambda: run_tool(add, ARGS, _ctx()))
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
