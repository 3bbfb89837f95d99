"""OpenAIResponsesDriver.interrupt(): while opening, in a backoff, mid-stream, from a thread.

Every case also checks that the consuming task is never left with a pending cancellation,
and that a dropped connection never streams text twice.
"""

from __future__ import annotations

import asyncio
import pathlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from agentcore import ModelRequest
from agentcore.events import ErrorReceived, MessageStart, StreamEvent, TextDelta, UserMessage
from drivers.openai_responses import OpenAIResponsesDriver, RetryPolicy
from drivers.testing import ReplayServer, ScriptedResponse, sse_response

TEXT = pathlib.Path(__file__).parent / "fixtures" / "openai-responses" / "text.sse"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u1", content="hi"),))
BUSY = ScriptedResponse.json(503, {"error": {"message": "busy", "type": "x", "code": None}})


def driver_for(server: ReplayServer, **kwargs: Any) -> OpenAIResponsesDriver:
    return OpenAIResponsesDriver("gpt-5", api_key="k", base_url=server.base_url + "/v1", **kwargs)


async def collect(driver: OpenAIResponsesDriver) -> list[StreamEvent]:
    return [event async for event in driver.receive(REQUEST)]


async def interrupt_when(
    driver: OpenAIResponsesDriver,
    ready: Callable[[list[StreamEvent]], bool],
    interrupt: Callable[[], Awaitable[object]] | None = None,
) -> tuple[list[StreamEvent], float, int]:
    """Consume ``receive`` until ``ready(events)``, interrupt; events, delay, cancellations."""
    events: list[StreamEvent] = []

    async def consume() -> int:
        async for event in driver.receive(REQUEST):
            events.append(event)
        task = asyncio.current_task()
        assert task is not None
        await asyncio.sleep(0)  # a leaked cancellation would be delivered here
        return task.cancelling()

    task = asyncio.create_task(consume())
    while not ready(events):
        await asyncio.sleep(0.005)
    started = time.perf_counter()
    if interrupt is None:
        driver.interrupt()
        driver.interrupt()  # idempotent
    else:
        await interrupt()
    cancelling = await asyncio.wait_for(task, 2.0)
    return events, time.perf_counter() - started, cancelling


def streaming(events: list[StreamEvent]) -> bool:
    return any(isinstance(e, TextDelta) for e in events)


def test_interrupt_while_waiting_for_the_first_event_is_prompt() -> None:
    async def main() -> tuple[list[StreamEvent], float, int, int]:
        async with ReplayServer([sse_response(TEXT, pause=5.0)]) as server:
            driver = driver_for(server)
            result = await interrupt_when(driver, lambda _: len(server.requests) == 1)
            return (*result, len(server.requests))

    events, took, cancelling, requests = asyncio.run(main())
    assert (events, cancelling, requests) == ([], 0, 1)
    assert took < 0.3


def test_interrupt_during_a_retry_backoff_is_prompt_and_sends_nothing_more() -> None:
    async def main() -> tuple[list[StreamEvent], float, int, int]:
        async with ReplayServer([BUSY, sse_response(TEXT)]) as server:
            driver = driver_for(server, retry=RetryPolicy(initial_delay=30.0, jitter=0.0))
            result = await interrupt_when(driver, lambda _: len(server.requests) == 1)
            await asyncio.sleep(0.05)
            return (*result, len(server.requests))

    events, took, cancelling, requests = asyncio.run(main())
    assert (events, cancelling, requests) == ([], 0, 1)
    assert took < 0.3


def test_interrupt_from_another_thread_closes_the_stream() -> None:
    async def main() -> tuple[list[StreamEvent], float, int]:
        async with ReplayServer([sse_response(TEXT, pause=0.5)]) as server:
            driver = driver_for(server)

            async def from_thread() -> None:
                await asyncio.to_thread(driver.interrupt)

            return await interrupt_when(driver, streaming, from_thread)

    events, took, cancelling = asyncio.run(main())
    assert [type(e) for e in events] == [MessageStart, TextDelta]
    assert (took < 0.3, cancelling) == (True, 0)


def test_interrupt_mid_stream_leaves_the_driver_reusable() -> None:
    async def main() -> tuple[list[StreamEvent], int, str]:
        async with ReplayServer([sse_response(TEXT, pause=0.5), sse_response(TEXT)]) as server:
            driver = driver_for(server)
            events, _, cancelling = await interrupt_when(driver, streaming)
            again = await collect(driver)
            text = "".join(e.text for e in again if isinstance(e, TextDelta))
            return events, cancelling, text

    events, cancelling, again = asyncio.run(main())
    assert [type(e) for e in events] == [MessageStart, TextDelta]
    assert (cancelling, again) == (0, "Hello, world!")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=1, max_value=10))
def test_a_drop_after_n_events_never_duplicates_text(kept: int) -> None:
    """What arrived before a drop is streamed once, then one retryable error ends it."""

    async def main() -> tuple[list[StreamEvent], int]:
        dropped = sse_response(TEXT, reset_after=kept)
        async with ReplayServer([dropped, sse_response(TEXT)]) as server:
            return await collect(driver_for(server)), len(server.requests)

    events, requests = asyncio.run(main())
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert requests == 1 and "Hello, world!".startswith(text)
    assert isinstance(events[-1], ErrorReceived) and events[-1].retryable
    assert sum(isinstance(e, ErrorReceived) for e in events) == 1
