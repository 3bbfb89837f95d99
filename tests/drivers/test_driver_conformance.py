"""Every provider driver keeps the same promises about interruption and dropped streams.

Each case runs against all three drivers through their SDKs and a local ReplayServer:
an interrupt while the request is pending, during a retry backoff, mid-stream and from
another thread ends ``receive`` promptly, never leaves the caller's task cancelled, and
leaves the driver usable; a connection dropped after some events streams them once, then
one retryable error, with no retry and no duplicated text.
"""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import Driver, ModelRequest
from agentcore.events import ErrorReceived, MessageStart, StreamEvent, TextDelta, UserMessage
from drivers.anthropic import AnthropicDriver, RetryPolicy
from drivers.openai import OpenAIDriver
from drivers.openai_responses import OpenAIResponsesDriver
from drivers.testing import ReplayServer, ScriptedResponse, interrupt_when, sse_response

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u1", content="hi"),))
BUSY = ScriptedResponse.json(503, {"error": {"type": "overloaded_error", "message": "busy"}})

MAKERS: dict[str, Callable[..., Any]] = {
    "anthropic": lambda url, **kw: AnthropicDriver("claude-test", api_key="k", base_url=url, **kw),
    "openai": lambda url, **kw: OpenAIDriver("gpt-4.1", api_key="k", base_url=url + "/v1", **kw),
    "openai-responses": lambda url, **kw: OpenAIResponsesDriver(
        "gpt-5", api_key="k", base_url=url + "/v1", **kw
    ),
}
PROVIDERS = sorted(MAKERS)


def text(provider: str, **kwargs: Any) -> ScriptedResponse:
    """The provider's recording of a reply streaming "Hello, world!" in three deltas."""
    return sse_response(FIXTURES / provider / "text.sse", **kwargs)


def streaming(events: list[StreamEvent]) -> bool:
    return any(isinstance(e, TextDelta) for e in events)


async def with_driver(
    provider: str, responses: list[ScriptedResponse], body: Callable[..., Any], **kwargs: Any
) -> Any:
    async with ReplayServer(responses) as server:
        driver: Driver = MAKERS[provider](server.base_url, **kwargs)
        try:
            return await body(driver, server)
        finally:
            await driver.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_interrupt_while_the_request_is_pending_is_prompt(provider: str) -> None:
    async def body(driver: Driver, server: ReplayServer) -> tuple[Any, int]:
        seen = await interrupt_when(driver, REQUEST, lambda _: len(server.requests) == 1)
        return seen, len(server.requests)

    seen, requests = asyncio.run(with_driver(provider, [text(provider, pause=5.0)], body))
    assert (seen.events, seen.cancelling, requests) == ([], 0, 1)
    assert seen.delay < 0.5


@pytest.mark.parametrize("provider", PROVIDERS)
def test_interrupt_during_a_retry_backoff_is_prompt_and_sends_nothing_more(provider: str) -> None:
    async def body(driver: Driver, server: ReplayServer) -> tuple[Any, int]:
        seen = await interrupt_when(driver, REQUEST, lambda _: len(server.requests) == 1)
        await asyncio.sleep(0.05)
        return seen, len(server.requests)

    slow_retry = RetryPolicy(initial_delay=30.0, jitter=0.0)
    seen, requests = asyncio.run(
        with_driver(provider, [BUSY, text(provider)], body, retry=slow_retry)
    )
    assert (seen.events, seen.cancelling, requests) == ([], 0, 1)
    assert seen.delay < 0.5


@pytest.mark.parametrize("provider", PROVIDERS)
def test_interrupt_from_another_thread_mid_stream_then_the_driver_is_reusable(
    provider: str,
) -> None:
    async def body(driver: Driver, server: ReplayServer) -> tuple[Any, str]:
        async def from_thread() -> None:
            await asyncio.to_thread(driver.interrupt)

        seen = await interrupt_when(driver, REQUEST, streaming, from_thread)
        again = [e async for e in driver.receive(REQUEST)]
        return seen, "".join(e.text for e in again if isinstance(e, TextDelta))

    responses = [text(provider, pause=0.5), text(provider)]
    seen, again = asyncio.run(with_driver(provider, responses, body))
    assert [type(e) for e in seen.events] == [MessageStart, TextDelta]
    assert (seen.delay < 0.5, seen.cancelling, again) == (True, 0, "Hello, world!")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_interrupt_when_idle_is_a_no_op(provider: str) -> None:
    async def body(driver: Driver, server: ReplayServer) -> str:
        driver.interrupt()
        events = [e async for e in driver.receive(REQUEST)]
        return "".join(e.text for e in events if isinstance(e, TextDelta))

    assert asyncio.run(with_driver(provider, [text(provider)], body)) == "Hello, world!"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(provider=st.sampled_from(PROVIDERS), kept=st.integers(min_value=2, max_value=8))
def test_a_drop_after_events_streams_them_once_then_one_retryable_error(
    provider: str, kept: int
) -> None:
    async def body(driver: Driver, server: ReplayServer) -> tuple[list[StreamEvent], int]:
        return [e async for e in driver.receive(REQUEST)], len(server.requests)

    responses = [text(provider, reset_after=kept), text(provider)]
    events, requests = asyncio.run(with_driver(provider, responses, body))
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    errors = [e for e in events if isinstance(e, ErrorReceived)]
    if errors:
        assert requests == 1 and "Hello, world!".startswith(streamed)
        assert errors == [events[-1]] and errors[0].retryable
    else:  # the drop came after the whole reply had been read
        assert streamed == "Hello, world!"
