"""AnthropicDriver through the official SDK's HTTP and SSE path, against a ReplayServer."""

import asyncio
import json
import pathlib
from collections.abc import Sequence
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import ModelRequest, to_dict
from agentcore.drivers.anthropic import AnthropicDriver, RetryPolicy
from agentcore.drivers.testing import (
    ReplayServer,
    ScriptedResponse,
    rechunk,
    sse_events,
    sse_response,
)
from agentcore.events import (
    ErrorReceived,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    ToolUseStop,
    UserMessage,
)

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "anthropic"
REQUEST = ModelRequest(messages=(UserMessage("u1", "What is the weather in Paris?"),))
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def fixture(name: str, **kwargs: Any) -> ScriptedResponse:
    return sse_response(FIXTURES / f"{name}.sse", **kwargs)


class Run:
    """One scripted conversation: events per call, requests seen, backoff sleeps asked for."""

    def __init__(self) -> None:
        self.calls: list[list[StreamEvent]] = []
        self.sleeps: list[float] = []
        self.requests: list[Any] = []
        self.url = ""

    @property
    def events(self) -> list[StreamEvent]:
        return self.calls[0]


def run(
    responses: Sequence[ScriptedResponse],
    calls: int = 1,
    request: ModelRequest = REQUEST,
    **driver_kwargs: Any,
) -> Run:
    result = Run()

    async def sleep(seconds: float) -> None:
        result.sleeps.append(seconds)

    async def main() -> None:
        async with ReplayServer(responses) as server:
            result.url = server.base_url + "/v1/messages"
            kwargs = {"api_key": "sk-ant-test", "base_url": server.base_url, **driver_kwargs}
            driver = AnthropicDriver("claude-test", clock=lambda: 5, sleep=sleep, **kwargs)
            for _ in range(calls):
                result.calls.append([e async for e in driver.receive(request)])
        result.requests = server.requests

    asyncio.run(main())
    return result


def test_text_stream_maps_every_event_and_combines_usage() -> None:
    events = run([fixture("text")]).events
    usage = {
        "input_tokens": 12,
        "output_tokens": 6,
        "cache_read_tokens": 100,
        "cache_write_tokens": 50,
    }
    assert events == [
        MessageStart("msg_01Text", "claude-sonnet-4-5", timestamp=5),
        TextDelta("Hello", 0, timestamp=5),
        TextDelta(", world", 0, timestamp=5),
        TextDelta("!", 0, timestamp=5),
        MessageDelta("end_turn", usage, timestamp=5),
        MessageStop("end_turn", timestamp=5),
    ]


def test_interleaved_thinking_text_and_tool_use() -> None:
    events = run([fixture("thinking_text_tool")]).events
    assert [type(e).__name__ for e in events] == [
        "MessageStart",
        "ThinkingDelta",
        "ThinkingDelta",
        "ThinkingDelta",
        "TextDelta",
        "TextDelta",
        "ToolUseStart",
        "InputJsonDelta",
        "InputJsonDelta",
        "InputJsonDelta",
        "ToolUseStop",
        "MessageDelta",
        "MessageStop",
    ]
    thinking = [e for e in events if isinstance(e, ThinkingDelta)]
    assert "".join(t.text for t in thinking) == "The user wants the weather in Paris."
    assert thinking[-1].text == "" and (thinking[-1].signature or "").startswith("EqQB")
    assert {e.index for e in events if isinstance(e, TextDelta)} == {1}
    start = next(e for e in events if isinstance(e, ToolUseStart))
    assert (start.tool_call_id, start.tool_name, start.index) == (
        "toolu_01A09q90qw90lq917835lq9",
        "get_weather",
        2,
    )
    args = "".join(e.partial_json for e in events if isinstance(e, InputJsonDelta))
    assert json.loads(args) == {"location": "Paris, France"}
    delta = next(e for e in events if isinstance(e, MessageDelta))
    assert delta.usage.input_tokens == 40 and delta.usage.output_tokens == 89
    assert events[-1] == MessageStop("tool_use", timestamp=5)


