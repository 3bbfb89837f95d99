"""Agent-loop overhead: per model turn, per tool call, and parallel tool wall time.

Runs the real ``Agent`` (loop processor + runtime + assembler) against a ``ScriptedDriver``
with no-op tools, so the figures are the engine's own cost, not a model's or a tool's.
Targets: < 100 µs per tool call; 10 tools sleeping 100 ms each finish in < 150 ms.
Each overhead figure is the best of a few rounds (as ``timeit`` reports), so a busy
machine inflates it less.
"""

from __future__ import annotations

import asyncio
import time

from agentcore.agent import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.tools import tool


@tool
async def noop() -> str:
    """Do nothing."""
    return "ok"


@tool
async def nap() -> str:
    """Sleep 100 ms."""
    await asyncio.sleep(0.1)
    return "rested"


def _turns_per_second(turns: int) -> float:
    agent = Agent(ScriptedDriver([text_turn("ok", chunk=2) for _ in range(turns)]))

    async def main() -> None:
        for _ in range(turns):
            await agent.prompt("hi")

    start = time.perf_counter()
    asyncio.run(main())
    return (time.perf_counter() - start) / turns


def _run_with_calls(calls: int, repeats: int) -> float:
    """Seconds per run of a fresh agent whose model asks for ``calls`` no-op tool calls."""
    agents = [
        Agent(
            ScriptedDriver(
                [tool_turn([(f"c{i}", "noop", {}) for i in range(calls)]), text_turn("ok")]
            ),
            tools=[noop],
        )
        for _ in range(repeats)
    ]

    async def main() -> None:
        for agent in agents:
            await agent.prompt("go")

    start = time.perf_counter()
    asyncio.run(main())
    return (time.perf_counter() - start) / repeats


def _per_tool_call(calls: int = 101, repeats: int = 20, rounds: int = 5) -> float:
    """The difference between runs with ``calls`` and with 1 call, per extra call: the
    whole cost of a call (streamed request, validation, task, result, history)."""
    _run_with_calls(calls, 3)  # warm up
    return min(
        (_run_with_calls(calls, repeats) - _run_with_calls(1, repeats)) / (calls - 1)
        for _ in range(rounds)
    )


def _parallel_wall() -> float:
    calls: list[tuple[str, str, dict[str, object]]] = [(f"n{i}", "nap", {}) for i in range(10)]
    agent = Agent(ScriptedDriver([tool_turn(calls), text_turn("done")]), tools=[nap])
    start = time.perf_counter()
    asyncio.run(agent.prompt("go"))
    return time.perf_counter() - start


def main() -> None:
    per_turn = min(_turns_per_second(300) for _ in range(3))
    print(f"model turn (text reply, full agent):  {per_turn * 1e6:8.1f} µs/turn")
    per_call = _per_tool_call()
    flag = "OK" if per_call < 100e-6 else "SLOW"
    print(f"tool call overhead (no-op tools):     {per_call * 1e6:8.1f} µs/call  [{flag}, <100]")
    wall = _parallel_wall()
    flag = "OK" if wall < 0.150 else "SLOW"
    print(f"10 parallel tools sleeping 100 ms:    {wall * 1e3:8.1f} ms wall    [{flag}, <150]")


if __name__ == "__main__":
    main()
