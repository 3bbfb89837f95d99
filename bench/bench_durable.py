"""Durable agents (DBOS on PostgreSQL; a real server started here, as in the tests).

1. Throughput with 1, 2 and 4 worker processes on this machine: ``AGENTS`` agents, each
   one run of three model calls (6 text deltas each) and three tool calls, submitted at
   once; runs/s, and journaled inputs/s (every input the workflows folded).
2. Added latency per step: one agent's run, one after another, in process (``Agent``
   with no journal) and durable (one worker); the difference divided by the run's six
   effect steps (three model calls, three tool calls).

The model and tools are ``tests/durable/durable_app.py``'s with no sleeps, so the figures
are the engine's and DBOS's cost, not a model's. ``AGENTCORE_BENCH_SCALE`` (default 1.0)
scales the agent count.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import statistics
import sys
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "durable"))

import durable_app  # noqa: E402
from harness import Cluster, fresh_database  # noqa: E402

from agentcore import Agent  # noqa: E402
from agentcore.durable import DurableClient  # noqa: E402
from agentcore.testing import PostgresServer  # noqa: E402

SCALE = float(os.environ.get("AGENTCORE_BENCH_SCALE", "1"))
AGENTS = max(10, int(300 * SCALE))
STEPS = 6
LATENCY_RUNS = max(5, int(20 * SCALE))


def _entries(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM agentcore_entries").fetchone()
    assert row is not None
    return int(row[0])


async def _throughput(url: str) -> tuple[float, float]:
    async with DurableClient(url) as client:
        warm = await client.submit("warm", "counter", "warm up")
        await warm.result(60)
        before = _entries(url)
        started = time.perf_counter()
        runs = [await client.submit(f"a{i}", "counter", f"task {i}") for i in range(AGENTS)]
        await asyncio.gather(*(r.result(300) for r in runs))
        took = time.perf_counter() - started
    return AGENTS / took, (_entries(url) - before) / took


async def _durable_latency(url: str) -> float:
    async with DurableClient(url) as client:
        times = []
        for i in range(LATENCY_RUNS):
            started = time.perf_counter()
            run = await client.submit(f"lat{i}", "counter", "go")
            await run.result(60)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


async def _in_process_latency() -> float:
    definition = durable_app.definitions.get("counter")
    times = []
    for _ in range(LATENCY_RUNS):
        agent = Agent(**definition.options)
        started = time.perf_counter()
        await agent.run("go")
        times.append(time.perf_counter() - started)
        await agent.aclose()
    return statistics.median(times)


def main() -> None:
    os.environ.pop("DURABLE_TOOL_SLEEP", None)
    os.environ.pop("DURABLE_DELTA_SLEEP", None)
    with PostgresServer(settings={"max_connections": "300"}) as server:
        baseline: Any = None
        for workers in (1, 2, 4):
            url = fresh_database(server, "bench")
            cluster = Cluster(url, workers, concurrency=max(1, AGENTS // workers + 1))
            try:
                runs, events = asyncio.run(_throughput(url))
            finally:
                cluster.close()
            baseline = baseline or runs
            print(
                f"{workers} worker(s): {AGENTS} runs, {runs:8.1f} runs/s, "
                f"{events:9.0f} journaled inputs/s, x{runs / baseline:.2f} of 1 worker"
            )
        url = fresh_database(server, "bench")
        cluster = Cluster(url, 1)
        try:
            durable = asyncio.run(_durable_latency(url))
        finally:
            cluster.close()
    local = asyncio.run(_in_process_latency())
    print(
        f"one run (6 steps), median of {LATENCY_RUNS}: in process {local * 1000:.1f} ms, "
        f"durable {durable * 1000:.1f} ms: +{(durable - local) / STEPS * 1000:.1f} ms per step"
    )


if __name__ == "__main__":
    main()
