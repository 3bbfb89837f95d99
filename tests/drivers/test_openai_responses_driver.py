"""OpenAIResponsesDriver through the official SDK's HTTP and SSE path, against a ReplayServer."""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import Sequence
from typing import Any

import attrs
import hypothesis.strategies as st
import openai
import pytest
from hypothesis import HealthCheck, given, settings

from agentcore import ModelRequest, ToolSpec
from agentcore.drivers.openai_responses import REASONING_PREFIX, OpenAIResponsesDriver, RetryPolicy
from agentcore.drivers.testing import (
    ReplayServer,
    ScriptedResponse,
    rechunk,
    sse_events,
    sse_response,
)
from agentcore.errors import ConfigurationError, ErrorCode
from agentcore.events import (
    AssistantMessage,
    ErrorReceived,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    TextPart,
    ThinkingPart,
    ToolUseStart,
    ToolUseStop,
    Usage,
    UserMessage,
)
from agentcore.processors import agent_processor, create_initial_agent_engine_state

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "openai-responses"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u1", content="hi"),))


def driver_for(server: ReplayServer, **kwargs: Any) -> OpenAIResponsesDriver:
    kwargs.setdefault("api_key", "sk-test")
    return OpenAIResponsesDriver(
        "gpt-5", base_url=server.base_url + "/v1", clock=lambda: 7, **kwargs
    )


async def collect(
    driver: OpenAIResponsesDriver, request: ModelRequest = REQUEST
) -> list[StreamEvent]:
    return [event async for event in driver.receive(request)]


def run(responses: Sequence[ScriptedResponse], **kwargs: Any) -> list[StreamEvent]:
    async def main() -> list[StreamEvent]:
        async with ReplayServer(responses) as server:
            driver = driver_for(server, **kwargs)
            try:
                return await collect(driver)
            finally:
                await driver.aclose()

    return asyncio.run(main())


def assemble(events: Sequence[StreamEvent]) -> AssistantMessage:
    """Feed the driver's events through the engine's agent processor (strict)."""
    state = create_initial_agent_engine_state(strict=True)
    messages: list[AssistantMessage] = []
    for event in events:
        state, outputs = agent_processor(state, event)
        messages += [o for o in outputs if isinstance(o, AssistantMessage)]
    assert len(messages) == 1
    return messages[0]


def fixture(name: str, **kwargs: Any) -> ScriptedResponse:
    return sse_response(FIXTURES / name, **kwargs)


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


CREATED = {"type": "response.created", "response": {"id": "resp_x", "model": "gpt-5"}}


# -- mapping -------------------------------------------------------------------------------


def test_text_stream_maps_to_start_deltas_usage_and_stop() -> None:
    events = run([fixture("text.sse")])
    assert events[0] == MessageStart("resp_68e0text0001", "gpt-4.1-2025-04-14", timestamp=7)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hello", ", wor", "ld!"]
    assert events[-2:] == [
        MessageDelta("end_turn", Usage(input_tokens=12, output_tokens=4), timestamp=7),
        MessageStop("end_turn", timestamp=7),
    ]
    message = assemble(events)
    assert (message.text, message.stop_reason, message.incomplete) == (
        "Hello, world!",
        "end_turn",
        False,
    )


def test_reasoning_summary_becomes_replayable_thinking_before_text() -> None:
    message = assemble(run([fixture("reasoning_summary.sse")]))
    thinking = ThinkingPart(
        "**Adding numbers**\n\nThe user asks for 2+2.\n\nIt is 4.",
        signature=REASONING_PREFIX + "rs_68e0reason0002",
        redacted_data="gAAAAABoZ3JlYXQtZW5jcnlwdGVkLXJlYXNvbmluZw==",
    )
    assert message.parts == (thinking, TextPart("2 + 2 = 4"))


def test_usage_counts_cached_and_reasoning_tokens_once() -> None:
    message = assemble(run([fixture("reasoning_summary.sse")]))
    assert message.usage == Usage(
        input_tokens=2006 - 1920, output_tokens=300, cache_read_tokens=1920, reasoning_tokens=256
    )
    assert message.usage.total_tokens == 2306  # the provider's own total_tokens


def test_two_parallel_function_calls_assemble_through_the_agent_processor() -> None:
    events = run([fixture("parallel_tools.sse")])
    starts = [(e.tool_call_id, e.tool_name, e.index) for e in events if isinstance(e, ToolUseStart)]
    assert starts == [("call_Weather0Paris1", "get_weather", 0), ("call_Time1Lima2", "get_time", 1)]
    assert [e.index for e in events if isinstance(e, ToolUseStop)] == [0, 1]
    message = assemble(events)
    assert message.stop_reason == "tool_use"
    assert [(c.tool_call_id, dict(c.input)) for c in message.tool_calls] == [
        ("call_Weather0Paris1", {"city": "Paris"}),
        ("call_Time1Lima2", {"tz": "America/Lima"}),
    ]


