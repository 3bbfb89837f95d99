"""GoogleDriver through the official google-genai SDK's HTTP and SSE path, against a local
ReplayServer: the recorded shapes of Gemini's ``streamGenerateContent?alt=sse``, its error
bodies, thought signatures sent back where they came from, and the registry entry."""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import Sequence
from typing import Any

import attrs
import hypothesis.strategies as st
import pytest
from google import genai
from hypothesis import HealthCheck, given, settings

from agentcore import ModelRequest, ToolSpec
from agentcore.drivers.google import SKIP_SIGNATURE, GoogleDriver
from agentcore.drivers.recorded_sse import recorded_call, sse_provider
from agentcore.drivers.registry import get_driver, split_model
from agentcore.drivers.streaming import RetryPolicy
from agentcore.drivers.testing import (
    ReplayServer,
    ScriptedResponse,
    assemble,
    check_stream,
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
    ToolCallPart,
    ToolResultMessage,
    Usage,
    UserMessage,
)

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "google"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u1", content="hi"),))
KEY = "AIzaSy-test-key-0123456789"
INVALID_KEY = {"reason": "API_KEY_INVALID", "domain": "googleapis.com"}


async def _no_sleep(_: float) -> None:
    return None


def driver_for(
    server: ReplayServer, model: str = "gemini-2.5-flash", **kwargs: Any
) -> GoogleDriver:
    kwargs.setdefault("api_key", KEY)
    kwargs.setdefault("sleep", _no_sleep)
    return GoogleDriver(model, base_url=server.base_url, clock=lambda: 7, **kwargs)


def run(
    responses: Sequence[ScriptedResponse], request: ModelRequest = REQUEST, **kwargs: Any
) -> tuple[list[StreamEvent], list[Any]]:
    """The events of one call, and the requests the server received."""

    async def main() -> tuple[list[StreamEvent], list[Any]]:
        async with ReplayServer(responses) as server, driver_for(server, **kwargs) as driver:
            events = [e async for e in driver.receive(request)]
            return events, server.requests

    return asyncio.run(main())


def fixture(name: str, **kwargs: Any) -> ScriptedResponse:
    return sse_response(FIXTURES / name, **kwargs)


def google_error(status: int, name: str, message: str, **extra: Any) -> ScriptedResponse:
    body = {"error": {"code": status, "message": message, "status": name, **extra}}
    return ScriptedResponse.json(status, body)


# -- mapping ---------------------------------------------------------------------------


def test_text_stream_maps_to_start_deltas_usage_and_stop() -> None:
    events, requests = run([fixture("text.sse")])
    check_stream(events)
    assert events[0] == MessageStart("d3JpdGVz-text0001", "gemini-2.5-flash", timestamp=7)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hello", ", wor", "ld!"]
    assert events[-2:] == [
        MessageDelta("end_turn", Usage(input_tokens=6, output_tokens=4), timestamp=7),
        MessageStop("end_turn", timestamp=7),
    ]
    (sent,) = requests
    assert sent.path.endswith("/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
    assert sent.headers["x-goog-api-key"] == KEY
    assert sent.json == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}},  # off, on 2.5 Flash
    }


def test_thought_summaries_signature_and_text_assemble_in_order() -> None:
    events, _ = run([fixture("thinking_text.sse")])
    message = assemble(events)
    assert message.parts == (
        ThinkingPart("**Adding numbers**\n\nThe user asks 2+2. That is 4."),
        ThinkingPart("", signature="CiIBVKhc7sSgb2b0dGhvdWdodC1zaWduYXR1cmUtMQ=="),
        TextPart("2 + 2 = 4."),
    )
    # 12 prompt tokens of which 8 cached; thoughts are billed as output
    assert message.usage == Usage(
        input_tokens=4, output_tokens=64, cache_read_tokens=8, reasoning_tokens=57
    )


def test_parallel_function_calls_keep_ids_args_and_the_first_calls_signature() -> None:
    events, _ = run([fixture("parallel_tools.sse")])
    check_stream(events)
    message = assemble(events)
    assert message.model == "gemini-3-pro-preview" and message.stop_reason == "tool_use"
    assert [(c.tool_call_id, c.tool_name, dict(c.input)) for c in message.tool_calls] == [
        ("9f2c1a7b", "get_weather", {"city": "Paris"}),
        ("4d8e0b16", "get_weather", {"city": "Tokyo", "units": "metric"}),
    ]
    assert message.parts[1] == ThinkingPart(
        "", signature="EpsCCpgCAXLI2nzU0lnbmF0dXJlLWZvci1jYWxscw=="
    )


