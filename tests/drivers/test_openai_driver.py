"""OpenAIDriver through the official SDK's HTTP and SSE path, against a local ReplayServer."""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import Sequence
from typing import Any

import attrs
import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

from agentcore import ModelRequest
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.streaming import RetryPolicy
from agentcore.drivers.testing import (
    ReplayServer,
    Said,
    ScriptedResponse,
    rechunk,
    reply_chunks,
    reply_sse,
    sse_events,
    sse_response,
)
from agentcore.errors import ConfigurationError, ErrorCode
from agentcore.events import (
    AssistantMessage,
    ErrorReceived,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingPart,
    ToolUseStart,
    ToolUseStop,
    Usage,
    UserMessage,
)
from agentcore.processors import (
    create_initial_message_assembler_state,
    message_assembler_processor,
)

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "openai"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u1", content="hi"),))


def driver_for(server: ReplayServer, **kwargs: Any) -> OpenAIDriver:
    kwargs.setdefault("api_key", "sk-test")
    return OpenAIDriver("gpt-4.1", base_url=server.base_url + "/v1", clock=lambda: 7, **kwargs)


async def collect(driver: OpenAIDriver, request: ModelRequest = REQUEST) -> list[StreamEvent]:
    return [event async for event in driver.receive(request)]


def run(responses: Sequence[ScriptedResponse], **kwargs: Any) -> list[StreamEvent]:
    async def main() -> list[StreamEvent]:
        async with ReplayServer(responses) as server:
            return await collect(driver_for(server, **kwargs))

    return asyncio.run(main())


def assemble(events: Sequence[StreamEvent]) -> AssistantMessage:
    """Feed the driver's events through the engine's own message assembler (strict)."""
    state = create_initial_message_assembler_state(strict=True)
    messages: list[AssistantMessage] = []
    for event in events:
        state, outputs = message_assembler_processor(state, event)
        messages += [o for o in outputs if isinstance(o, AssistantMessage)]
    assert len(messages) == 1
    return messages[0]


def fixture(name: str) -> ScriptedResponse:
    return sse_response(FIXTURES / name)


# -- mapping ---------------------------------------------------------------------------


def test_text_stream_maps_to_start_deltas_and_stop() -> None:
    events = run([fixture("text.sse")])
    assert events[0] == MessageStart("chatcmpl-CXtext0001", "gpt-4.1-2025-04-14", timestamp=7)
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert [d.text for d in deltas] == ["Hello", ", wor", "ld!"]
    assert {d.index for d in deltas} == {0}
    assert events[-2:] == [
        MessageDelta(stop_reason="end_turn", usage=Usage(), timestamp=7),
        MessageStop(stop_reason="end_turn", timestamp=7),
    ]
    message = assemble(events)
    assert (message.text, message.stop_reason, message.incomplete) == (
        "Hello, world!",
        "end_turn",
        False,
    )


def test_three_interleaved_tool_calls_assemble_in_order() -> None:
    events = run([fixture("parallel_tools.sse")])
    starts = [e for e in events if isinstance(e, ToolUseStart)]
    assert [(s.tool_call_id, s.tool_name, s.index) for s in starts] == [
        ("call_Weather0Paris1", "get_weather", 0),
        ("call_Weather1Tokyo2", "get_weather", 1),
        ("call_Time2Lima3", "get_time", 2),
    ]
    stops = [e for e in events if isinstance(e, ToolUseStop)]
    assert [s.index for s in stops] == [0, 1, 2]
    assert all(
        isinstance(e, MessageDelta | MessageStop) for e in events[events.index(stops[-1]) + 1 :]
    )
    message = assemble(events)
    assert message.stop_reason == "tool_use"
    assert [(c.tool_call_id, dict(c.input)) for c in message.tool_calls] == [
        ("call_Weather0Paris1", {"city": "Paris"}),
        ("call_Weather1Tokyo2", {"city": "Tokyo"}),
        ("call_Time2Lima3", {"tz": "America/Lima"}),
    ]


def test_reasoning_content_becomes_thinking_before_text() -> None:
    events = run([fixture("reasoning_content.sse")])
    thinking = [e for e in events if isinstance(e, ThinkingDelta)]
    assert "".join(t.text for t in thinking) == "The user asks 2+2. That is 4."
    message = assemble(events)
    assert message.parts == (ThinkingPart("The user asks 2+2. That is 4."), TextPart("4"))
    assert message.usage == Usage(input_tokens=14, output_tokens=22, reasoning_tokens=20)


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_both_reasoning_field_names_are_read(field: str) -> None:
    chunk = {"id": "x", "model": "m", "choices": [{"index": 0, "delta": {field: "hmm"}}]}
    body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    events = run([sse_response(body)])
    assert [e for e in events if isinstance(e, ThinkingDelta)] == [
        ThinkingDelta("hmm", 0, timestamp=7)
    ]


