"""Every driver keeps the same promises, checked through the SDKs' real HTTP path.

Each provider case runs against all four provider drivers through their SDKs and a local
ReplayServer: an interrupt while the request is pending, during a retry backoff,
mid-stream and from another thread ends ``receive`` promptly, never leaves the caller's
task cancelled, and leaves the driver usable; a connection dropped after some events
streams them once, then one retryable error naming the URL, with no retry and no
duplicated text; a surrogate pair split across two SSE events is joined and later
requests work; the driver's keys never reach an event or a raised error; blank text
before tool calls keeps the calls (that case runs on every driver in ``drivers``); every
driver implements the whole ``Driver`` protocol, ``async with`` included.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import Callable
from typing import Any

import anthropic
import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import BaseDriver, Driver, FallbackDriver, ModelRequest, as_driver, create_agent
from agentcore.drivers.anthropic import AnthropicDriver, RetryPolicy
from agentcore.drivers.google import GoogleDriver
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.openai_responses import OpenAIResponsesDriver
from agentcore.drivers.replay import RecordingDriver, ReplayDriver
from agentcore.drivers.scripted import FunctionDriver, ScriptedDriver, tool_turn
from agentcore.drivers.testing import (
    Called,
    ReplayServer,
    Said,
    ScriptedResponse,
    assemble,
    check_blank_text_before_tools,
    check_stream,
    interrupt_when,
    reply_chunks,
    reply_sse,
    sse_response,
)
from agentcore.errors import AgentError
from agentcore.events import (
    ErrorReceived,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    UserMessage,
)
from agentcore.journal import MemoryJournal

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u1", content="hi"),))
BUSY = ScriptedResponse.json(503, {"error": {"type": "overloaded_error", "message": "busy"}})

MAKERS: dict[str, Callable[..., Any]] = {
    "anthropic": lambda url, **kw: AnthropicDriver("claude-test", api_key="k", base_url=url, **kw),
    "google": lambda url, **kw: GoogleDriver("gemini-test", api_key="k", base_url=url, **kw),
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
    async with (
        ReplayServer(responses) as server,
        MAKERS[provider](server.base_url, **kwargs) as driver,
    ):
        return await body(driver, server)


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
        assert "not retried" in errors[0].message and "/v1" in errors[0].message
    else:  # the drop came after the whole reply had been read
        assert streamed == "Hello, world!"


def reply(provider: str, *blocks: Said | Called) -> ScriptedResponse:
    return sse_response(reply_sse(provider, reply_chunks(provider, blocks)))


async def collect(driver: Driver, request: ModelRequest = REQUEST) -> list[StreamEvent]:
    return [event async for event in driver.receive(request)]


# -- blank text before tool calls, on every driver ---------------------------------------------

BLANKS = ["", " ", "\n\n"]
CALLS = (("call_a", "get_weather", {"city": "Paris"}), ("call_b", "get_time", {}))


def blank_then_calls(blank: str) -> list[StreamEvent]:
    """What a model streams when it writes blank text, then calls two tools."""
    start, *rest = tool_turn(CALLS, start_index=1)
    return [start, TextDelta(blank, 0), *rest]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("blank", BLANKS, ids=repr)
def test_blank_text_before_tool_calls_keeps_the_calls(provider: str, blank: str) -> None:
    blocks = [
        Said((blank,)),
        Called("call_a", "get_weather", ('{"city": ', '"Paris"}')),
        Called("call_b", "get_time", ("{}",)),
    ]

    async def body(driver: Driver, server: ReplayServer) -> list[StreamEvent]:
        return await collect(driver)

    events = asyncio.run(with_driver(provider, [reply(provider, *blocks)], body))
    message = check_blank_text_before_tools(events, ["get_weather", "get_time"])
    assert message.parts[-2].input == {"city": "Paris"}  # type: ignore[union-attr]


def _recorded(events: list[StreamEvent]) -> MemoryJournal:
    journal = MemoryJournal()
    for event in events:
        journal.append("model", event)
    return journal


LOCAL_DRIVERS: dict[str, Callable[[list[StreamEvent]], BaseDriver]] = {
    "scripted": lambda events: ScriptedDriver([events]),
    "function": lambda events: FunctionDriver(lambda request: events),
    "async-function": lambda events: FunctionDriver(_async_reply(events)),
    "recording": lambda events: RecordingDriver(ScriptedDriver([events]), MemoryJournal()),
    "replay": lambda events: ReplayDriver(_recorded(events), agent_id="model"),
    "fallback": lambda events: FallbackDriver([ScriptedDriver([events])]),
}


def _async_reply(events: list[StreamEvent]) -> Callable[[ModelRequest], Any]:
    async def reply(request: ModelRequest) -> list[StreamEvent]:
        return events

    return reply


@pytest.mark.parametrize("kind", sorted(LOCAL_DRIVERS))
@pytest.mark.parametrize("blank", BLANKS, ids=repr)
def test_blank_text_before_tool_calls_keeps_the_calls_on_local_drivers(
    kind: str, blank: str
) -> None:
    driver = LOCAL_DRIVERS[kind](blank_then_calls(blank))
    events = asyncio.run(collect(driver))
    check_blank_text_before_tools(events, ["get_weather", "get_time"])


def test_the_blank_text_check_fails_a_driver_that_ends_the_turn_at_blank_text() -> None:
    ended_early = [
        MessageStart("m", "x"),
        TextDelta(" ", 0),
        MessageDelta("end_turn"),
        MessageStop("end_turn"),
    ]
    with pytest.raises(AssertionError, match="tool calls"):
        check_blank_text_before_tools(ended_early, ["get_weather"])


# -- the whole protocol ----------------------------------------------------------------------


def test_every_driver_implements_the_whole_protocol_and_async_with() -> None:
    async def main() -> list[tuple[str, bool]]:
        seen = []
        async with ReplayServer() as server:
            drivers: list[BaseDriver] = [
                *(MAKERS[p](server.base_url) for p in PROVIDERS),
                *(make(blank_then_calls("")) for make in LOCAL_DRIVERS.values()),
            ]
            for driver in drivers:
                assert isinstance(driver, BaseDriver) and as_driver(driver) is driver
                assert isinstance(driver.name, str) and driver.name
                driver.interrupt()  # idle: a no-op
                async with driver as entered:
                    assert entered is driver
                await driver.aclose()  # idempotent
                client = getattr(driver, "_client", None)
                if isinstance(driver, GoogleDriver):
                    client = driver.client.aio._api_client._async_httpx_client
                    seen.append((driver.name, client.is_closed))
                    continue
                seen.append((driver.name, client is None or client.is_closed()))
        return seen

    assert all(closed for _, closed in asyncio.run(main()))


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_client_passed_in_is_not_closed_by_the_driver(provider: str) -> None:
    async def main() -> bool:
        if provider == "anthropic":
            client: Any = anthropic.AsyncAnthropic(api_key="k", base_url="http://127.0.0.1:9")
            driver: BaseDriver = AnthropicDriver("claude-test", client=client)
        else:
            client = openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
            driver = OpenAIDriver("gpt-4.1", client=client)
        async with driver:
            pass
        closed = bool(client.is_closed())
        await client.close()
        return closed

    assert asyncio.run(main()) is False


# -- surrogates split across events ---------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("pieces", "text"),
    [(("smile \ud83d", "\ude00!"), "smile 😀!"), (("alone \ud83d",), "alone \ufffd")],
    ids=["split-pair", "lone-high-surrogate"],
)
def test_a_surrogate_split_across_sse_events_never_poisons_the_conversation(
    provider: str, pieces: tuple[str, ...], text: str
) -> None:
    async def body(driver: Driver, server: ReplayServer) -> tuple[str, str, Any]:
        events = await collect(driver)
        check_stream(events)
        message = assemble(events)
        later = ModelRequest(messages=(REQUEST.messages[0], message, UserMessage("u2", "and?")))
        again = await collect(driver, later)
        return (
            message.parts[0].text,
            "".join(e.text for e in again if isinstance(e, TextDelta)),
            server.requests[1].json,
        )  # type: ignore[union-attr]

    responses = [reply(provider, Said(pieces)), text_reply(provider)]
    assembled, again, sent = asyncio.run(with_driver(provider, responses, body))
    assert assembled == text
    assert again == "Hello, world!"  # the next request went out and was answered
    assert text in json.dumps(sent, ensure_ascii=False)


def text_reply(provider: str) -> ScriptedResponse:
    return sse_response(FIXTURES / provider / "text.sse")


# -- secrets ---------------------------------------------------------------------------------

KEY = "local-secret-0123456789abcdef"
"""A key no pattern recognises: only the driver's exact-key scrub can catch it."""
TOKEN = "rotating-token-9876543210"


