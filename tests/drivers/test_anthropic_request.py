"""Anthropic request bodies: checked on the JSON the SDK actually sent to a ReplayServer."""

import asyncio
import pathlib
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import ModelRequest, ToolSpec
from agentcore.drivers.anthropic import AnthropicDriver, build_params
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.events import (
    AssistantMessage,
    ImageContent,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "anthropic" / "text.sse"
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5Erk"


def sent_body(request: ModelRequest, **driver_kwargs: Any) -> dict[str, Any]:
    """The JSON body the SDK sent for ``request``."""

    async def main() -> dict[str, Any]:
        async with ReplayServer([sse_response(FIXTURE)]) as server:
            driver = AnthropicDriver(
                "claude-test", api_key="k", base_url=server.base_url, **driver_kwargs
            )
            [e async for e in driver.receive(request)]
        assert server.requests[0].path == "/v1/messages"
        body: dict[str, Any] = server.requests[0].json
        return body

    return asyncio.run(main())


def call(tool_call_id: str, name: str = "get_weather", **args: Any) -> ToolCallPart:
    return ToolCallPart(tool_call_id, name, args)


def assistant(*parts: Any, incomplete: bool = False) -> AssistantMessage:
    return AssistantMessage("a", "claude-test", parts, incomplete=incomplete)


def result(tool_call_id: str, content: Any = "ok", is_error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id, "get_weather", content, is_error=is_error)


def test_system_tools_options_and_defaults() -> None:
    request = ModelRequest(
        messages=(UserMessage("u", "hi"),),
        system_prompt="Be brief.",
        tools=(
            ToolSpec(
                "get_weather",
                "Weather for a city",
                {"type": "object", "properties": {"city": {"type": "string"}}},
            ),
        ),
        temperature=0.3,
        options={"stop_sequences": ["###"], "top_k": 5},
    )
    body = sent_body(request, max_tokens=1000)
    assert body == {
        "model": "claude-test",
        "max_tokens": 1000,
        "stream": True,
        "system": "Be brief.",
        "temperature": 0.3,
        "stop_sequences": ["###"],
        "top_k": 5,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather for a city",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        ],
    }


@pytest.mark.parametrize(
    ("level", "budget"),
    [("minimal", 1024), ("low", 2048), ("medium", 8192), ("high", 16384), ("xhigh", 32768)],
)
def test_thinking_levels_set_a_budget_on_top_of_max_tokens(level: str, budget: int) -> None:
    request = ModelRequest(messages=(UserMessage("u", "hi"),), temperature=0.5)
    body = sent_body(request, thinking_level=level, max_tokens=4000)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == 4000 + budget
    assert "temperature" not in body


def test_request_overrides_driver_defaults() -> None:
    request = ModelRequest(
        messages=(UserMessage("u", "hi"),),
        model="claude-other",
        thinking_level="off",
        max_tokens=77,
    )
    body = sent_body(request, thinking_level="high", max_tokens=4000)
    assert (body["model"], body["max_tokens"]) == ("claude-other", 77)
    assert "thinking" not in body


def test_images_in_user_messages_and_tool_results() -> None:
    image = ImageContent("image/png", PIXEL)
    request = ModelRequest(
        messages=(
            UserMessage("u", (TextContent("What is this?"), image)),
            assistant(call("toolu_1")),
            result("toolu_1", (TextContent("a screenshot"), image)),
        )
    )
    image_block = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PIXEL},
    }
    assert sent_body(request)["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What is this?"}, image_block]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "a screenshot"}, image_block],
                }
            ],
        },
    ]


