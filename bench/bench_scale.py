"""10,000 agents in one process, each making one tool call: memory and latency.

Each agent has its own driver and shares one presenter. The driver yields its events
one per async step (``await asyncio.sleep(0)`` before each), as a network driver whose
chunks hold one event each, so the 10,000 runs interleave; it stamps
``perf_counter_ns`` right before yielding each event, and the presenter stamps it again
when that event reaches it (the conversation echoes stream events as outputs). The
difference is the driver-to-presenter latency: the runtime, the fold and delivery, plus
the wait behind the other agents' steps, which is what load does to it. Every model
call is one message: the first asks for the ``add`` tool, the second answers.

Printed: the memory of one idle agent (tracemalloc, over all of them, after
construction), then the wall time of all the runs at once and the p50/p99/max latency.
``AGENTCORE_BENCH_SCALE``
scales the number of agents (default 1.0: 10,000).

Run with ``python -m bench scale``.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
import tracemalloc
from collections.abc import AsyncIterator
from typing import Any

from agentcore import Agent, BaseDriver, ModelRequest
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
)

AGENTS = max(100, round(10_000 * float(os.environ.get("AGENTCORE_BENCH_SCALE", "1"))))
TARGET_P99_US = 200_000.0
"""No target from the issue: reported. A p99 above this (0.2 s) is flagged."""


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class StampingDriver(BaseDriver):
    """A tool call, then an answer; each event stamped as it leaves (``sent``)."""

    def __init__(self, sent: dict[int, int]) -> None:
        self.sent = sent

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:  # type: ignore[override]
        answered = isinstance(request.messages[-1], ToolResultMessage)
        events: list[StreamEvent] = [MessageStart("m", "bench", timestamp=1)]
        if answered:
            events += [TextDelta("The answer ", 0, timestamp=1), TextDelta("is 4.", 0, timestamp=1)]
            events += [MessageDelta(stop_reason="end_turn", timestamp=1)]
            events += [MessageStop("end_turn", timestamp=1)]
        else:
            events += [
                ToolUseStart("c1", "add", 0, timestamp=1),
                InputJsonDelta('{"a": 2, "b": 2}', 0, timestamp=1),
                ToolUseStop("c1", 0, timestamp=1),
                MessageDelta(stop_reason="tool_use", timestamp=1),
                MessageStop("tool_use", timestamp=1),
            ]
        for event in events:
            await asyncio.sleep(0)
            self.sent[id(event)] = time.perf_counter_ns()
            yield event


class StampingPresenter:
    def __init__(self, sent: dict[int, int], latencies: list[int]) -> None:
        self.sent = sent
        self.latencies = latencies

    def present(self, agent_id: str, output: Any) -> None:
        start = self.sent.pop(id(output), None)
        if start is not None:
            self.latencies.append(time.perf_counter_ns() - start)


def _per_agent(total: int) -> str:
    return f"{total / AGENTS / 1024:.1f} KiB"


async def _run() -> None:
    sent: dict[int, int] = {}
    latencies: list[int] = []
    presenter = StampingPresenter(sent, latencies)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    agents = [
        Agent(StampingDriver(sent), tools=[add], presenters=[presenter]) for _ in range(AGENTS)
    ]
    idle = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    print(f"{AGENTS:,} agents built; memory per idle agent: {_per_agent(idle)} (tracemalloc)")
    start = time.perf_counter()
    results = await asyncio.gather(*(agent.run("What is 2 + 2?") for agent in agents))
    elapsed = time.perf_counter() - start
    assert all(r.output == "The answer is 4." for r in results), results[0]
    assert all(len(r.tool_calls) == 1 for r in results)
    latencies.sort()
    n = len(latencies)
    p50, p99 = (latencies[int(n * q)] / 1000 for q in (0.5, 0.99))
    worst = latencies[-1] / 1000
    flag = "OK" if p99 <= TARGET_P99_US else "SLOW"
    print(
        f"all runs at once (one tool call each): {elapsed:.2f} s, "
        f"{AGENTS / elapsed:,.0f} runs/s, {n:,} events delivered"
    )
    print(
        f"driver -> presenter latency: p50 {p50:,.0f} µs, p99 {p99:,.0f} µs, "
        f"max {worst:,.0f} µs [{flag}: p99 <= {TARGET_P99_US:,.0f} µs]"
    )
    for agent in agents:
        await agent.aclose()


def main() -> None:
    asyncio.run(_run())


if __name__ == "__main__":
    main()
