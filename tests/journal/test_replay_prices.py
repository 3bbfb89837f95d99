"""``replay`` with its default machine prices every turn as the live run did: the prices
come from the journaled configuration, not from a second source the replayer must pass."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import TurnResponse, Usage
from agentcore.journal import MemoryJournal, replay
from agentcore.pricing import ModelPrice

usages = st.builds(
    Usage,
    st.integers(0, 100_000),
    st.integers(0, 10_000),
)
prices = st.builds(
    ModelPrice,
    st.floats(0.01, 100, allow_nan=False),
    st.floats(0.01, 100, allow_nan=False),
)


def _live(price: ModelPrice, turn_usages: list[Usage]) -> tuple[MemoryJournal, list[TurnResponse]]:
    """Run one prompt per usage on a scripted agent priced ``price``; its journal and the
    turn responses it delivered."""

    async def talk() -> tuple[MemoryJournal, list[TurnResponse]]:
        journal = MemoryJournal()
        turns = [text_turn(f"answer {i}", usage=u) for i, u in enumerate(turn_usages)]
        agent = Agent(ScriptedDriver(turns), journal=journal, price=price)
        delivered: list[TurnResponse] = []
        agent.subscribe("turn_response", delivered.append)
        for i in range(len(turn_usages)):
            await agent.run(f"question {i}")
        await agent.aclose()
        return journal, delivered

    return asyncio.run(talk())


@settings(max_examples=15, deadline=None)
@given(prices, st.lists(usages, min_size=1, max_size=3))
def test_replay_prices_every_turn_as_the_live_run_did(
    price: ModelPrice, turn_usages: list[Usage]
) -> None:
    journal, live = _live(price, turn_usages)
    replayed = [o for _, o in replay(journal) if isinstance(o, TurnResponse)]
    assert [(t.usage, t.cost) for t in replayed] == [(t.usage, t.cost) for t in live]
    assert all(t.cost is not None for t in replayed)


def test_an_unpriced_run_replays_unpriced() -> None:
    journal = MemoryJournal()

    async def talk() -> None:
        agent = Agent(ScriptedDriver([text_turn("hi", usage=Usage(10, 5))]), journal=journal)
        await agent.run("hello")
        await agent.aclose()

    asyncio.run(talk())
    (turn,) = [o for _, o in replay(journal) if isinstance(o, TurnResponse)]
    assert turn.cost is None
