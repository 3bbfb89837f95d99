"""100 agents with tool calls on three worker processes; two are killed with SIGKILL
while tools run and models stream. Every run completes on the survivor; no input is
lost; no tool result is duplicated in any history; each history passes the
provider-validity check; each agent's journal replays to exactly the outputs its
workflows delivered; each ``charge`` took effect exactly once (its idempotency key)
although a call caught running by a kill ran again.
"""

from __future__ import annotations

import asyncio
import collections
import time
from typing import Any

import psycopg
from harness import Cluster, fresh_database

from agentcore.durable import DurableClient
from agentcore.events import to_dict
from agentcore.loop import history_problems

AGENTS = 100
EXPECTED = [
    ("user_message", None),
    ("assistant_message", ("call_0_0", "call_0_1")),
    ("tool_result_message", "call_0_0"),
    ("tool_result_message", "call_0_1"),
    ("assistant_message", ("call_1_0",)),
    ("tool_result_message", "call_1_0"),
    ("assistant_message", ()),
]


def _shape(history: tuple[Any, ...]) -> list[Any]:
    out: list[Any] = []
    for m in history:
        if m.type == "assistant_message":
            out.append((m.type, tuple(c.tool_call_id for c in m.tool_calls)))
        elif m.type == "tool_result_message":
            out.append((m.type, m.tool_call_id))
        else:
            out.append((m.type, None))
    return out


def _count(url: str, sql: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


async def _wait_for(url: str, sql: str, at_least: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while _count(url, sql) < at_least:
        assert time.monotonic() < deadline, f"timed out waiting for {sql} >= {at_least}"
        await asyncio.sleep(0.02)


async def _scenario(url: str, cluster: Cluster) -> None:
    async with DurableClient(url) as client:
        prompts = {}
        runs = []
        for i in range(AGENTS):
            run = await client.submit(f"agent-{i}", "counter", f"task {i}")
            runs.append(run)
        # first kill: while charges run (each sleeps after its effect) and models stream
        await _wait_for(url, "SELECT count(*) FROM executions", 15)
        cluster.kill(0)
        # second kill: later, in the second round of model calls and tools
        await _wait_for(url, "SELECT count(*) FROM executions", 60)
        cluster.kill(1)
        try:
            results = await asyncio.gather(*(r.result(timeout=80) for r in runs))
        except TimeoutError:
            raise AssertionError(
                f"runs left: {cluster.statuses()}, workers {cluster.ids}"
            ) from None
        assert {r["status"] for r in results} == {"completed"}
        assert {r["error"] is None for r in results} == {True}

        for i, run in enumerate(runs):
            agent_id = f"agent-{i}"
            history = client.history(agent_id)
            assert _shape(history) == EXPECTED, agent_id
            assert history[0].content == f"task {i}"  # the input is there, once
            results_ids = [m.tool_call_id for m in history if m.type == "tool_result_message"]
            assert len(results_ids) == len(set(results_ids))
            assert history_problems(history) == [], agent_id
            assert [m.is_error for m in history if m.type == "tool_result_message"] == [False] * 3
            delivered = [to_dict(o) async for o in run.events()]
            replayed = [to_dict(o) for o in client.replay(agent_id)]
            assert delivered == replayed, agent_id
            prompts[agent_id] = sum(
                1 for e in client.journal.entries(agent_id) if e.event.type == "agent_prompt"
            )
        assert set(prompts.values()) == {1}

        attempts: dict[tuple[str, int], set[int]] = collections.defaultdict(set)
        for run in runs:
            async for batch in run.live():
                attempts[(batch["agent_id"], batch["call"])].add(batch["attempt"])
        restarted = sum(1 for found in attempts.values() if len(found) > 1)
        assert restarted >= 1, "no kill caught a model streaming: the test proved nothing"

    charges = _count(url, "SELECT count(*) FROM charges")
    keys = _count(url, "SELECT count(DISTINCT key) FROM executions")
    again = _count(
        url, "SELECT count(*) FROM (SELECT key FROM executions GROUP BY key HAVING count(*) > 1) k"
    )
    assert charges == keys == AGENTS  # one effect per call, whatever ran twice
    assert again >= 1, "no kill caught a charge running: the test proved nothing"


def test_two_workers_killed_mid_tool_and_mid_stream(postgres_server: Any) -> None:
    url = fresh_database(postgres_server)
    cluster = Cluster(url, 3, env={"DURABLE_TOOL_SLEEP": "1.5", "DURABLE_DELTA_SLEEP": "0.02"})
    try:
        asyncio.run(_scenario(url, cluster))
    finally:
        codes = cluster.close()
    assert codes[2] == 0