def test_three_parallel_tool_calls_keep_their_indexes() -> None:
    events = run([fixture("parallel_tools")]).events
    starts = [e for e in events if isinstance(e, ToolUseStart)]
    stops = [e for e in events if isinstance(e, ToolUseStop)]
    assert [(s.tool_call_id, s.index) for s in starts] == [
        ("toolu_01Paris", 1),
        ("toolu_01Tokyo", 2),
        ("toolu_01Lima", 3),
    ]
    assert [(s.tool_call_id, s.index) for s in stops] == [(s.tool_call_id, s.index) for s in starts]
    args = {
        s.index: json.loads(
            "".join(
                e.partial_json
                for e in events
                if isinstance(e, InputJsonDelta) and e.index == s.index
            )
        )
        for s in starts
    }
    assert args == {1: {"city": "Paris"}, 2: {"city": "Tokyo"}, 3: {"city": "Lima", "tz": True}}


def test_redacted_thinking_is_one_delta_with_its_data() -> None:
    events = run([fixture("redacted_thinking")]).events
    redacted = [e for e in events if isinstance(e, ThinkingDelta)]
    assert len(redacted) == 1
    assert redacted[0].text == "" and redacted[0].index == 0
    assert (redacted[0].redacted_data or "").startswith("EmwKAhgB")


def test_malformed_tool_json_passes_through_for_the_assembler() -> None:
    events = run([fixture("malformed_tool_json")]).events
    raw = "".join(e.partial_json for e in events if isinstance(e, InputJsonDelta))
    assert raw == '{"city": "Paris", '
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    assert any(isinstance(e, ToolUseStop) for e in events)
    assert events[-1] == MessageStop("tool_use", timestamp=5)


@pytest.mark.parametrize(
    "reason", ["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"]
)
def test_every_stop_reason_is_mapped(reason: str) -> None:
    events = run([fixture(f"stop_{reason}")]).events
    assert isinstance(events[-2], MessageDelta) and events[-2].stop_reason == reason
    assert events[-1] == MessageStop(reason, timestamp=5)


def test_sse_error_event_mid_stream_is_retryable_and_not_retried() -> None:
    result = run([fixture("error_mid_stream"), fixture("text")])
    events = result.events
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Partial ", "answer"]
    assert events[-1] == ErrorReceived(
        "overloaded_error: Overloaded", "OVERLOADED", True, timestamp=5
    )
    assert len(result.requests) == 1


def test_error_event_before_the_first_event_is_retried() -> None:
    error_only = sse_response(b"event: error\ndata: " + json.dumps(OVERLOADED).encode() + b"\n\n")
    result = run([error_only, fixture("text")], retry=RetryPolicy(jitter=0))
    assert isinstance(result.events[-1], MessageStop)
    assert len(result.requests) == 2 and result.sleeps == [0.5]


def test_429_with_retry_after_then_success() -> None:
    limited = ScriptedResponse.json(
        429,
        {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
        headers={"retry-after": "2"},
    )
    result = run([limited, fixture("text")])
    assert result.sleeps == [2.0]
    assert len(result.requests) == 2
    assert result.requests[0].json == result.requests[1].json
    assert [type(e) for e in result.events] == [
        MessageStart,
        TextDelta,
        TextDelta,
        TextDelta,
        MessageDelta,
        MessageStop,
    ]


@pytest.mark.parametrize("status", [500, 503, 529])
def test_5xx_and_overloaded_are_retried_with_backoff(status: int) -> None:
    failing = ScriptedResponse.json(status, OVERLOADED if status == 529 else {"error": {}})
    policy = RetryPolicy(initial_delay=1.0, multiplier=3.0, jitter=0)
    result = run([failing, failing, fixture("text")], retry=policy)
    assert result.sleeps == [1.0, 3.0]
    assert isinstance(result.events[-1], MessageStop)


def test_retries_exhausted_report_the_last_failure() -> None:
    failing = ScriptedResponse.json(529, OVERLOADED)
    result = run([failing] * 3, retry=RetryPolicy(max_retries=2, jitter=0))
    message = f"HTTP 529 overloaded_error: Overloaded (POST {result.url}; gave up after 3 attempts)"
    assert result.events == [ErrorReceived(message, "OVERLOADED", True, timestamp=5)]
    assert len(result.requests) == 3


@pytest.mark.parametrize(
    "broken",
    [ScriptedResponse.disconnect(), fixture("text", reset_after=0)],
    ids=["hang-up", "reset-after-headers"],
)
def test_connection_reset_before_the_first_event_is_retried(broken: ScriptedResponse) -> None:
    result = run([broken, fixture("text")])
    assert len(result.requests) == 2 and len(result.sleeps) == 1
    assert "".join(e.text for e in result.events if isinstance(e, TextDelta)) == "Hello, world!"


def test_connection_reset_mid_stream_ends_with_a_retryable_error_and_no_duplicates() -> None:
    result = run([fixture("text", reset_after=5), fixture("text")])
    events = result.events
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hello", ", world"]
    assert isinstance(events[-1], ErrorReceived)
    assert events[-1].code == "CONNECTION_ERROR" and events[-1].retryable
    assert len(result.requests) == 1 and result.sleeps == []


def test_stream_ending_without_message_stop_is_an_error() -> None:
    truncated = sse_response(sse_events(FIXTURES / "text.sse")[:4])
    result = run([truncated])
    message = (
        f"the Anthropic stream ended before message_stop (POST {result.url}; "
        "not retried: part of the answer had already been streamed)"
    )
    assert result.events[-1] == ErrorReceived(message, "CONNECTION_ERROR", True, timestamp=5)


def test_context_overflow_has_its_own_code_and_is_not_retried() -> None:
    too_long = ScriptedResponse.json(
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: 215000 tokens > 200000",
            },
        },
    )
    result = run([too_long, fixture("text")])
    assert len(result.events) == 1 and isinstance(result.events[0], ErrorReceived)
    assert result.events[0].code == "CONTEXT_OVERFLOW" and not result.events[0].retryable
    assert len(result.requests) == 1


