"""The wire form: exact round trips and clear errors for bad input (issue 11, item 16).

The fuzzing of ``from_dict`` is in tests/core/test_fuzz.py; these are the reported cases.
"""

import json
import math
from typing import Any

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


TEXT_5 = {"type": "text", "text": 5}


def _nested(depth: int, leaf: Any = 0) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def _steer(depth: int) -> Any:
    wire: Any = {"type": "interrupt", "data": {}}
    for _ in range(depth):
        wire = {"type": "agent_steer", "data": {"message": wire}}
    return wire


def _usage(**counts: Any) -> dict[str, Any]:
    return {"type": "message_delta", "data": {"usage": counts}}


def _details(details: Any) -> dict[str, Any]:
    return {"type": "tool_result", "data": {"tool_call_id": "t", "result": "r", "details": details}}


@pytest.mark.parametrize(
    ("wire", "needle"),
    [
        # mixed-type keys: a TypeError from sorting them, before
        ({"type": "text_delta", "data": {"text": "a", 1: "x", "y": 2}}, "keys must be strings"),
        ({"type": "message_delta", "data": {"usage": {1: 2, "a": 3}}}, "keys must be strings"),
        (_details({1: "a", "b": 2}), "field 'details' must be JSON but has a key that is not"),
        # infinite usage: an OverflowError from int(inf), before
        (_usage(input_tokens=math.inf), "'input_tokens' must be an int >= 0, got float: inf"),
        (_usage(input_tokens=math.nan), "'input_tokens' must be an int >= 0, got float: nan"),
        # deep details: a RecursionError, before
        (_details(_nested(10_000)), "must be JSON but nests deeper than 64 levels at [0][0]"),
        (_steer(5_000), "agent_steer: events nested too deeply"),
        # accepted, before
        (
            {
                "type": "user_message",
                "data": {"message_id": "u", "content": [{"type": "text", "text": 5}]},
            },
            "block 0: TextContent (text): field 'text' must be a str, got int: 5",
        ),
        (_usage(output_tokens=-1), "'output_tokens' must be an int >= 0, got int: -1"),
        # converted, before: no silent coercion
        (_usage(input_tokens="12"), "'input_tokens' must be an int >= 0, got str: '12'"),
        (_usage(input_tokens=12.0), "'input_tokens' must be an int >= 0, got float: 12.0"),
        (_usage(input_tokens=True), "'input_tokens' must be an int >= 0, got bool: True"),
        (_usage(input_tokens=None), "'input_tokens' must be an int >= 0, got NoneType: None"),
        ({"type": "turn_response", "data": {"turn_id": "t", "duration_ms": "12"}}, "got str: '12'"),
        ({"type": "error_received", "data": {"message": "m", "code": "C", "retryable": 1}}, "bool"),
        (
            {"type": "text_delta", "timestamp": 1.0, "data": {"text": "a", "index": 0}},
            "field 'timestamp' must be an int, got float: 1.0",
        ),
        ({"type": ["text_delta"]}, "unknown event type list: ['text_delta']"),
    ],
)
def test_what_from_dict_used_to_crash_on_or_accept_is_an_invalid_event(
    wire: Any, needle: str
) -> None:
    with pytest.raises(InvalidEventError) as info:
        from_dict(wire)
    assert needle in str(info.value)


def test_usage_keys_left_out_still_mean_zero() -> None:
    event = from_dict(_usage(output_tokens=7))
    assert event.usage == Usage(output_tokens=7)
    assert from_dict({"type": "message_delta", "data": {"usage": None}}).usage == Usage()
