"""Waking on PostgreSQL notifications (``Notices``), with the poll behind them, and the
trigger that announces a durable run's end to ``DurableRun.result``.

Tests the private module ``agentcore._durable.notices``: the workers' notices."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import psycopg
from harness import Cluster, fresh_database

from agentcore._durable.notices import Notices
from agentcore.durable import DurableClient


def _channel() -> str:
    return f"test_{uuid.uuid4().hex[:12]}"


async def _wait_timed(notices: Notices, key: str, done: list[bool]) -> float:
    async def ask() -> bool:
        return done[0]

    started = time.monotonic()
    await asyncio.wait_for(notices.wait(key, ask), 20)
    return time.monotonic() - started


def test_a_notification_wakes_a_waiter_long_before_its_poll(postgres_db: str) -> None:
    channel = _channel()
    notices = Notices(postgres_db, channel, poll=60)
    try:
        assert notices.listening(10)

        async def scenario() -> float:
            done = [False]
            waiting = asyncio.ensure_future(_wait_timed(notices, "run-1", done))
            await asyncio.sleep(0.2)
            with psycopg.connect(postgres_db, autocommit=True) as conn:
                conn.execute("SELECT pg_notify(%s, 'another-run')", (channel,))
                await asyncio.sleep(0.3)
                assert not waiting.done()  # a payload for someone else: asked, still no
                done[0] = True
                conn.execute("SELECT pg_notify(%s, 'run-1')", (channel,))
            return await waiting

        assert asyncio.run(scenario()) < 5
    finally:
        notices.close()
    assert not notices.listening(0)


def test_a_lost_notification_is_caught_by_the_poll(postgres_db: str) -> None:
    notices = Notices(postgres_db, _channel(), poll=0.3)
    try:
        assert notices.listening(10)

        async def scenario() -> float:
            done = [False]
            waiting = asyncio.ensure_future(_wait_timed(notices, "run-1", done))
            await asyncio.sleep(0.5)
            done[0] = True  # and no notification
            return await waiting

        assert 0.5 <= asyncio.run(scenario()) < 5
    finally:
        notices.close()


def test_a_dropped_listener_reconnects_and_wakes_its_waiters(postgres_db: str) -> None:
    channel = _channel()
    notices = Notices(postgres_db, channel, poll=60)
    try:
        assert notices.listening(10)

        async def scenario() -> float:
            done = [False]
            waiting = asyncio.ensure_future(_wait_timed(notices, "run-1", done))
            await asyncio.sleep(0.2)
            done[0] = True  # decided while the connection is cut: its notification is lost
            with psycopg.connect(postgres_db, autocommit=True) as conn:
                (killed,) = conn.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE query = %s",
                    (f"LISTEN {channel}",),
                ).fetchone() or (0,)
                assert killed == 1
            return await waiting

        assert asyncio.run(scenario()) < 10  # the reconnection asks again; not the poll
        assert notices.listening(10)
    finally:
        notices.close()


def test_a_run_result_is_woken_by_the_end_trigger(postgres_server: Any) -> None:
    cluster = Cluster(fresh_database(postgres_server), 1)
    try:

        async def scenario() -> None:
            async with DurableClient(cluster.url) as client:
                client.endings.poll = 120  # only the trigger's notification can wake it
                runs = [await client.submit(f"t{i}", "counter", "go") for i in range(3)]
                for run in runs:
                    assert (await run.result(30))["status"] == "completed"

        asyncio.run(scenario())
    finally:
        assert cluster.close() == {0: 0}
