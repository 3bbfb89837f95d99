"""A model stream that stops before ``message_stop`` ends with one retryable
``CONNECTION_ERROR`` from the driver edge (``ended_batches``), whatever kind of driver it
is; the runtime adds no second one.

Tests the private module ``agentcore._edges.driver``: ended_batches, the driver edge.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore import Agent, AgentError, BaseDriver, ModelRequest
from agentcore._edges.driver import ended_batches
from agentcore.events import (
    ErrorReceived,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
)
from agentcore.journal import MemoryJournal

CUT: list[StreamEvent] = [
    MessageStart("m1", "cut-model", timestamp=1),
    TextDelta("half an", 0, timestamp=2),
]


class ReceiveOnly:
    """A driver written by hand: ``receive`` alone (the runtime adapts it)."""

    name = "receive-only"

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        for event in CUT:
            yield event


class Batching(BaseDriver):
    """A whole driver that hands its batches itself."""

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise AssertionError("read through receive_batches")

    async def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        yield tuple(CUT)


@pytest.mark.parametrize("driver", [ReceiveOnly, Batching])
def test_a_cut_stream_ends_the_run_with_one_connection_error(driver: type[Any]) -> None:
    journal = MemoryJournal()

    async def run() -> AgentError:
        agent = Agent(driver(), journal=journal, agent_id="a")
        with pytest.raises(AgentError) as raised:
            await agent.run("go")
        await agent.aclose()
        return raised.value

    error = asyncio.run(asyncio.wait_for(run(), 30))  # a stream left open would hang
    assert error.code.value == "CONNECTION_ERROR"
    assert "ended before message_stop" in str(error)
    errors = [e.event for e in journal.entries("a") if type(e.event) is ErrorReceived]
    assert len(errors) == 1
    assert errors[0].retryable


class Listed(BaseDriver):
    def __init__(self, batches: list[list[StreamEvent]]) -> None:
        self.batches = batches

    async def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        for batch in self.batches:
            yield batch


EVENTS = st.lists(
    st.sampled_from(
        [
            TextDelta("x", 0, timestamp=3),
            MessageStop("end_turn", timestamp=3),
            ErrorReceived("boom", "PROVIDER_ERROR", timestamp=3),
        ]
    ),
    max_size=4,
).map(lambda tail: [CUT[0], *tail])


@given(EVENTS, st.integers(1, 3))
def test_ended_batches_close_every_stream_once(events: list[StreamEvent], size: int) -> None:
    batches = [events[i : i + size] for i in range(0, len(events), size)]

    async def read() -> list[StreamEvent]:
        read: list[StreamEvent] = []
        async for batch in ended_batches(Listed(batches), ModelRequest(()), lambda: 9):
            read.extend(batch)
        return read

    read = asyncio.run(read())
    terminal = (MessageStop, ErrorReceived)
    if type(events[-1]) in terminal:
        assert read == events
    else:
        assert read[:-1] == events
        assert type(read[-1]) is ErrorReceived and read[-1].code == "CONNECTION_ERROR"
        assert read[-1].timestamp == 9