def keyed(provider: str, url: str, **kwargs: Any) -> BaseDriver:
    """The provider's driver holding ``KEY`` (its own key; ``get_api_key`` may add others)."""
    if provider == "anthropic":
        return AnthropicDriver("claude-test", api_key=KEY, base_url=url, **kwargs)
    if provider == "openai":
        return OpenAIDriver("gpt-4.1", api_key=KEY, base_url=url + "/v1", **kwargs)
    if provider == "google":
        return GoogleDriver("gemini-test", api_key=KEY, base_url=url, **kwargs)
    return OpenAIResponsesDriver("gpt-5", api_key=KEY, base_url=url + "/v1", **kwargs)


def run_keyed(provider: str, responses: list[ScriptedResponse], **kwargs: Any) -> list[StreamEvent]:
    async def main() -> list[StreamEvent]:
        async with (
            ReplayServer(responses) as server,
            keyed(provider, server.base_url, **kwargs) as driver,
        ):
            return await collect(driver)

    return asyncio.run(main())


def echo_401(secret: str) -> ScriptedResponse:
    error = {"type": "authentication_error", "message": f"invalid x-api-key: {secret}"}
    return ScriptedResponse.json(401, {"error": error})


def in_band_error(provider: str, message: str) -> dict[str, Any]:
    if provider == "anthropic":
        return {"type": "error", "error": {"type": "api_error", "message": message}}
    if provider == "openai":
        return {"error": {"type": "server_error", "message": message}}
    if provider == "google":
        return {"error": {"code": 500, "message": message, "status": "INTERNAL"}}
    return {"type": "error", "code": "server_error", "message": message}


