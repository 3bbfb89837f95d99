"""Soak: 1,000 engines at once in one process; every output reaches every presenter, in order."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.engine import create_agent
from agentcore.presenters.recording import RecordingPresenter

ENGINES = 1_000
TURNS = 2


class AsyncCollector:
    """An async presenter, to exercise the per-presenter lanes under load."""

    def __init__(self) -> None:
        self.records: list[tuple[str, Any]] = []

    async def present(self, agent_id: str, output: Any) -> None:
        await asyncio.sleep(0)
        self.records.append((agent_id, output))


@pytest.mark.slow
def test_a_thousand_concurrent_engines_lose_nothing() -> None:
    shared_sync = RecordingPresenter()
    shared_async = AsyncCollector()

    async def one(i: int) -> list[Any]:
        own = RecordingPresenter()
        turns = [text_turn(f"agent {i} reply {t} " * 3, chunk=5) for t in range(TURNS)]
        engine = create_agent(
            ScriptedDriver(turns, delay=0.0005),
            [own, shared_sync, shared_async],
            agent_id=f"a{i}",
        )
        outputs: list[Any] = []
        for t in range(TURNS):
            reply = await engine.receive(f"hello {t}")
            outputs.extend(reply.outputs)
            assert reply.text == f"agent {i} reply {t} " * 3
        await engine.destroy()
        delivered = [o for _, o in own.records]
        produced = {id(o) for o in outputs}
        machine_outputs = [o for o in delivered if id(o) in produced]
        assert machine_outputs == outputs  # every machine output, in order, once
        return delivered

    async def run() -> list[list[Any]]:
        return await asyncio.gather(*(one(i) for i in range(ENGINES)))

    per_engine = asyncio.run(run())
    for shared in (shared_sync.records, shared_async.records):
        by_agent: dict[str, list[Any]] = {}
        for agent, output in shared:
            by_agent.setdefault(agent, []).append(output)
        for i, delivered in enumerate(per_engine):
            assert by_agent[f"a{i}"] == delivered
    assert len(shared_sync.records) == sum(len(d) for d in per_engine)
