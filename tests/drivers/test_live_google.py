"""Live Gemini calls: a text turn, and a tool turn sent back with its thought signatures.
Skipped unless GEMINI_API_KEY (or GOOGLE_API_KEY) is set.

Run with ``GEMINI_API_KEY=... .venv/bin/pytest -m live tests/drivers/test_live_google.py``;
``AGENTCORE_LIVE_GOOGLE_MODEL`` picks the model (default ``gemini-2.5-flash``).
"""

import asyncio
import os

import pytest

from agentcore import ModelRequest, ToolSpec
from agentcore.events import (
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ToolResultMessage,
    UserMessage,
)

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not (os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")),
        reason="GEMINI_API_KEY unset",
    ),
]

MODEL = os.environ.get("AGENTCORE_LIVE_GOOGLE_MODEL", "gemini-2.5-flash")


def receive(*requests: ModelRequest) -> list[list[StreamEvent]]:
    from agentcore.drivers.google import GoogleDriver

    async def main() -> list[list[StreamEvent]]:
        async with GoogleDriver(MODEL, max_tokens=300, thinking_level="low") as driver:
            return [[e async for e in driver.receive(r)] for r in requests]

    return asyncio.run(main())


def test_live_text_turn() -> None:
    (events,) = receive(ModelRequest(messages=(UserMessage("u", "Reply with the word: pong"),)))
    assert isinstance(events[0], MessageStart) and isinstance(events[-1], MessageStop)
    assert "pong" in "".join(e.text for e in events if isinstance(e, TextDelta)).lower()
    usage = next(e for e in events if isinstance(e, MessageDelta)).usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0


def test_live_tool_turn_and_the_answer_after_it() -> None:
    from agentcore.drivers.testing import assemble

    tool = ToolSpec(
        "get_weather",
        "Current weather for a city",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    )
    ask = ModelRequest(
        messages=(UserMessage("u", "What is the weather in Paris? Use the tool."),),
        tools=(tool,),
    )
    (events,) = receive(ask)
    message = assemble(events)
    (call,) = message.tool_calls
    assert call.tool_name == "get_weather" and "paris" in str(call.input["city"]).lower()
    result = ToolResultMessage(call.tool_call_id, call.tool_name, "Sunny, 21 C")
    (answer,) = receive(ModelRequest(messages=(*ask.messages, message, result), tools=(tool,)))
    assert isinstance(answer[-1], MessageStop)  # the signatures were accepted
    assert "21" in "".join(e.text for e in answer if isinstance(e, TextDelta))
