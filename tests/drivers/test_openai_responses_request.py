"""The Responses API request body built from a ``ModelRequest`` (pure; no network).

Tests the private module ``agentcore.drivers._common.history``: the result an orphaned tool
call is given."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from agentcore import ModelRequest, ToolSpec
from agentcore.drivers._common.history import ORPHAN_RESULT
from agentcore.drivers.openai_responses import REASONING_PREFIX, build_body, model_family
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

PNG = ImageContent(media_type="image/png", data="iVBORw0KGgo=")
PNG_URL = "data:image/png;base64,iVBORw0KGgo="
REASONING = ThinkingPart("sum", signature=REASONING_PREFIX + "rs_1", redacted_data="gAAA")


def body(request: ModelRequest, **kwargs: Any) -> dict[str, Any]:
    options: dict[str, Any] = {"model": "gpt-5", "thinking_level": "off", "max_tokens": None}
    return build_body(request, **{**options, **kwargs})


def items(*messages: Any, model: str = "gpt-5") -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = body(ModelRequest(messages=messages), model=model)["input"]
    return result


def user(content: Any = "hi") -> UserMessage:
    return UserMessage(message_id="u", content=content)


def assistant(*parts: Any, model: str = "gpt-5-2025-08-07") -> AssistantMessage:
    return AssistantMessage(message_id="a", model=model, parts=parts)


def call(cid: str, raw: str = '{"city": "Paris"}') -> ToolCallPart:
    return ToolCallPart(cid, "get_weather", input={"city": "Paris"}, raw_input=raw)


def result(cid: str, content: Any = "sunny") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=cid, tool_name="get_weather", result=content)


def test_minimal_body_is_stateless_and_streamed() -> None:
    assert body(ModelRequest(messages=(user(),))) == {
        "model": "gpt-5",
        "input": [{"role": "user", "content": "hi"}],
        "stream": True,
        "store": False,
    }


def test_a_tool_turn_becomes_message_function_call_and_output_items() -> None:
    assert items(
        user(),
        assistant(REASONING, TextPart("Let me "), TextPart("check."), call("c1"), call("c2")),
        result("c1"),
        result("c2", "rain"),
    ) == [
        {"role": "user", "content": "hi"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "sum"}],
            "encrypted_content": "gAAA",
        },
        {"type": "message", "role": "assistant", "content": "Let me check."},
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {
            "type": "function_call",
            "call_id": "c2",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"type": "function_call_output", "call_id": "c2", "output": "rain"},
    ]


def test_images_go_as_input_image_parts_in_user_messages_and_tool_outputs() -> None:
    sent = items(
        user((TextContent("look"), PNG)),
        assistant(call("c1")),
        result("c1", (TextContent("chart:"), PNG)),
    )
    image = {"type": "input_image", "image_url": PNG_URL, "detail": "auto"}
    assert sent[0]["content"] == [{"type": "input_text", "text": "look"}, image]
    assert sent[2]["output"] == [{"type": "input_text", "text": "chart:"}, image]


def test_text_only_tool_output_parts_are_one_string() -> None:
    sent = items(user(), assistant(call("c1")), result("c1", (TextContent("a"), TextContent("b"))))
    assert sent[2]["output"] == "a\nb"


def test_orphaned_calls_are_closed_and_empty_messages_dropped() -> None:
    sent = items(user(), assistant(TextPart("  ")), assistant(call("c1")), user("next"))
    assert [i.get("type", i.get("role")) for i in sent] == [
        "user",
        "function_call",
        "function_call_output",
        "user",
    ]
    assert sent[2]["output"] == ORPHAN_RESULT


def test_malformed_arguments_go_back_as_an_empty_object() -> None:
    broken = ToolCallPart("c1", "t", raw_input='{"a": ', input_error="not JSON")
    assert items(user(), assistant(broken))[1]["arguments"] == "{}"


def test_long_tool_call_ids_are_shortened_the_same_way_in_calls_and_outputs() -> None:
    long_id = "toolu_" + "x" * 80
    sent = items(user(), assistant(call(long_id)), result(long_id))
    assert sent[1]["call_id"] == sent[2]["call_id"] and len(sent[1]["call_id"]) <= 64


@pytest.mark.parametrize(
    ("part", "model", "expected"),
    [
        (REASONING, "gpt-5-2025-08-07", "reasoning"),  # same family: replayed
        (REASONING, "gpt-4.1", "text"),  # another model: its summary as text
        (ThinkingPart("hmm", signature="anthropic-sig"), "gpt-5", "text"),  # another provider
        (ThinkingPart("plain"), "gpt-5", "text"),  # no encrypted content
        (ThinkingPart("", redacted_data="opaque"), "gpt-5", None),  # nothing to say: dropped
    ],
)
def test_reasoning_is_replayed_only_to_its_own_model_family(
    part: ThinkingPart, model: str, expected: str | None
) -> None:
    sent = items(user(), assistant(part, TextPart("ok"), model=model))[1:]
    kinds = [i["type"] for i in sent]
    if expected == "reasoning":
        assert kinds == ["reasoning", "message"]
    elif expected == "text":
        assert sent == [
            {"type": "message", "role": "assistant", "content": part.text + "ok"},
        ]
    else:
        assert sent == [{"type": "message", "role": "assistant", "content": "ok"}]


def test_model_family_drops_only_a_snapshot_date() -> None:
    assert model_family("gpt-5-2025-08-07") == "gpt-5"
    assert model_family("gpt-5-mini") == "gpt-5-mini"


@pytest.mark.parametrize(
    ("level", "xhigh", "reasoning"),
    [
        ("off", True, None),
        ("minimal", True, "minimal"),
        ("medium", True, "medium"),
        ("xhigh", True, "xhigh"),
        ("xhigh", False, "high"),
    ],
)
def test_thinking_levels_map_to_reasoning_effort(
    level: Any, xhigh: bool, reasoning: str | None
) -> None:
    sent = body(ModelRequest(messages=(user(),)), thinking_level=level, supports_xhigh=xhigh)
    if reasoning is None:
        assert "reasoning" not in sent and "include" not in sent
    else:
        assert sent["reasoning"] == {"effort": reasoning, "summary": "auto"}
        assert sent["include"] == ["reasoning.encrypted_content"]


def test_request_fields_override_driver_defaults_and_options_come_last() -> None:
    tool = ToolSpec(name="f", description="d", parameters={"type": "object"})
    request = ModelRequest(
        messages=(user(),),
        system_prompt="be brief",
        tools=(tool,),
        model="gpt-5-mini",
        thinking_level="low",
        max_tokens=50,
        temperature=0.2,
        options={"tool_choice": "required", "store": True},
    )
    sent = body(request, max_tokens=1000, thinking_level="high")
    assert sent["model"] == "gpt-5-mini"
    assert sent["instructions"] == "be brief"
    assert sent["tools"] == [
        {"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}}
    ]
    assert (sent["max_output_tokens"], sent["temperature"]) == (50, 0.2)
    assert sent["reasoning"]["effort"] == "low"
    assert (sent["tool_choice"], sent["store"]) == ("required", True)


def test_unknown_thinking_level_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown thinking level"):
        body(ModelRequest(messages=(user(),)), thinking_level="huge")


_ids = st.sampled_from(["c1", "c2", "c3"])
_messages = st.one_of(
    st.builds(user, st.sampled_from(["a", "b"])),
    st.builds(
        lambda ids: assistant(*[call(i) for i in ids]), st.lists(_ids, max_size=3, unique=True)
    ),
    st.builds(result, _ids),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_messages, max_size=8))
def test_every_function_call_is_answered_exactly_once_before_the_next_turn(
    history: list[Any],
) -> None:
    sent = items(*history)
    open_calls: list[str] = []
    for item in sent:
        if item.get("type") == "function_call":
            open_calls.append(item["call_id"])
        elif item.get("type") == "function_call_output":
            assert item["call_id"] in open_calls  # never an output without its call
            open_calls.remove(item["call_id"])
        else:
            assert open_calls == []  # a message never interrupts calls awaiting outputs
    assert open_calls == []
