"""Durable agents (DBOS on PostgreSQL; a real server started here, as in the tests).

1. Throughput with 1, 2 and 4 worker processes on this machine: ``AGENTS`` agents, each
   one run of three model calls (6 text deltas each) and three tool calls, submitted at
   once; runs/s, and journaled inputs/s (every input the workflows folded: the events).
   Beside them, the CPU time one run costs in the workers, in PostgreSQL and in the
   client: on a machine shared with other work, the figure that says what a core
   carries (docs/durable.md's projection is drawn from it), where runs/s says what this
   machine had free.
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
import random
import resource
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
LATENCY_RUNS = max(10, int(40 * SCALE))


def _entries(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM agentcore_entries").fetchone()
    assert row is not None
    return int(row[0])


def _cpu(pid: int, children: bool = False) -> float:
    """CPU seconds process ``pid`` used (and, with ``children``, its reaped children)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def _server_cpu(server: PostgresServer) -> float:
    """CPU seconds of the PostgreSQL server: the postmaster, its live backends, and the
    backends it has reaped."""
    root = int((server.data_dir / "postmaster.pid").read_text().split()[0])
    total = _cpu(root, children=True)
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone while listed
            continue
        if int(fields[1]) == root:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _throughput(
    url: str, server: PostgresServer, cluster: Cluster
) -> tuple[float, float, tuple[float, float, float]]:
    """runs/s, journaled inputs/s, and CPU ms per run (workers, PostgreSQL, client)."""

    def cpu() -> tuple[float, float, float]:
        workers = sum(_cpu(p.pid) for p in cluster.processes)
        return workers, _server_cpu(server), _client_cpu()

    async with DurableClient(url) as client:
        warm = await client.submit("warm", "counter", "warm up")
        await warm.result(60)
        before = _entries(url)
        cpu_before = cpu()
        started = time.perf_counter()
        runs = [await client.submit(f"a{i}", "counter", f"task {i}") for i in range(AGENTS)]
        await asyncio.gather(*(r.result(300) for r in runs))
        took = time.perf_counter() - started
        used = tuple((b - a) * 1000 / AGENTS for a, b in zip(cpu_before, cpu(), strict=True))
    return AGENTS / took, (_entries(url) - before) / took, (used[0], used[1], used[2])


async def _durable_latency(url: str) -> float:
    async with DurableClient(url) as client:
        times = []
        for i in range(LATENCY_RUNS):
            # a random pause, so each run meets the queue's poll at a random phase (runs
            # back to back lock onto the poll's period: all lucky or all unlucky)
            await asyncio.sleep(random.random() * 0.05)
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
    print(f"load average before: {_load()}")
    with PostgresServer(settings={"max_connections": "300"}) as server:
        baseline: Any = None
        for workers in (1, 2, 4):
            url = fresh_database(server, "bench")
            cluster = Cluster(url, workers, concurrency=max(1, AGENTS // workers + 1))
            try:
                runs, events, (in_workers, in_server, in_client) = asyncio.run(
                    _throughput(url, server, cluster)
                )
            finally:
                cluster.close()
            baseline = baseline or runs
            print(
                f"{workers} worker(s): {AGENTS} runs, {runs:8.1f} runs/s, "
                f"{events:9.0f} journaled inputs/s, x{runs / baseline:.2f} of 1 worker; "
                f"CPU per run: workers {in_workers:.0f} ms, PostgreSQL {in_server:.0f} ms, "
                f"client {in_client:.0f} ms"
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
    print(f"load average after: {_load()}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