@pytest.mark.parametrize(
    ("name", "stop"),
    [("max_tokens.sse", "max_tokens"), ("blocked.sse", "refusal")],
)
def test_finish_and_block_reasons_map_to_stop_reasons(name: str, stop: str) -> None:
    events, _ = run([fixture(name)])
    check_stream(events)
    assert events[-1] == MessageStop(stop, timestamp=7)


def test_a_malformed_function_call_ends_with_a_retryable_provider_error() -> None:
    events, requests = run([fixture("malformed_call.sse")])
    check_stream(events)
    assert len(requests) == 1  # the answer had started: the loop decides about retrying
    last = events[-1]
    assert isinstance(last, ErrorReceived) and last.retryable
    assert last.code == ErrorCode.PROVIDER_ERROR and "MALFORMED_FUNCTION_CALL" in last.message


def test_crlf_event_separators_as_gemini_sends_them_decode_the_same() -> None:
    raw = (FIXTURES / "text.sse").read_bytes()
    assert b"\r\n\r\n" in raw
    crlf, _ = run([sse_response([raw])])  # the bytes as recorded, in one piece
    lf, _ = run([fixture("text.sse")])
    assert crlf == lf


def _strip(events: Sequence[StreamEvent]) -> list[StreamEvent]:
    return [attrs.evolve(e, timestamp=0) for e in events]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["text.sse", "thinking_text.sse", "parallel_tools.sse"]),
    st.lists(st.integers(min_value=1, max_value=300), min_size=1, max_size=5),
)
def test_events_do_not_depend_on_how_bytes_are_chunked(name: str, sizes: list[int]) -> None:
    whole, _ = run([fixture(name)])
    cut, _ = run([sse_response(rechunk(sse_events(FIXTURES / name), sizes))])
    assert _strip(cut) == _strip(whole)


# -- what goes back: history, thought signatures, tools, config ---------------------------


def _turn(message: AssistantMessage) -> ModelRequest:
    results = tuple(
        ToolResultMessage(c.tool_call_id, c.tool_name, f"sunny in {c.input['city']}")
        for c in message.tool_calls
    )
    return ModelRequest(messages=(*REQUEST.messages, message, *results))


def _called() -> AssistantMessage:
    events, _ = run([fixture("parallel_tools.sse")])
    return assemble(events)


def test_the_same_model_gets_its_thoughts_and_signatures_back_where_they_were() -> None:
    _, requests = run([fixture("text.sse")], _turn(_called()), model="gemini-3-pro-preview")
    contents = requests[0].json["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [
            {"text": "I'll check both cities.", "thought": True},
            {
                "functionCall": {
                    "id": "9f2c1a7b",
                    "name": "get_weather",
                    "args": {"city": "Paris"},
                },
                "thoughtSignature": "EpsCCpgCAXLI2nzU0lnbmF0dXJlLWZvci1jYWxscw==",
            },
            {
                "functionCall": {
                    "id": "4d8e0b16",
                    "name": "get_weather",
                    "args": {"city": "Tokyo", "units": "metric"},
                }
            },
        ],
    }
    assert contents[2] == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "id": "9f2c1a7b",
                    "name": "get_weather",
                    "response": {"output": "sunny in Paris"},
                }
            },
            {
                "functionResponse": {
                    "id": "4d8e0b16",
                    "name": "get_weather",
                    "response": {"output": "sunny in Tokyo"},
                }
            },
        ],
    }


@pytest.mark.parametrize(
    ("target", "signature"),
    [("gemini-3-flash-preview", SKIP_SIGNATURE), ("gemini-2.5-flash", None)],
)
def test_another_model_gets_thoughts_as_text_and_no_foreign_signature(
    target: str, signature: str | None
) -> None:
    _, requests = run([fixture("text.sse")], _turn(_called()), model=target)
    parts = requests[0].json["contents"][1]["parts"]
    assert parts[0] == {"text": "I'll check both cities."}
    assert parts[1].get("thoughtSignature") == signature  # Gemini 3 needs one: the placeholder
    assert "thoughtSignature" not in parts[2]
    assert "EpsCCpgC" not in json.dumps(requests[0].json)


