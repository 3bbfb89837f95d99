"""Live Responses API tests: a text turn, a tool turn, and reasoning sent back next turn.

Skipped unless ``OPENAI_API_KEY`` is set, and only run with ``-m live``.
``AGENTCORE_LIVE_OPENAI_RESPONSES_MODEL`` picks the model (default ``gpt-5-mini``).
"""

from __future__ import annotations

import asyncio
import os

import pytest

from agentcore import ModelRequest, ThinkingLevel, ToolSpec
from agentcore.drivers.openai_responses import OpenAIResponsesDriver
from agentcore.events import AssistantMessage, ThinkingPart, ToolResultMessage, UserMessage
from agentcore.processors import (
    create_initial_message_assembler_state,
    message_assembler_processor,
)

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not os.environ.get("OPENAI_API_KEY"),
        reason="set OPENAI_API_KEY to run live OpenAI Responses tests",
    ),
]
MODEL = os.environ.get("AGENTCORE_LIVE_OPENAI_RESPONSES_MODEL", "gpt-5-mini")
WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def ask(request: ModelRequest, thinking_level: ThinkingLevel = "low") -> AssistantMessage:
    async def main() -> AssistantMessage:
        driver = OpenAIResponsesDriver(MODEL, thinking_level=thinking_level)
        state = create_initial_message_assembler_state(strict=True)
        found: list[AssistantMessage] = []
        try:
            async for event in driver.receive(request):
                state, outputs = message_assembler_processor(state, event)
                found += [o for o in outputs if isinstance(o, AssistantMessage)]
        finally:
            await driver.aclose()
        assert len(found) == 1, "the stream did not end with one assistant message"
        return found[0]

    return asyncio.run(main())


def test_live_text_turn() -> None:
    request = ModelRequest(
        messages=(UserMessage(message_id="u", content="Reply with the single word: pong"),),
        max_tokens=400,
    )
    message = ask(request)
    assert message.stop_reason == "end_turn" and "pong" in message.text.lower()


def test_live_tool_turn_and_reasoning_sent_back() -> None:
    question = UserMessage(message_id="u", content="What is the weather in Paris?")
    first = ModelRequest(
        messages=(question,), tools=(WEATHER,), options={"tool_choice": "required"}
    )
    message = ask(first, thinking_level="medium")
    assert message.stop_reason == "tool_use"
    call = message.tool_calls[0]
    assert call.tool_name == "get_weather" and "paris" in str(call.input.get("city", "")).lower()
    assert any(isinstance(p, ThinkingPart) and p.redacted_data for p in message.parts)
    result = ToolResultMessage(call.tool_call_id, call.tool_name, result="sunny, 21 C")
    second = ModelRequest(messages=(question, message, result), tools=(WEATHER,))
    answer = ask(second, thinking_level="medium")  # the encrypted reasoning goes back
    assert answer.stop_reason == "end_turn" and "21" in answer.text
