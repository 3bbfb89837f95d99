"""The agent definitions the durable tests' workers serve (``--agents durable_app:definitions``).

The model is a deterministic function of the request (it counts the tool results it was
sent), so a call performed again after a worker died asks for the same tool calls. It
streams ``DELTAS`` text deltas ``DELTA_SLEEP`` seconds apart, so a SIGKILL lands mid-stream
as well as mid-tool. ``charge`` changes the database: each execution is counted in
``executions`` and its effect is one row of ``charges`` keyed by ``idempotency_key()``
(a UNIQUE column: the effect is exactly-once however often the call runs); ``lookup``
sleeps and answers.

Environment: ``DURABLE_TEST_DB`` (the database URL), ``DURABLE_TOOL_SLEEP`` and
``DURABLE_DELTA_SLEEP`` (seconds).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from typing import Any

from agentcore import BaseDriver, ModelRequest, tool
from agentcore.durable import Definitions, idempotency_key
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
)

DELTAS = 6
PLAN = [
    [("lookup", {"key": "rates"}), ("charge", {"amount": 3})],
    [("lookup", {"key": "fees"})],
]


def _sleep(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


class CountingModel(BaseDriver):
    """Call n asks for ``PLAN[n]``'s tool calls; after the last, it answers in text.
    ``deltas``/``delay`` override the stream's length and pace (default: the environment's
    pace, ``DELTAS`` deltas); ``plan=False`` answers in text at once."""

    def __init__(self, deltas: int = DELTAS, delay: float | None = None, plan: bool = True):
        self.deltas, self.delay, self.plan = deltas, delay, plan

    async def receive(self, request: ModelRequest) -> AsyncIterator[Any]:  # type: ignore[override]
        done = sum(isinstance(m, ToolResultMessage) for m in request.messages)
        step = {0: 0, 2: 1}.get(done) if self.plan else None
        delay = _sleep("DURABLE_DELTA_SLEEP", 0.0) if self.delay is None else self.delay
        yield MessageStart(f"msg_{done}", "counting-model", timestamp=1)
        for i in range(self.deltas):
            if delay:
                await asyncio.sleep(delay)
            yield TextDelta(f"w{i} ", 0, timestamp=1)
        if step is None:
            yield MessageDelta(stop_reason="end_turn", timestamp=1)
            yield MessageStop("end_turn", timestamp=1)
            return
        for offset, (name, args) in enumerate(PLAN[step]):
            call_id = f"call_{step}_{offset}"
            yield ToolUseStart(call_id, name, offset + 1, timestamp=1)
            yield InputJsonDelta(json.dumps(args), offset + 1, timestamp=1)
            yield ToolUseStop(call_id, offset + 1, timestamp=1)
        yield MessageDelta(stop_reason="tool_use", timestamp=1)
        yield MessageStop("tool_use", timestamp=1)


@tool
async def lookup(key: str) -> str:
    """Look a value up."""
    await asyncio.sleep(_sleep("DURABLE_TOOL_SLEEP", 0.0))
    return f"{key}: 42"


_pool: Any = None


def _charge_sql(key: str, amount: int) -> None:
    """Count the execution, charge once per key (a pool, as a real service keeps one: a
    connection per call would be most of a fast tool's time)."""
    global _pool
    if _pool is None:
        from psycopg_pool import ConnectionPool

        _pool = ConnectionPool(
            os.environ["DURABLE_TEST_DB"],
            min_size=1,
            max_size=4,
            open=True,
            kwargs={"autocommit": True},
        )
    with _pool.connection() as conn:
        conn.execute("INSERT INTO executions (key) VALUES (%s)", (key,))
        conn.execute(
            "INSERT INTO charges (key, amount) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING",
            (key, amount),
        )


async def charge(amount: int) -> str:
    """Charge an amount, exactly once per call (the idempotency key)."""
    key = idempotency_key()
    await asyncio.to_thread(_charge_sql, key, amount)
    await asyncio.sleep(_sleep("DURABLE_TOOL_SLEEP", 0.0))
    return f"charged {amount}"


charge_tool = tool(charge)
approved_charge = tool(requires_approval=True)(charge)

definitions = Definitions()
definitions.define("counter", model=CountingModel(), tools=[lookup, charge_tool], max_iterations=10)
definitions.define("slow", model=CountingModel(deltas=60, delay=0.05, plan=False))
definitions.define(
    "guarded",
    model=CountingModel(delay=0.0),
    tools=[lookup, approved_charge],
)


def create_tables(url: str) -> None:
    """The tables ``charge`` writes."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS executions (key TEXT NOT NULL)")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS charges (key TEXT PRIMARY KEY, amount INT NOT NULL)"
        )