def test_consecutive_tool_results_merge_and_orphans_are_closed() -> None:
    request = ModelRequest(
        messages=(
            UserMessage("u", "weather in Paris, Tokyo and Lima?"),
            assistant(
                TextPart("Checking."),
                call("toolu_1", city="Paris"),
                call("toolu_2"),
                call("toolu_3"),
            ),
            result("toolu_1", "sunny"),
            result("toolu_2", "boom", is_error=True),
            UserMessage("u2", "and now?"),
        )
    )
    messages = sent_body(request)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "user"]
    assert messages[1]["content"][1]["input"] == {"city": "Paris"}
    blocks = messages[2]["content"]
    assert [(b["tool_use_id"], b.get("is_error", False)) for b in blocks] == [
        ("toolu_1", False),
        ("toolu_2", True),
        ("toolu_3", True),
    ]
    assert blocks[0]["content"] == "sunny"
    assert messages[3] == {"role": "user", "content": "and now?"}


def test_thinking_replay_signed_redacted_and_foreign() -> None:
    request = ModelRequest(
        messages=(
            UserMessage("u", "hi"),
            assistant(
                ThinkingPart("plan", signature="sig=="),
                ThinkingPart("", redacted_data="enc"),
                TextPart("Hello"),
            ),
            UserMessage("u2", "again"),
            assistant(ThinkingPart("other provider's reasoning"), TextPart("Hi")),
            UserMessage("u3", "bye"),
        )
    )
    messages = sent_body(request)["messages"]
    assert messages[1]["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "enc"},
        {"type": "text", "text": "Hello"},
    ]
    assert messages[3]["content"] == [
        {"type": "text", "text": "other provider's reasoning"},
        {"type": "text", "text": "Hi"},
    ]


def test_incomplete_and_empty_assistant_messages_are_not_sent_empty() -> None:
    request = ModelRequest(
        messages=(
            UserMessage("u", "hi"),
            assistant(TextPart(""), incomplete=True),
            UserMessage("u2", "hello?"),
        )
    )
    messages = sent_body(request)["messages"]
    assert all(m["content"] for m in messages)
    assert [m["role"] for m in messages] == ["user", "user"]


ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=90), min_size=1, max_size=4, unique=True))
def test_tool_call_ids_are_normalised_consistently(ids: list[str]) -> None:
    request = ModelRequest(
        messages=(
            UserMessage("u", "go"),
            assistant(*(call(i) for i in ids)),
            *(result(i, f"r{n}") for n, i in enumerate(ids)),
        )
    )
    messages = build_params(request, model="m", max_tokens=10, thinking_level="off")["messages"]
    call_ids = [b["id"] for b in messages[1]["content"]]
    answer_ids = [b["tool_use_id"] for b in messages[2]["content"]]
    assert call_ids == answer_ids
    assert len(set(call_ids)) == len(ids)
    assert all(ANTHROPIC_ID.match(i) for i in call_ids)
    assert [b["content"] for b in messages[2]["content"]] == [f"r{n}" for n in range(len(ids))]


def test_foreign_tool_call_ids_reach_the_server_normalised() -> None:
    foreign = "call_abc.123:xyz/" + "z" * 80
    request = ModelRequest(
        messages=(UserMessage("u", "go"), assistant(call(foreign)), result(foreign))
    )
    messages = sent_body(request)["messages"]
    sent_id = messages[1]["content"][0]["id"]
    assert ANTHROPIC_ID.match(sent_id)
    assert messages[2]["content"][0]["tool_use_id"] == sent_id


def test_another_providers_signed_reasoning_is_sent_as_text_never_as_thinking() -> None:
    """OpenAI's encrypted reasoning (kept in redacted_data/signature) would be rejected."""
    foreign = AssistantMessage(
        message_id="r1",
        model="gpt-5",
        parts=(
            ThinkingPart("summary of reasoning", signature="opaque", redacted_data="enc"),
            TextPart("Hi"),
        ),
    )
    request = ModelRequest(messages=(UserMessage("u", "hi"), foreign, UserMessage("u2", "more")))
    assert sent_body(request)["messages"][1]["content"] == [
        {"type": "text", "text": "summary of reasoning"},
        {"type": "text", "text": "Hi"},
    ]
