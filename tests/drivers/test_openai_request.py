"""The Chat Completions request body: what an OpenAI-compatible server receives.

Tests the private module ``agentcore.drivers._common.history``: the result an orphaned tool
call is given."""

from __future__ import annotations

import asyncio
import pathlib
import re
from typing import Any

import pytest

from agentcore import ModelRequest, ToolSpec
from agentcore.drivers._common.history import ORPHAN_RESULT
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.errors import ConfigurationError
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

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "openai"
PNG = ImageContent(media_type="image/png", data="iVBORw0KGgo=")
WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


def driver(**kwargs: Any) -> OpenAIDriver:
    kwargs.setdefault("api_key", "sk-test")
    return OpenAIDriver("gpt-4.1", **kwargs)


def user(content: Any = "hi") -> UserMessage:
    return UserMessage(message_id="u", content=content)


def assistant(*parts: Any, model: str = "gpt-4.1") -> AssistantMessage:
    return AssistantMessage(message_id="a", model=model, parts=parts)


def call(cid: str, raw: str = '{"city": "Paris"}') -> ToolCallPart:
    return ToolCallPart(
        tool_call_id=cid, tool_name="get_weather", input={"city": "Paris"}, raw_input=raw
    )


def test_server_receives_the_body_the_driver_builds() -> None:
    request = ModelRequest(
        messages=(
            user(),
            assistant(TextPart("Let me check."), call("call_1")),
            ToolResultMessage(tool_call_id="call_1", tool_name="get_weather", result="sunny"),
        ),
        system_prompt="Be brief.",
        tools=(WEATHER,),
        max_tokens=100,
        temperature=0.2,
    )

    async def main() -> tuple[Any, str]:
        async with ReplayServer([sse_response(FIXTURES / "text.sse")]) as server:
            d = driver(base_url=server.base_url + "/v1")
            [e async for e in d.receive(request)]
            return server.requests[0].json, server.requests[0].path

    received, path = asyncio.run(main())
    assert path == "/v1/chat/completions"
    assert received == {
        "model": "gpt-4.1",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 100,
        "temperature": 0.2,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
        ],
    }


def test_user_images_become_data_urls() -> None:
    body = driver().build_body(ModelRequest(messages=(user((TextContent("what is it?"), PNG)),)))
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is it?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ],
        }
    ]


def test_text_only_blocks_are_sent_as_one_string() -> None:
    body = driver().build_body(ModelRequest(messages=(user((TextContent("a"), TextContent("b"))),)))
    assert body["messages"] == [{"role": "user", "content": "a\nb"}]


def test_tool_result_images_follow_the_tool_messages_as_a_user_message() -> None:
    request = ModelRequest(
        messages=(
            user(),
            assistant(call("c1"), call("c2")),
            ToolResultMessage(
                tool_call_id="c1", tool_name="shot", result=(TextContent("done"), PNG)
            ),
            ToolResultMessage(tool_call_id="c2", tool_name="get_weather", result="sunny"),
        )
    )
    messages = driver().build_body(request)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "user"]
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "done"}
    assert messages[4]["content"][0] == {
        "type": "text",
        "text": "Media returned by tool call c1:",
    }
    assert messages[4]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_orphaned_tool_calls_are_answered_and_empty_messages_dropped() -> None:
    request = ModelRequest(messages=(user(), assistant(call("c1")), assistant(), user("again")))
    messages = driver().build_body(request)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "user"]
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": ORPHAN_RESULT}


def test_long_tool_call_ids_are_shortened_consistently() -> None:
    long_id = "toolu_" + "x" * 60
    request = ModelRequest(
        messages=(
            user(),
            assistant(call(long_id)),
            ToolResultMessage(tool_call_id=long_id, tool_name="get_weather", result="ok"),
        )
    )
    messages = driver().build_body(request)["messages"]
    new_id = messages[1]["tool_calls"][0]["id"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,40}", new_id)
    assert messages[2]["tool_call_id"] == new_id


def test_reasoning_is_dropped_for_its_own_model_and_replayed_as_text_for_another() -> None:
    own = assistant(ThinkingPart("mine"), TextPart("A"))
    other = assistant(ThinkingPart("theirs", signature="sig"), TextPart("B"), model="claude-x")
    messages = driver().build_body(ModelRequest(messages=(user(), own, user(), other)))["messages"]
    assert messages[1] == {"role": "assistant", "content": "A"}
    assert messages[3] == {"role": "assistant", "content": "theirsB"}


def test_malformed_arguments_go_back_as_an_empty_object() -> None:
    broken = ToolCallPart(
        tool_call_id="c1", tool_name="t", raw_input='{"a": ', input_error="not JSON"
    )
    request = ModelRequest(messages=(user(), assistant(broken)))
    messages = driver().build_body(request)["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}
        ],
    }


@pytest.mark.parametrize(
    ("provider", "level", "effort"),
    [
        ("openai", "off", None),
        ("openai", "minimal", "minimal"),
        ("openai", "medium", "medium"),
        ("openai", "xhigh", "xhigh"),
        ("vllm", "xhigh", "high"),
        ("vllm", "low", "low"),
    ],
)
def test_thinking_levels_map_to_reasoning_effort(
    provider: str, level: Any, effort: str | None
) -> None:
    body = driver(provider=provider, thinking_level=level).build_body(
        ModelRequest(messages=(user(),))
    )
    assert body.get("reasoning_effort") == effort
    assert ("reasoning_effort" in body) == (effort is not None)


def test_request_overrides_and_options() -> None:
    d = driver(provider="ollama", max_tokens=50, thinking_level="high", include_usage=False)
    request = ModelRequest(
        messages=(user(),),
        model="qwen3",
        thinking_level="off",
        max_tokens=10,
        options={"seed": 3, "response_format": {"type": "json_object"}},
    )
    body = d.build_body(request)
    assert body["model"] == "qwen3"
    assert body["max_tokens"] == 10 and "max_completion_tokens" not in body
    assert "reasoning_effort" not in body and "stream_options" not in body
    assert (body["seed"], body["response_format"]) == (3, {"type": "json_object"})


def test_developer_role_for_the_system_prompt() -> None:
    body = driver(system_role="developer").build_body(
        ModelRequest(messages=(user(),), system_prompt="S")
    )
    assert body["messages"][0] == {"role": "developer", "content": "S"}


def test_unknown_thinking_level_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="thinking level"):
        driver(thinking_level="huge").build_body(ModelRequest(messages=(user(),)))  # type: ignore[arg-type]