def test_get_api_key_is_called_before_every_request_and_never_leaks() -> None:
    keys: list[str] = []

    async def get_api_key() -> str:
        keys.append(f"sk-ant-secret-{len(keys)}")
        return keys[-1]

    failing = ScriptedResponse.json(500, {"error": {"type": "api_error", "message": "oops"}})
    result = run(
        [failing, fixture("text"), fixture("thinking_text_tool")],
        calls=2,
        api_key=None,
        get_api_key=get_api_key,
    )
    assert keys == ["sk-ant-secret-0", "sk-ant-secret-1", "sk-ant-secret-2"]
    for request, key in zip(result.requests, keys, strict=True):
        assert key in json.dumps(dict(request.headers))
    wire = json.dumps([to_dict(e) for call in result.calls for e in call])
    assert "sk-ant-secret" not in wire


def test_failing_get_api_key_becomes_an_error_event() -> None:
    result = run([fixture("text")], api_key=None, get_api_key=lambda: "")
    assert len(result.events) == 1 and result.events[0].code == "CONFIGURATION_ERROR"  # type: ignore[union-attr]
    assert result.requests == []


def test_bad_thinking_level_in_request_is_an_error_event() -> None:
    request = ModelRequest(messages=REQUEST.messages, thinking_level="max")  # type: ignore[arg-type]
    events = run([], request=request).events
    assert len(events) == 1 and isinstance(events[0], ErrorReceived)
    assert events[0].code == "CONFIGURATION_ERROR" and "thinking level" in events[0].message


def test_user_client_keeps_its_config_but_not_its_retries() -> None:
    async def main() -> tuple[list[StreamEvent], int]:
        failing = ScriptedResponse.json(503, {"error": {}})
        async with ReplayServer([failing, fixture("text")]) as server:
            client = anthropic.AsyncAnthropic(
                api_key="sk-user", base_url=server.base_url, max_retries=5
            )
            driver = AnthropicDriver("m", client=client, retry=RetryPolicy(max_retries=0))
            events = [e async for e in driver.receive(REQUEST)]
            return events, len(server.requests)

    events, requests = asyncio.run(main())
    assert requests == 1 and isinstance(events[0], ErrorReceived)
    client = anthropic.AsyncAnthropic(api_key="k", max_retries=5)
    AnthropicDriver("m", client=client)
    assert client.max_retries == 5  # the driver uses a copy


def test_constructor_errors_say_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        AnthropicDriver("m")
    with pytest.raises(ValueError, match="to your AsyncAnthropic client"):
        AnthropicDriver("m", client=anthropic.AsyncAnthropic(api_key="k"), api_key="k")
    with pytest.raises(ValueError, match="max_tokens"):
        AnthropicDriver("m", api_key="k", max_tokens=0)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    assert AnthropicDriver("m").name == "anthropic"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["text", "thinking_text_tool", "parallel_tools", "redacted_thinking"]),
    sizes=st.lists(st.integers(1, 200), min_size=1, max_size=4),
)
def test_events_do_not_depend_on_how_the_bytes_are_chunked(name: str, sizes: list[int]) -> None:
    whole = run([fixture(name)]).events
    pieces = rechunk(sse_events(FIXTURES / f"{name}.sse"), sizes)
    assert run([sse_response(pieces)]).events == whole
