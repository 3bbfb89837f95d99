"""Two durable workers share one rate budget through PostgreSQL: together they never send
a local fake provider more than its limit in any window, and it never answers 429.

The provider allows 10 requests in any 4 s; the workers' shared budget is 8 per 4 s: a
loaded test machine delays a request between its grant and its arrival by up to a second,
and the 20% margin absorbs that (alone, each worker's budget would allow 16 a window)."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
from harness import Cluster, fresh_database

from agentcore.drivers.testing import LimitedServer, busiest_window
from agentcore.durable import DurableClient

LIMIT, WINDOW, BUDGET, RUNS = 10, 4.0, 8, 30


def test_two_workers_keep_one_budget_between_them(postgres_server: Any) -> None:
    url = fresh_database(postgres_server, "ratebudget")

    async def scenario() -> tuple[LimitedServer, set[str]]:
        async with LimitedServer(LIMIT, WINDOW) as server:
            env = {
                "RATE_TEST_URL": server.base_url,
                "RATE_TEST_LIMIT": str(BUDGET),
                "RATE_TEST_WINDOW": str(WINDOW),
            }
            cluster = await asyncio.to_thread(
                Cluster, url, 2, env=env, agents="rate_app:definitions"
            )
            try:
                async with DurableClient(url) as client:
                    runs = [await client.submit(f"agent-{i}", "limited", "hi") for i in range(RUNS)]
                    for run in runs:
                        await run.result(120)
            finally:
                assert await asyncio.to_thread(cluster.close) == {0: 0, 1: 0}
        with psycopg.connect(url) as conn:
            executors = conn.execute(
                "SELECT DISTINCT executor_id FROM dbos.workflow_status WHERE status = 'SUCCESS'"
            ).fetchall()
        return server, {row[0] for row in executors}

    server, executors = asyncio.run(scenario())
    assert server.rejected == []
    assert len(server.accepted) == RUNS
    assert busiest_window(server.accepted, WINDOW) <= LIMIT
    assert len(executors) == 2, executors  # both workers made calls
    # and the budget was used, not merely left idle: the calls took their time
    rate = (BUDGET - 1) / WINDOW  # the budget's refill (a burst of one)
    assert server.accepted[-1] - server.accepted[0] >= (RUNS - 1) / rate * 0.9