def test_usage_only_final_chunk_is_not_double_counted() -> None:
    events = run([fixture("usage_final_chunk.sse")])
    (delta,) = [e for e in events if isinstance(e, MessageDelta)]
    assert delta.usage == Usage(
        input_tokens=2006 - 1920, output_tokens=300, cache_read_tokens=1920, reasoning_tokens=256
    )
    assert delta.usage.total_tokens == 2306  # the provider's own total_tokens


def test_malformed_tool_arguments_are_kept_raw_and_flagged() -> None:
    message = assemble(run([fixture("malformed_tool_args.sse")]))
    (call,) = message.tool_calls
    assert call.raw_input == '{"query": "unterminated'
    assert call.input_error is not None and dict(call.input) == {}


def test_finish_reason_length_maps_to_max_tokens() -> None:
    message = assemble(run([fixture("finish_length.sse")]))
    assert (message.text, message.stop_reason) == ("Once upon a time", "max_tokens")


@pytest.mark.parametrize(
    ("finish", "expected"),
    [("stop", "end_turn"), ("content_filter", "refusal"), ("function_call", "tool_use")],
)
def test_finish_reasons_map(finish: str, expected: str) -> None:
    chunks = [
        {"id": "x", "model": "m", "choices": [{"index": 0, "delta": {"content": "a"}}]},
        {"id": "x", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode()
    assert run([sse_response(body)])[-1] == MessageStop(stop_reason=expected, timestamp=7)


def _strip(events: Sequence[StreamEvent]) -> list[StreamEvent]:
    return [attrs.evolve(e, timestamp=0) for e in events]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["parallel_tools.sse", "reasoning_content.sse", "usage_final_chunk.sse"]),
    st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=5),
)
def test_events_do_not_depend_on_how_bytes_are_chunked(name: str, sizes: list[int]) -> None:
    whole = run([fixture(name)])
    cut = run([sse_response(rechunk(sse_events(FIXTURES / name), sizes))])
    assert _strip(cut) == _strip(whole)


# -- retries and failures ----------------------------------------------------------------


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
            events = await collect(driver_for(server, sleep=sleep))
            return events, len(server.requests)

    events, requests = asyncio.run(main())
    assert (waits, requests) == ([2.0], 2)
    assert assemble(events).text == "Hello, world!"


@pytest.mark.parametrize(
    "first", [_error(503, "busy"), ScriptedResponse.disconnect(), sse_response(b"")]
)
def test_failures_before_the_first_chunk_are_retried(first: ScriptedResponse) -> None:
    async def sleep(_: float) -> None:
        return None

    events = run([first, fixture("text.sse")], sleep=sleep)
    assert assemble(events).text == "Hello, world!"


def test_retries_run_out_into_a_retryable_error() -> None:
    async def sleep(_: float) -> None:
        return None

    events = run([_error(500, "boom")] * 3, sleep=sleep, retry=RetryPolicy(max_retries=2))
    assert len(events) == 1
    assert isinstance(events[0], ErrorReceived)
    assert (events[0].code, events[0].retryable) == (ErrorCode.PROVIDER_ERROR, True)


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (_error(400, "bad request"), ErrorCode.PROVIDER_ERROR),
        (_error(401, "Incorrect API key provided"), ErrorCode.AUTHENTICATION_ERROR),
        (
            ScriptedResponse.json(
                400,
                {
                    "error": {
                        "message": "This model's maximum context length is 128000 tokens.",
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                },
            ),
            ErrorCode.CONTEXT_OVERFLOW,
        ),
    ],
)
def test_client_errors_are_reported_once_without_retry(
    response: ScriptedResponse, code: ErrorCode
) -> None:
    async def main() -> tuple[list[StreamEvent], int]:
        async with ReplayServer([response]) as server:
            return await collect(driver_for(server)), len(server.requests)

    events, requests = asyncio.run(main())
    assert requests == 1
    assert len(events) == 1 and isinstance(events[0], ErrorReceived)
    assert (events[0].code, events[0].retryable) == (code, False)


def test_connection_reset_mid_stream_flushes_partial_text_then_errors() -> None:
    async def main() -> tuple[list[StreamEvent], int]:
        dropped = sse_response(FIXTURES / "text.sse", reset_after=3)
        async with ReplayServer([dropped, fixture("text.sse")]) as server:
            return await collect(driver_for(server)), len(server.requests)

    events, requests = asyncio.run(main())
    assert requests == 1  # never silently restarted
    assert isinstance(events[-1], ErrorReceived)
    assert (events[-1].code, events[-1].retryable) == (ErrorCode.CONNECTION_ERROR, True)
    message = assemble(events)
    assert (message.text, message.incomplete) == ("Hello, wor", True)