def test_a_claude_conversation_replayed_to_gemini_3_validates() -> None:
    """A fallback from Anthropic: signed Claude thinking becomes text, the call gets the
    placeholder signature, ids are kept, and the tool result answers it by id and name."""
    claude = AssistantMessage(
        "msg_1",
        "claude-sonnet-4-5-20250929",
        (
            ThinkingPart("Need the weather.", signature="EqQBCkYIBxgCKkDclaude"),
            ToolCallPart("toolu_01A09q90qw90lq917835lq9", "get_weather", {"city": "Oslo"}),
        ),
        stop_reason="tool_use",
    )
    _, requests = run([fixture("text.sse")], _turn(claude), model="gemini-3-pro-preview")
    model_turn, results = requests[0].json["contents"][1:]
    assert model_turn["parts"] == [
        {"text": "Need the weather."},
        {
            "functionCall": {
                "id": "toolu_01A09q90qw90lq917835lq9",
                "name": "get_weather",
                "args": {"city": "Oslo"},
            },
            "thoughtSignature": SKIP_SIGNATURE,
        },
    ]
    response = results["parts"][0]["functionResponse"]
    assert (response["id"], response["name"]) == ("toolu_01A09q90qw90lq917835lq9", "get_weather")


def test_tools_system_prompt_limits_and_options_shape_the_body() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    request = attrs.evolve(
        REQUEST,
        system_prompt="Be brief.",
        tools=(ToolSpec("search", "Search the web", schema),),
        thinking_level="low",
        max_tokens=500,
        temperature=0.2,
        options={"generationConfig": {"topK": 5}, "toolConfig": {"functionCallingConfig": {}}},
    )
    _, requests = run([fixture("text.sse")], request)
    body = requests[0].json
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {"name": "search", "description": "Search the web", "parametersJsonSchema": schema}
            ]
        }
    ]
    assert body["generationConfig"] == {
        "thinkingConfig": {"thinkingBudget": 2048, "includeThoughts": True},
        "maxOutputTokens": 500 + 2048,
        "temperature": 0.2,
        "topK": 5,
    }
    assert body["toolConfig"] == {"functionCallingConfig": {}}


def test_images_in_user_messages_and_tool_results_go_as_inline_data() -> None:
    from agentcore.events import ImageContent, TextContent

    image = ImageContent(data="aGVsbG8=", media_type="image/png")
    call = AssistantMessage("m", "gemini-2.5-flash", (ToolCallPart("c1", "shot", {}),))
    request = ModelRequest(
        messages=(
            UserMessage("u1", (TextContent("what is this?"), image)),
            call,
            ToolResultMessage("c1", "shot", (image,)),
        )
    )
    _, requests = run([fixture("text.sse")], request)
    user, _, results = requests[0].json["contents"]
    inline = {"inlineData": {"mimeType": "image/png", "data": "aGVsbG8="}}
    assert user["parts"] == [{"text": "what is this?"}, inline]
    assert results["parts"][0]["functionResponse"]["response"] == {
        "output": "(1 attachment(s) below)"
    }
    assert results["parts"][1:] == [{"text": "Media returned by tool call c1:"}, inline]


# -- errors and retries ------------------------------------------------------------------


def test_503_unavailable_is_overloaded_and_retried_then_answered() -> None:
    busy = google_error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
    events, requests = run([busy, fixture("text.sse")])
    assert len(requests) == 2 and assemble(events).text == "Hello, world!"


def test_429_with_retry_after_waits_that_long() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    limited = ScriptedResponse.json(
        429,
        {"error": {"code": 429, "message": "Resource exhausted.", "status": "RESOURCE_EXHAUSTED"}},
        headers={"retry-after": "3"},
    )
    events, _ = run([limited, fixture("text.sse")], sleep=sleep)
    assert waits == [3.0] and isinstance(events[-1], MessageStop)


