"""The wire form: exact round trips and clear errors for bad input."""

import json

import pytest

from agentcore.errors import InvalidEventError
from agentcore.events import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolResult,
    Usage,
    UserMessage,
    from_dict,
    to_dict,
)


def test_nested_values_round_trip_through_json() -> None:
    event = AssistantMessage(
        message_id="m1",
        model="claude",
        parts=[
            {"type": "thinking", "text": "hmm", "signature": "sig"},
            {"type": "text", "text": "hi"},
            {
                "type": "tool_call",
                "tool_call_id": "t1",
                "tool_name": "search",
                "input": {"schema": {"type": "object"}},
            },
        ],
        usage={"input_tokens": 3, "cache_read_tokens": 2},
        stop_reason="tool_use",
        timestamp=17,
    )
    wire = json.loads(json.dumps(to_dict(event)))
    assert from_dict(wire) == event
    assert wire["data"]["usage"]["output_tokens"] == 0
    assert event.usage == Usage(input_tokens=3, cache_read_tokens=2)


def test_content_accepts_blocks_and_strings() -> None:
    blocks = UserMessage(
        message_id="u",
        content=[{"type": "text", "text": "look"}, ImageContent("image/png", "AAAA")],
    )
    assert blocks.content == (TextContent("look"), ImageContent("image/png", "AAAA"))
    assert ToolResult(tool_call_id="t", result="ok").result == "ok"


@pytest.mark.parametrize(
    ("wire", "needle"),
    [
        ({"type": "no_such_event"}, "unknown event type 'no_such_event'"),
        ({"type": "text_delta", "data": {"text": "a"}}, "missing field(s) index"),
        ({"type": "text_delta", "data": {"text": 1, "index": 0}}, "field 'text' must be a str"),
        (
            {"type": "text_delta", "data": {"text": "a", "index": True}},
            "field 'index' must be an int >= 0, got bool",
        ),
        ({"type": "text_delta", "data": {"text": "a", "index": 0, "x": 1}}, "unknown field(s) x"),
        (
            {"type": "text_delta", "timestamp": "now", "data": {"text": "a", "index": 0}},
            "field 'timestamp' must be an int, got str",
        ),
        ({"type": "message_delta", "data": {"usage": {"tokens": 1}}}, "unknown field(s) tokens"),
        (
            {"type": "user_message", "data": {"message_id": "u", "content": [{"type": "video"}]}},
            "unknown type 'video'",
        ),
        ("not a mapping", "must be a mapping"),
    ],
)
def test_bad_wire_input_names_the_problem(wire: object, needle: str) -> None:
    with pytest.raises(InvalidEventError) as info:
        from_dict(wire)  # type: ignore[arg-type]
    assert needle in str(info.value)
    assert isinstance(info.value, ValueError)