def test_error_object_inside_the_stream_ends_the_message() -> None:
    first = sse_events(FIXTURES / "text.sse")[:2]
    error = b'data: {"error":{"message":"Provider returned error","code":502}}\n\n'
    events = run([sse_response((*first, error))])
    assert isinstance(events[-1], ErrorReceived)
    assert "Provider returned error" in events[-1].message
    assert assemble(events).incomplete


# -- how a stream ends: [DONE], finish_reason, or a cut ------------------------------------

HELLO = reply_chunks("openai", [Said(("Hel", "lo"))])
"""role chunk, two text chunks, the finish_reason chunk, the usage chunk, [DONE]."""


@pytest.mark.parametrize(
    ("kept", "complete"),
    [
        ([0, 1, 2, 3, 4, 5], True),  # finish_reason, then [DONE]: the usual
        ([0, 1, 2, 3, 4], True),  # finish_reason, no [DONE]: some servers omit it
        ([0, 1, 2, 4, 5], True),  # [DONE], no finish_reason: some servers omit that
        ([0, 1, 2, 4], False),  # neither: the stream was cut cleanly
        ([0, 1, 2], False),
    ],
    ids=["finish+done", "finish", "done", "neither", "neither-no-usage"],
)
def test_a_clean_cut_without_finish_reason_or_done_is_a_retryable_connection_error(
    kept: list[int], complete: bool
) -> None:
    async def main() -> tuple[list[StreamEvent], int, str]:
        body = reply_sse("openai", [HELLO[i] for i in kept])
        async with ReplayServer([sse_response(body), fixture("text.sse")]) as server:
            return await collect(driver_for(server)), len(server.requests), server.base_url

    events, requests, url = asyncio.run(main())
    assert requests == 1  # never silently restarted
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello"
    last = events[-1]
    if complete:
        assert last == MessageStop(stop_reason="end_turn", timestamp=7)
    else:
        assert isinstance(last, ErrorReceived) and last.retryable
        assert last.code == ErrorCode.CONNECTION_ERROR
        assert "without a finish_reason or [DONE]" in last.message
        assert f"POST {url}/v1/chat/completions" in last.message
        assert assemble(events).incomplete


def test_a_stream_holding_only_done_is_empty_and_retried() -> None:
    async def main() -> tuple[list[StreamEvent], int]:
        only_done = sse_response(b"data: [DONE]\n\n")
        async with ReplayServer([only_done, fixture("text.sse")]) as server:
            return await collect(driver_for(server, sleep=_no_sleep)), len(server.requests)

    events, requests = asyncio.run(main())
    assert requests == 2 and isinstance(events[-1], MessageStop)


async def _no_sleep(_: float) -> None:
    return None


# -- keys --------------------------------------------------------------------------------


@pytest.mark.parametrize("is_async", [False, True])
def test_get_api_key_is_called_before_every_request(is_async: bool) -> None:
    tokens = iter(["tok-1", "tok-2"])

    def sync_key() -> str:
        return next(tokens)

    async def async_key() -> str:
        return next(tokens)

    async def main() -> list[str]:
        async with ReplayServer([fixture("text.sse"), fixture("text.sse")]) as server:
            source = async_key if is_async else sync_key
            driver = driver_for(server, api_key=None, get_api_key=source)
            await collect(driver)
            await collect(driver)
            return [r.headers["authorization"] for r in server.requests]

    assert asyncio.run(main()) == ["Bearer tok-1", "Bearer tok-2"]


def test_a_bad_get_api_key_is_reported_not_raised() -> None:
    events = run([fixture("text.sse")], api_key=None, get_api_key=lambda: "")
    assert len(events) == 1 and isinstance(events[0], ErrorReceived)
    assert events[0].code == ErrorCode.CONFIGURATION_ERROR


def test_remote_server_without_key_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        OpenAIDriver("gpt-4.1")


def test_local_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    async def main() -> str:
        async with ReplayServer([fixture("text.sse")]) as server:
            await collect(OpenAIDriver("llama3", base_url=server.base_url + "/v1"))
            return server.requests[0].headers["authorization"]

    assert asyncio.run(main()) == "Bearer not-needed"


# -- tool arguments (interrupts: test_driver_conformance.py) -------------------------


def test_input_json_deltas_carry_every_fragment() -> None:
    events = run([fixture("parallel_tools.sse")])
    paris = "".join(
        e.partial_json for e in events if isinstance(e, InputJsonDelta) and e.index == 0
    )
    assert json.loads(paris) == {"city": "Paris"}
