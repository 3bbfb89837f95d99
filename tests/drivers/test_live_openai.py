"""Live OpenAI-compatible tests: one text turn and one tool turn against a real endpoint.

Skipped unless ``OPENAI_API_KEY`` (api.openai.com) or ``AGENTCORE_OPENAI_BASE_URL`` (any
OpenAI-compatible server, e.g. ``http://127.0.0.1:11434/v1``) is set.
``AGENTCORE_LIVE_OPENAI_MODEL`` picks the model (default ``gpt-4.1-mini``).
"""

from __future__ import annotations

import asyncio
import os

import pytest

from agentcore import ModelRequest, ToolSpec
from agentcore.drivers.openai import OpenAIDriver
from agentcore.events import AssistantMessage, UserMessage
from agentcore.processors import (
    create_initial_message_assembler_state,
    message_assembler_processor,
)

BASE_URL = os.environ.get("AGENTCORE_OPENAI_BASE_URL")
pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not (os.environ.get("OPENAI_API_KEY") or BASE_URL),
        reason="set OPENAI_API_KEY or AGENTCORE_OPENAI_BASE_URL to run live OpenAI tests",
    ),
]
MODEL = os.environ.get("AGENTCORE_LIVE_OPENAI_MODEL", "gpt-4.1-mini")


def ask(request: ModelRequest) -> AssistantMessage:
    async def main() -> AssistantMessage:
        driver = OpenAIDriver(
            MODEL, base_url=BASE_URL, provider="openai" if not BASE_URL else "local"
        )
        state = create_initial_message_assembler_state(strict=True)
        found: list[AssistantMessage] = []
        async for event in driver.receive(request):
            state, outputs = message_assembler_processor(state, event)
            found += [o for o in outputs if isinstance(o, AssistantMessage)]
        assert len(found) == 1, "the stream did not end with one assistant message"
        return found[0]

    return asyncio.run(main())


def test_live_text_turn() -> None:
    message = ask(
        ModelRequest(
            messages=(UserMessage(message_id="u", content="Reply with the single word: pong"),),
            max_tokens=200,
        )
    )
    assert message.stop_reason == "end_turn"
    assert "pong" in message.text.lower()


def test_live_tool_turn() -> None:
    tool = ToolSpec(
        name="get_weather",
        description="Current weather for a city.",
        parameters={
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    )
    message = ask(
        ModelRequest(
            messages=(UserMessage(message_id="u", content="What is the weather in Paris?"),),
            tools=(tool,),
            max_tokens=300,
            options={"tool_choice": "required"},
        )
    )
    assert message.stop_reason == "tool_use"
    (call,) = message.tool_calls[:1]
    assert call.tool_name == "get_weather" and "paris" in str(call.input.get("city", "")).lower()