def all_strings(events: list[StreamEvent]) -> str:
    return json.dumps([repr(e) for e in events], ensure_ascii=False)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_key_echoed_in_a_401_body_never_reaches_the_error_event(provider: str) -> None:
    events = run_keyed(provider, [echo_401(KEY)])
    assert [type(e) for e in events] == [ErrorReceived]
    error = events[0]
    assert isinstance(error, ErrorReceived) and error.code == "AUTHENTICATION_ERROR"
    assert KEY not in error.message and "invalid x-api-key: [REDACTED]" in error.message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_key_from_get_api_key_is_scrubbed_too(provider: str) -> None:
    events = run_keyed(provider, [echo_401(TOKEN)], get_api_key=lambda: TOKEN)
    assert TOKEN not in all_strings(events) and "[REDACTED]" in all_strings(events)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("shape", ["bearer", "bare"])
def test_a_key_echoed_in_a_mid_stream_error_event_is_scrubbed(provider: str, shape: str) -> None:
    message = f"upstream rejected Bearer {KEY}" if shape == "bearer" else f"bad key {KEY}"
    chunks = reply_chunks(provider, [Said(("Hi", " there"))])
    opening = {"openai": 2, "google": 1}.get(provider, 3)  # up to and including the "Hi" delta
    cut = [*chunks[:opening], in_band_error(provider, message)]
    events = run_keyed(provider, [sse_response(reply_sse(provider, cut))])
    check_stream(events)
    assert isinstance(events[-1], ErrorReceived) and "[REDACTED]" in events[-1].message
    assert KEY not in all_strings(events)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_key_the_model_echoes_in_six_character_deltas_never_survives(provider: str) -> None:
    text = f"your key is {KEY}; keep it safe"
    pieces = tuple(text[i : i + 6] for i in range(0, len(text), 6))
    events = run_keyed(provider, [reply(provider, Said(pieces))])
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == "your key is [REDACTED]; keep it safe"  # nothing lost or reordered
    assert KEY not in all_strings(events) and KEY[:12] not in all_strings(events)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_key_never_reaches_the_error_the_runtime_raises(provider: str) -> None:
    async def main() -> str:
        async with (
            ReplayServer([echo_401(KEY)]) as server,
            keyed(provider, server.base_url) as driver,
        ):
            agent = create_agent(driver)
            with pytest.raises(AgentError) as raised:
                await agent.receive("hi")
            await agent.destroy()
            return f"{raised.value!s} {raised.value!r}"

    assert KEY not in asyncio.run(main())


# -- connection errors name the URL and the attempts ----------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_connection_failure_names_the_url_and_how_many_attempts_were_made(provider: str) -> None:
    async def body(driver: Driver, server: ReplayServer) -> tuple[list[StreamEvent], str]:
        return await collect(driver), server.base_url

    fast = RetryPolicy(max_retries=2, initial_delay=0.0, jitter=0.0)
    events, url = asyncio.run(
        with_driver(provider, [ScriptedResponse.disconnect()] * 3, body, retry=fast)
    )
    assert len(events) == 1 and isinstance(events[0], ErrorReceived)
    error = events[0]
    assert error.code == "CONNECTION_ERROR" and error.retryable
    path = {
        "anthropic": "/v1/messages",
        "google": "/v1/models/gemini-test:streamGenerateContent",
        "openai": "/v1/chat/completions",
    }.get(provider, "/v1/responses")
    assert f"POST {url}{path}" in error.message and "gave up after 3 attempts" in error.message


# -- connections are reused after a complete answer -------------------------------------------


class CountingServer(ReplayServer):
    """A ReplayServer that counts the connections it accepted."""

    connections = 0

    async def _serve(self, reader: Any, writer: Any) -> None:
        self.connections += 1
        await super()._serve(reader, writer)


@pytest.mark.parametrize(
    ("provider", "body"),
    [
        *((p, FIXTURES / p / "text.sse") for p in PROVIDERS),
        ("openai", reply_sse("openai", reply_chunks("openai", [Said(("Hi",))])[:-1])),
    ],
    ids=[*PROVIDERS, "openai-without-done"],
)
def test_the_connection_is_reused_after_a_complete_answer(provider: str, body: Any) -> None:
    """The driver reads a complete answer to the end of its body (past ``[DONE]`` too), so
    the next call reuses the connection instead of opening another."""

    async def main() -> int:
        async with CountingServer([sse_response(body)] * 3) as server:
            async with MAKERS[provider](server.base_url) as driver:
                for _ in range(3):
                    assert isinstance((await collect(driver))[-1], MessageStop)
            return server.connections

    assert asyncio.run(main()) == 1
