"""Prompt-cache controls in request bodies, as each provider documents them, sent through
the SDKs' real HTTP path (a ReplayServer records what arrived), and cache usage per TTL."""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Callable
from typing import Any

import pytest

from agentcore import ModelRequest, ToolSpec
from agentcore.caching import CachePlan
from agentcore.drivers.anthropic import AnthropicDriver
from agentcore.drivers.google import GoogleDriver
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.openai_responses import OpenAIResponsesDriver
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.events import (
    AssistantMessage,
    MessageDelta,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
TOOL = ToolSpec("get_weather", "The weather in a city", {"type": "object", "properties": {}})
HISTORY = (
    UserMessage("u1", "What is the weather in Paris?"),
    AssistantMessage(
        "a1",
        "claude-sonnet-4-5",
        (ThinkingPart("thinking", "sig"), ToolCallPart("toolu_1", "get_weather", {})),
    ),
    ToolResultMessage("toolu_1", "get_weather", "sunny"),
    AssistantMessage("a2", "claude-sonnet-4-5", (TextPart("Sunny."),)),
    UserMessage("u2", "And tomorrow?"),
)
EPHEMERAL = {"type": "ephemeral"}
ONE_HOUR = {"type": "ephemeral", "ttl": "1h"}


def _sent(make: Callable[[str], Any], fixture: str, request: ModelRequest) -> tuple[Any, list[Any]]:
    """The JSON body the driver posted for ``request``, and the events it yielded."""

    async def main() -> tuple[Any, list[Any]]:
        async with ReplayServer([sse_response(FIXTURES / fixture)]) as server:
            driver = make(server.base_url)
            try:
                events = [e async for e in driver.receive(request)]
            finally:
                await driver.aclose()
        return server.requests[0].json, events

    return asyncio.run(main())


def _anthropic(base_url: str) -> AnthropicDriver:
    return AnthropicDriver("claude-test", api_key="sk-ant-test", base_url=base_url)


def test_anthropic_breakpoints_on_tools_system_and_messages() -> None:
    plan = CachePlan(system=True, tools=True, messages=(2, 4), ttl="1h")
    request = ModelRequest(HISTORY, "You are a weather bot.", (TOOL,), cache=plan)
    body, _ = _sent(_anthropic, "anthropic/text.sse", request)
    assert body["tools"][-1]["cache_control"] == ONE_HOUR
    assert body["system"] == [
        {"type": "text", "text": "You are a weather bot.", "cache_control": ONE_HOUR}
    ]
    messages = body["messages"]
    assert len(messages) == 5
    # message 2 (the tool result) is the body's third message: its last block is marked
    assert messages[2]["content"][-1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "sunny",
        "cache_control": ONE_HOUR,
    }
    assert messages[4]["content"] == [
        {"type": "text", "text": "And tomorrow?", "cache_control": ONE_HOUR}
    ]
    marked = [i for i, m in enumerate(messages) if "cache_control" in str(m)]
    assert marked == [2, 4]


def test_anthropic_keeps_four_breakpoints_the_latest_messages_first() -> None:
    plan = CachePlan(system=True, tools=True, messages=(0, 2, 4))
    request = ModelRequest(HISTORY, "sys", (TOOL,), cache=plan)
    body, _ = _sent(_anthropic, "anthropic/text.sse", request)
    marks = str(body).count("cache_control")
    assert marks == 4
    assert "cache_control" not in str(body["messages"][0])
    assert body["messages"][4]["content"][-1]["cache_control"] == EPHEMERAL


def test_anthropic_never_marks_a_thinking_block() -> None:
    reply = AssistantMessage(
        "a1", "claude-sonnet-4-5", (TextPart("Let me see."), ThinkingPart("hm", "sig"))
    )
    request = ModelRequest((HISTORY[0], reply, HISTORY[-1]), cache=CachePlan(messages=(1,)))
    body, _ = _sent(_anthropic, "anthropic/text.sse", request)
    blocks = body["messages"][1]["content"]
    assert [b["type"] for b in blocks] == ["text", "thinking"]
    assert blocks[0]["cache_control"] == EPHEMERAL and "cache_control" not in blocks[1]


def test_anthropic_without_a_plan_sends_no_cache_control() -> None:
    body, _ = _sent(_anthropic, "anthropic/text.sse", ModelRequest(HISTORY, "sys", (TOOL,)))
    assert "cache_control" not in str(body) and body["system"] == "sys"


def test_anthropic_usage_counts_writes_per_ttl() -> None:
    request = ModelRequest(HISTORY[:1], cache=CachePlan(messages=(0,), ttl="1h"))
    _, events = _sent(_anthropic, "anthropic/cache_write_1h.sse", request)
    [delta] = [e for e in events if isinstance(e, MessageDelta)]
    usage = delta.usage
    assert (usage.cache_write_tokens, usage.cache_write_1h_tokens) == (3000, 2000)
    assert (usage.cache_read_tokens, usage.input_tokens, usage.output_tokens) == (1800, 21, 4)


@pytest.mark.parametrize(
    ("make", "fixture"),
    [
        (lambda url: OpenAIDriver("gpt-5", api_key="sk-test", base_url=url + "/v1"), "openai"),
        (
            lambda url: OpenAIResponsesDriver("gpt-5", api_key="sk-test", base_url=url + "/v1"),
            "openai-responses",
        ),
    ],
)
def test_openai_prompt_cache_key_and_retention(make: Any, fixture: str) -> None:
    plan = CachePlan(system=True, messages=(0,), key="tenant-42", retention="24h", ttl="1h")
    request = ModelRequest(HISTORY[:1], "sys", cache=plan)
    body, _ = _sent(make, f"{fixture}/text.sse", request)
    assert body["prompt_cache_key"] == "tenant-42"
    assert body["prompt_cache_retention"] == "24h"
    assert "cache_control" not in str(body)
    plain, _ = _sent(make, f"{fixture}/text.sse", ModelRequest(HISTORY[:1], "sys"))
    assert "prompt_cache_key" not in plain and "prompt_cache_retention" not in plain


def _gemini(base_url: str) -> GoogleDriver:
    return GoogleDriver("gemini-2.5-flash", api_key="AIza-test", base_url=base_url)


def test_gemini_names_its_cached_content_and_leaves_out_what_it_holds() -> None:
    plan = CachePlan(system=True, tools=True, cached_content="cachedContents/abc123")
    request = ModelRequest(HISTORY[:1], "sys", (TOOL,), cache=plan)
    body, _ = _sent(_gemini, "google/text.sse", request)
    assert body["cachedContent"] == "cachedContents/abc123"
    assert "systemInstruction" not in body and "tools" not in body
    assert body["contents"][0]["parts"] == [{"text": "What is the weather in Paris?"}]
    plain, _ = _sent(_gemini, "google/text.sse", ModelRequest(HISTORY[:1], "sys", (TOOL,)))
    assert "cachedContent" not in plain and "systemInstruction" in plain