def test_interleaved_argument_deltas_stay_with_their_call() -> None:
    def added(i: int) -> dict[str, Any]:
        item = {"type": "function_call", "id": f"fc_{i}", "call_id": f"c{i}", "name": "f"}
        return {"type": "response.output_item.added", "output_index": i, "item": item}

    def delta(i: int, text: str) -> dict[str, Any]:
        return {"type": "response.function_call_arguments.delta", "output_index": i, "delta": text}

    body = _sse(
        CREATED,
        added(0),
        added(1),
        delta(1, '{"b":'),
        delta(0, '{"a":'),
        delta(0, "1}"),
        delta(1, "2}"),
        {"type": "response.completed", "response": {"status": "completed"}},
    )
    message = assemble(run([sse_response(body)]))
    assert [dict(c.input) for c in message.tool_calls] == [{"a": 1}, {"b": 2}]


def test_malformed_function_arguments_are_kept_raw_and_flagged() -> None:
    (call,) = assemble(run([fixture("malformed_tool_args.sse")])).tool_calls
    assert call.raw_input == '{"query": "unterminated'
    assert call.input_error is not None and dict(call.input) == {}


def test_incomplete_max_output_tokens_maps_to_max_tokens() -> None:
    message = assemble(run([fixture("incomplete_max_tokens.sse")]))
    assert (message.text, message.stop_reason) == ("Once upon a time", "max_tokens")


@pytest.mark.parametrize(
    ("terminal", "expected"),
    [
        ({"type": "response.completed", "response": {"status": "completed"}}, "end_turn"),
        (
            {
                "type": "response.incomplete",
                "response": {"incomplete_details": {"reason": "content_filter"}},
            },
            "refusal",
        ),
    ],
)
def test_stop_reasons_map(terminal: dict[str, Any], expected: str) -> None:
    text = {"type": "response.output_text.delta", "output_index": 0, "delta": "a"}
    events = run([sse_response(_sse(CREATED, text, terminal))])
    assert events[-1] == MessageStop(expected, timestamp=7)


def test_response_failed_ends_the_message_with_its_error() -> None:
    error = {"code": "rate_limit_exceeded", "message": "Rate limit reached"}
    failed = {"type": "response.failed", "response": {"status": "failed", "error": error}}
    events = run([sse_response(_sse(CREATED, failed))])
    assert isinstance(events[-1], ErrorReceived)
    assert (events[-1].code, events[-1].retryable) == (ErrorCode.RATE_LIMITED, True)


def test_error_event_mid_stream_keeps_the_text_and_reports_a_retryable_error() -> None:
    events = run([fixture("error_mid_stream.sse")])
    assert isinstance(events[-1], ErrorReceived)
    assert "server had an error" in events[-1].message and events[-1].retryable
    message = assemble(events)
    assert (message.text, message.incomplete) == ("Partial answer", True)


def test_a_stream_without_a_terminal_event_is_a_retryable_connection_error() -> None:
    text = {"type": "response.output_text.delta", "output_index": 0, "delta": "a"}
    events = run([sse_response(_sse(CREATED, text))])
    assert isinstance(events[-1], ErrorReceived)
    assert (events[-1].code, events[-1].retryable) == (ErrorCode.CONNECTION_ERROR, True)


def _strip(events: Sequence[StreamEvent]) -> list[StreamEvent]:
    return [attrs.evolve(e, timestamp=0) for e in events]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(p.name for p in FIXTURES.glob("*.sse"))),
    st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=5),
)
def test_events_do_not_depend_on_how_bytes_are_chunked(name: str, sizes: list[int]) -> None:
    whole = run([fixture(name)])
    cut = run([sse_response(rechunk(sse_events(FIXTURES / name), sizes))])
    assert _strip(cut) == _strip(whole)


# -- retries and failures ------------------------------------------------------------------


async def _no_wait(_: float) -> None:
    return None


def _error(status: int, message: str, **headers: str) -> ScriptedResponse:
    return ScriptedResponse.json(
        status, {"error": {"message": message, "type": "x", "code": None}}, headers=headers
    )


def test_429_with_retry_after_is_retried_after_that_wait() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def main() -> tuple[list[StreamEvent], int]:
        responses = [_error(429, "slow down", **{"retry-after": "2"}), fixture("text.sse")]
        async with ReplayServer(responses) as server:
            return await collect(driver_for(server, sleep=sleep)), len(server.requests)

    events, requests = asyncio.run(main())
    assert (waits, requests) == ([2.0], 2)
    assert assemble(events).text == "Hello, world!"


@pytest.mark.parametrize(
    "first",
    [
        _error(503, "busy"),
        ScriptedResponse.disconnect(),
        sse_response(b""),
        sse_response(_sse({"type": "error", "code": "server_error", "message": "oops"})),
    ],
    ids=["503", "hang-up", "empty", "error-event-first"],
)
def test_failures_before_the_first_event_are_retried(first: ScriptedResponse) -> None:
    events = run([first, fixture("text.sse")], sleep=_no_wait)
    assert assemble(events).text == "Hello, world!"


def test_retries_run_out_into_a_retryable_error() -> None:
    events = run([_error(500, "boom")] * 3, sleep=_no_wait, retry=RetryPolicy(max_retries=2))
    assert len(events) == 1 and isinstance(events[0], ErrorReceived)
    assert (events[0].code, events[0].retryable) == (ErrorCode.PROVIDER_ERROR, True)


