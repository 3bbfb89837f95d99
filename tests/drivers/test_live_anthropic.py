"""Live Anthropic calls: one text turn and one tool turn. Skipped unless ANTHROPIC_API_KEY is set.

Run with ``ANTHROPIC_API_KEY=... .venv/bin/pytest -m live tests/drivers/test_live_anthropic.py``;
``AGENTCORE_LIVE_ANTHROPIC_MODEL`` picks the model (default ``claude-haiku-4-5``).
"""

import asyncio
import json
import os

import pytest

from agentcore import ModelRequest, ToolSpec
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ToolUseStart,
    UserMessage,
)

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY unset"),
]

MODEL = os.environ.get("AGENTCORE_LIVE_ANTHROPIC_MODEL", "claude-haiku-4-5")


def receive(request: ModelRequest) -> list[StreamEvent]:
    from agentcore.drivers.anthropic import AnthropicDriver

    async def main() -> list[StreamEvent]:
        driver = AnthropicDriver(MODEL, max_tokens=200)
        return [e async for e in driver.receive(request)]

    return asyncio.run(main())


def test_live_text_turn() -> None:
    events = receive(ModelRequest(messages=(UserMessage("u", "Reply with the word: pong"),)))
    assert isinstance(events[0], MessageStart) and isinstance(events[-1], MessageStop)
    assert "pong" in "".join(e.text for e in events if isinstance(e, TextDelta)).lower()
    usage = next(e for e in events if isinstance(e, MessageDelta)).usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0


def test_live_tool_turn() -> None:
    tool = ToolSpec(
        "get_weather",
        "Current weather for a city",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    )
    request = ModelRequest(
        messages=(UserMessage("u", "What is the weather in Paris? Use the tool."),),
        tools=(tool,),
        options={"tool_choice": {"type": "tool", "name": "get_weather"}},
    )
    events = receive(request)
    start = next(e for e in events if isinstance(e, ToolUseStart))
    args = "".join(
        e.partial_json for e in events if isinstance(e, InputJsonDelta) and e.index == start.index
    )
    assert start.tool_name == "get_weather" and "paris" in json.loads(args)["city"].lower()
    assert events[-1] == MessageStop("tool_use", timestamp=events[-1].timestamp)
