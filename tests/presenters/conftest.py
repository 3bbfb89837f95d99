"""A realistic hand-built conversation shared by the presenter tests.

One turn: the user asks, the model thinks, writes text, calls two tools (one fails), and
the turn closes with usage and cost. Outputs of every layer are interleaved the way the
engine delivers them (each stream event followed by the outputs it caused).
"""

from collections.abc import Callable
from typing import Any

import attrs
import pytest

from agentcore.events import (
    AssistantMessage,
    ConversationEnd,
    ConversationResponding,
    ConversationStart,
    ConversationThinking,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingPart,
    ToolCallMessage,
    ToolCallPart,
    ToolCompleted,
    ToolExecuting,
    ToolFailed,
    ToolPlanned,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    TurnRequest,
    TurnResponse,
    Usage,
    UserMessage,
)

USAGE = Usage(input_tokens=1200, output_tokens=345, cache_read_tokens=800, cache_write_tokens=50)
WEATHER = ToolCallPart("call_1", "get_weather", {"city": "Paris"}, '{"city": "Paris"}')
CLOCK = ToolCallPart("call_2", "get_time", {"tz": "Mars/Olympus"}, '{"tz": "Mars/Olympus"}')


def conversation_events(cost: float | None = 0.0123) -> list[Any]:
    """One full turn, every layer, in delivery order (timestamps increase by 1 ms)."""
    events: list[Any] = [
        UserMessage("u1", "What's the weather in Paris?"),
        ConversationStart("u1"),
        TurnRequest("t1", "u1"),
        MessageStart("m1", "claude-test"),
        ConversationThinking(),
        ThinkingDelta("The user wants ", 0),
        ThinkingDelta("the weather.", 0),
        ThinkingDelta("", 0, signature="sig"),
        TextDelta("Let me ", 1),
        ConversationResponding(),
        TextDelta("check that", 1),
        TextDelta(" for you.", 1),
        ToolUseStart("call_1", "get_weather", 2),
        ToolPlanned("call_1", "get_weather"),
        InputJsonDelta('{"city": ', 2),
        InputJsonDelta('"Paris"}', 2),
        ToolUseStop("call_1", 2),
        ToolCallMessage("m1", WEATHER),
        ToolUseStart("call_2", "get_time", 3),
        ToolPlanned("call_2", "get_time"),
        InputJsonDelta(CLOCK.raw_input, 3),
        ToolUseStop("call_2", 3),
        ToolCallMessage("m1", CLOCK),
        MessageDelta("tool_use", USAGE),
        MessageStop("tool_use"),
        AssistantMessage(
            "m1",
            "claude-test",
            (
                ThinkingPart("The user wants the weather.", "sig"),
                TextPart("Let me check that for you."),
                WEATHER,
                CLOCK,
            ),
            USAGE,
            "tool_use",
        ),
        ToolExecuting("call_1", "get_weather"),
        ToolExecuting("call_2", "get_time"),
        ToolResult("call_1", "Sunny, 21 C"),
        ToolResultMessage("call_1", "get_weather", "Sunny, 21 C"),
        ToolCompleted("call_1", "get_weather"),
        ToolResult("call_2", "unknown time zone Mars/Olympus", is_error=True),
        ToolResultMessage("call_2", "get_time", "unknown time zone Mars/Olympus", is_error=True),
        ToolFailed("call_2", "get_time", "unknown time zone Mars/Olympus"),
        MessageStart("m2", "claude-test"),
        TextDelta("It is sunny.", 0),
        MessageStop("end_turn"),
        AssistantMessage("m2", "claude-test", (TextPart("It is sunny."),), stop_reason="end_turn"),
        ConversationEnd("completed"),
        TurnResponse("t1", 2350, USAGE, cost, "claude-test", "end_turn"),
    ]
    return [attrs.evolve(e, timestamp=1000 + i) for i, e in enumerate(events)]


@pytest.fixture
def conversation() -> list[Any]:
    return conversation_events()


@pytest.fixture
def make_conversation() -> Callable[..., list[Any]]:
    """``make_conversation(cost=None)`` builds the turn with another cost."""
    return conversation_events