def test_context_overflow_is_reported_once_with_its_own_code() -> None:
    body = {
        "error": {
            "message": "Your input exceeds the context window of this model.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }

    async def main() -> tuple[list[StreamEvent], int]:
        async with ReplayServer([ScriptedResponse.json(400, body)]) as server:
            return await collect(driver_for(server)), len(server.requests)

    events, requests = asyncio.run(main())
    assert requests == 1 and len(events) == 1 and isinstance(events[0], ErrorReceived)
    assert (events[0].code, events[0].retryable) == (ErrorCode.CONTEXT_OVERFLOW, False)


def test_connection_reset_mid_stream_flushes_partial_text_then_errors() -> None:
    async def main() -> tuple[list[StreamEvent], int]:
        dropped = fixture("text.sse", reset_after=6)
        async with ReplayServer([dropped, fixture("text.sse")]) as server:
            return await collect(driver_for(server)), len(server.requests)

    events, requests = asyncio.run(main())
    assert requests == 1  # never silently restarted
    assert isinstance(events[-1], ErrorReceived)
    assert (events[-1].code, events[-1].retryable) == (ErrorCode.CONNECTION_ERROR, True)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hello", ", wor"]
    assert (assemble(events).text, assemble(events).incomplete) == ("Hello, wor", True)


# -- keys and the request ------------------------------------------------------------------


@pytest.mark.parametrize("is_async", [False, True])
def test_get_api_key_is_called_before_every_request(is_async: bool) -> None:
    tokens = iter(["tok-1", "tok-2"])

    def sync_key() -> str:
        return next(tokens)

    async def async_key() -> str:
        return next(tokens)

    async def main() -> list[str]:
        async with ReplayServer([fixture("text.sse"), fixture("text.sse")]) as server:
            driver = driver_for(
                server, api_key=None, get_api_key=async_key if is_async else sync_key
            )
            await collect(driver)
            await collect(driver)
            return [r.headers["authorization"] for r in server.requests]

    assert asyncio.run(main()) == ["Bearer tok-1", "Bearer tok-2"]


def test_a_bad_get_api_key_is_reported_not_raised() -> None:
    events = run([fixture("text.sse")], api_key=None, get_api_key=lambda: "")
    assert len(events) == 1 and isinstance(events[0], ErrorReceived)
    assert events[0].code == ErrorCode.CONFIGURATION_ERROR


def test_no_key_at_all_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        OpenAIResponsesDriver("gpt-5")


def test_the_server_receives_the_responses_body() -> None:
    tool = ToolSpec(name="f", description="d", parameters={"type": "object"})
    request = ModelRequest(
        messages=REQUEST.messages, system_prompt="be brief", tools=(tool,), max_tokens=99
    )

    async def main() -> Any:
        async with ReplayServer([fixture("text.sse")]) as server:
            await collect(driver_for(server, thinking_level="high"), request)
            (sent,) = server.requests
            return sent.method, sent.path, sent.json

    method, path, body = asyncio.run(main())
    assert (method, path) == ("POST", "/v1/responses")
    assert body == {
        "model": "gpt-5",
        "input": [{"role": "user", "content": "hi"}],
        "stream": True,
        "store": False,
        "instructions": "be brief",
        "tools": [
            {"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}}
        ],
        "max_output_tokens": 99,
        "reasoning": {"effort": "high", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
    }


def test_reasoning_streamed_by_the_driver_is_sent_back_to_the_same_model() -> None:
    async def main() -> Any:
        async with ReplayServer([fixture("reasoning_summary.sse"), fixture("text.sse")]) as server:
            driver = driver_for(server, thinking_level="low")
            reply = assemble(await collect(driver))
            follow = UserMessage(message_id="u2", content="and 3+3?")
            await collect(driver, ModelRequest(messages=(*REQUEST.messages, reply, follow)))
            return server.requests[1].json["input"]

    items = asyncio.run(main())
    assert items[1] == {
        "type": "reasoning",
        "id": "rs_68e0reason0002",
        "summary": [
            {
                "type": "summary_text",
                "text": "**Adding numbers**\n\nThe user asks for 2+2.\n\nIt is 4.",
            }
        ],
        "encrypted_content": "gAAAAABoZ3JlYXQtZW5jcnlwdGVkLXJlYXNvbmluZw==",
    }
    assert items[2] == {"type": "message", "role": "assistant", "content": "2 + 2 = 4"}


# -- close (interrupts: test_driver_conformance.py) ----------------------------------


def test_aclose_closes_only_a_client_the_driver_built() -> None:
    async def main() -> tuple[bool, bool]:
        own = OpenAIResponsesDriver("gpt-5", api_key="k")
        theirs = openai.AsyncOpenAI(api_key="k")
        lent = OpenAIResponsesDriver("gpt-5", client=theirs)
        await own.aclose()
        await own.aclose()  # idempotent
        await lent.aclose()
        closed = own._client.is_closed()
        kept = not theirs.is_closed()
        await theirs.close()
        return closed, kept

    assert asyncio.run(main()) == (True, True)