@pytest.mark.parametrize(
    ("response", "code", "retryable"),
    [
        (
            google_error(503, "UNAVAILABLE", "The model is overloaded."),
            ErrorCode.OVERLOADED,
            True,
        ),
        (
            google_error(
                400,
                "INVALID_ARGUMENT",
                "API key not valid. Please pass a valid API key.",
                details=[{"@type": "type.googleapis.com/google.rpc.ErrorInfo", **INVALID_KEY}],
            ),
            ErrorCode.AUTHENTICATION_ERROR,
            False,
        ),
        (
            google_error(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers."),
            ErrorCode.AUTHENTICATION_ERROR,
            False,
        ),
        (
            google_error(
                400,
                "INVALID_ARGUMENT",
                "The input token count (1200000) exceeds the maximum number of tokens "
                "allowed (1048576).",
            ),
            ErrorCode.CONTEXT_OVERFLOW,
            False,
        ),
        (
            google_error(400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
            ErrorCode.PROVIDER_ERROR,
            False,
        ),
    ],
    ids=["overloaded", "bad-key", "denied", "overflow", "bad-request"],
)
def test_error_bodies_are_classified(
    response: ScriptedResponse, code: ErrorCode, retryable: bool
) -> None:
    events, requests = run([response] * 3, retry=RetryPolicy(max_retries=2))
    assert len(events) == 1 and isinstance(events[0], ErrorReceived)
    assert (events[0].code, events[0].retryable) == (code.value, retryable)
    assert len(requests) == (3 if retryable else 1)
    assert events[0].message.startswith(f"HTTP {response.status} ")


def test_an_error_chunk_after_text_keeps_the_text_and_ends_the_message() -> None:
    first = sse_events(FIXTURES / "text.sse")[:2]
    body = {"error": {"code": 503, "message": "Backend error.", "status": "UNAVAILABLE"}}
    error = json.dumps(body)
    events, requests = run([sse_response((*first, b"data: " + error.encode() + b"\n\n"))])
    check_stream(events)
    assert len(requests) == 1 and assemble(events).text == "Hello, wor"
    last = events[-1]
    assert isinstance(last, ErrorReceived) and last.code == ErrorCode.OVERLOADED.value
    assert last.retryable and "Backend error." in last.message


def test_an_error_chunk_first_is_retried_like_an_error_status() -> None:
    body = {"error": {"code": 500, "message": "Internal error.", "status": "INTERNAL"}}
    error = b"data: " + json.dumps(body).encode() + b"\n\n"
    events, requests = run([sse_response(error), fixture("text.sse")])
    assert len(requests) == 2 and isinstance(events[-1], MessageStop)


def test_a_stream_cut_before_the_finish_reason_is_a_retryable_connection_error() -> None:
    body = b"".join(sse_events(FIXTURES / "text.sse")[:2])
    events, requests = run([sse_response(body), fixture("text.sse")])
    assert len(requests) == 1
    last = events[-1]
    assert isinstance(last, ErrorReceived) and last.retryable
    assert last.code == ErrorCode.CONNECTION_ERROR.value and "finishReason" in last.message


# -- keys and configuration ---------------------------------------------------------------


def test_get_api_key_is_asked_before_every_request_and_wins() -> None:
    tokens = iter(["tok-aaaaaaaa-1", "tok-aaaaaaaa-2"])

    async def main() -> list[str]:
        async with ReplayServer([fixture("text.sse")] * 2) as server:
            async with driver_for(server, api_key=None, get_api_key=lambda: next(tokens)) as d:
                for _ in range(2):
                    [e async for e in d.receive(REQUEST)]
            return [r.headers["x-goog-api-key"] for r in server.requests]

    assert asyncio.run(main()) == ["tok-aaaaaaaa-1", "tok-aaaaaaaa-2"]


def test_no_key_anywhere_is_a_configuration_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="GEMINI_API_KEY"):
        GoogleDriver("gemini-2.5-flash")


def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)

    async def main() -> str:
        async with ReplayServer([fixture("text.sse")]) as server:
            async with GoogleDriver("gemini-2.5-flash", base_url=server.base_url) as driver:
                [e async for e in driver.receive(REQUEST)]
            return str(server.requests[0].headers["x-goog-api-key"])

    assert asyncio.run(main()) == KEY


def test_a_client_passed_in_is_used_as_is_and_not_closed() -> None:
    async def main() -> tuple[str, bool]:
        async with ReplayServer([fixture("text.sse")]) as server:
            client = genai.Client(
                api_key=KEY, http_options=genai.types.HttpOptions(base_url=server.base_url)
            )
            async with GoogleDriver("gemini-2.5-flash", client=client) as driver:
                events = [e async for e in driver.receive(REQUEST)]
            closed = client.aio._api_client._async_httpx_client.is_closed
            await client.aio.aclose()
            return assemble(events).text, closed

    assert asyncio.run(main()) == ("Hello, world!", False)
    with pytest.raises(ConfigurationError, match=r"genai\.Client"):
        GoogleDriver("gemini-2.5-flash", client=genai.Client(api_key=KEY), api_key=KEY)


def test_the_registry_builds_it_from_a_model_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    assert split_model("gemini-2.5-pro") == ("google", "gemini-2.5-pro")
    driver = get_driver("google/gemini-2.5-pro", thinking_level="high")
    assert isinstance(driver, GoogleDriver) and driver.name == "google"
    assert (driver.model, driver.thinking_level) == ("gemini-2.5-pro", "high")


def test_a_recording_replays_through_the_driver() -> None:
    path = FIXTURES / "parallel_tools.sse"
    assert sse_provider(path.read_bytes()) == "google"
    events = asyncio.run(recorded_call(path))
    assert [c.tool_name for c in assemble(events).tool_calls] == ["get_weather", "get_weather"]
