"""History normalisation: every provider must accept what the drivers send.

Tests the private module ``agentcore.drivers._common.history``: normalising a history for a
provider."""

from __future__ import annotations

import re

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from agentcore import Message
from agentcore.drivers._common.history import (
    ORPHAN_RESULT,
    close_orphaned_tool_calls,
    drop_empty_assistant_messages,
    group_tool_results,
    normalize_history,
    normalize_tool_call_ids,
    thinking_to_text,
)
from agentcore.events import (
    AssistantMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)


def user(text: str = "hi") -> UserMessage:
    return UserMessage(message_id="u", content=text)


def assistant(*parts: object, incomplete: bool = False, ts: int = 0) -> AssistantMessage:
    return AssistantMessage(
        message_id="a", model="m", parts=parts, incomplete=incomplete, timestamp=ts
    )


def call(cid: str, name: str = "t") -> ToolCallPart:
    return ToolCallPart(tool_call_id=cid, tool_name=name, input={"x": 1})


def result(cid: str, text: str = "ok") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=cid, tool_name="t", result=text)


def test_orphaned_call_before_next_user_gets_error_result() -> None:
    history = (user(), assistant(call("a"), call("b"), ts=7), result("b"), user("next"))
    out = close_orphaned_tool_calls(history)
    assert [type(m).__name__ for m in out] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "UserMessage",
    ]
    synthetic = out[3]
    assert isinstance(synthetic, ToolResultMessage)
    assert (synthetic.tool_call_id, synthetic.is_error, synthetic.result) == (
        "a",
        True,
        ORPHAN_RESULT,
    )
    assert synthetic.timestamp == 7


def test_orphaned_call_at_end_of_history_is_closed() -> None:
    out = close_orphaned_tool_calls((user(), assistant(call("a"))))
    assert out[-1] == ToolResultMessage(
        tool_call_id="a", tool_name="t", result=ORPHAN_RESULT, is_error=True
    )


def test_duplicate_and_stray_results_are_dropped() -> None:
    history = (result("x"), user(), assistant(call("a")), result("a"), result("a", "again"))
    history += (result("zzz"),)
    out = close_orphaned_tool_calls(history)
    assert out == (user(), assistant(call("a")), result("a"))


def test_empty_and_contentless_incomplete_assistant_messages_are_dropped() -> None:
    keep = assistant(TextPart("partial"), incomplete=True)
    history = (
        user(),
        assistant(),
        assistant(TextPart("  ")),
        assistant(ThinkingPart("half a thought"), incomplete=True),
        keep,
    )
    assert drop_empty_assistant_messages(history) == (user(), keep)


def test_blank_parts_are_removed_from_kept_messages() -> None:
    out = drop_empty_assistant_messages((assistant(TextPart(""), call("a")),))
    assert out == (assistant(call("a")),)


def test_signed_thinking_with_no_text_is_content() -> None:
    message = assistant(ThinkingPart("", signature="sig"), TextPart("x"))
    assert drop_empty_assistant_messages((message,)) == (message,)


def test_thinking_to_text_converts_rejected_parts_and_drops_redacted() -> None:
    signed = ThinkingPart("mine", signature="s")
    message = assistant(ThinkingPart("theirs"), ThinkingPart("", redacted_data="xx"), signed)
    out = thinking_to_text((message,), keep=lambda _m, p: p.signature is not None)
    assert out == (assistant(TextPart("theirs"), signed),)
    assert thinking_to_text((assistant(ThinkingPart("", redacted_data="x")),)) == ()


def test_normalize_tool_call_ids_rewrites_calls_and_results_consistently() -> None:
    long_id = "call|" + "x" * 80
    history = (assistant(call(long_id), call("ok_1")), result(long_id), result("ok_1"))
    out = normalize_tool_call_ids(history, max_len=40)
    message = out[0]
    assert isinstance(message, AssistantMessage)
    new_id = message.tool_calls[0].tool_call_id
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,40}", new_id)
    assert out[1] == result(new_id)
    assert message.tool_calls[1].tool_call_id == "ok_1"


def test_normalize_tool_call_ids_keeps_distinct_ids_distinct() -> None:
    history = (assistant(call("a.b"), call("a_b"), call("a:b"), call("")),)
    out = normalize_tool_call_ids(history)
    message = out[0]
    assert isinstance(message, AssistantMessage)
    ids = [c.tool_call_id for c in message.tool_calls]
    assert ids[1] == "a_b"
    assert len(set(ids)) == 4 and all(ids)


def test_normalize_tool_call_ids_returns_input_when_nothing_changes() -> None:
    history = (user(), assistant(call("fine")), result("fine"))
    assert normalize_tool_call_ids(history) is history


def test_normalize_tool_call_ids_rejects_tiny_max_len() -> None:
    with pytest.raises(ValueError, match="max_len"):
        normalize_tool_call_ids((), max_len=4)


def test_group_tool_results_gathers_runs() -> None:
    history = (user(), assistant(call("a"), call("b")), result("a"), result("b"), user())
    assert group_tool_results(history) == (
        user(),
        assistant(call("a"), call("b")),
        (result("a"), result("b")),
        user(),
    )
    assert group_tool_results((result("a"),)) == ((result("a"),),)


# -- properties ------------------------------------------------------------------------

IDS = st.sampled_from(["a", "b", "c", "d", "call|1", "x" * 70])
PARTS = st.one_of(
    st.builds(TextPart, st.sampled_from(["", " ", "hi"])),
    st.builds(ThinkingPart, st.sampled_from(["", "hmm"])),
    st.builds(call, IDS),
)
MESSAGES: st.SearchStrategy[Message] = st.one_of(
    st.just(user()),
    st.builds(
        lambda parts, inc: assistant(*parts, incomplete=inc),
        st.lists(PARTS, max_size=4),
        st.booleans(),
    ),
    st.builds(result, IDS),
)
HISTORIES = st.lists(MESSAGES, max_size=12).map(tuple)


def _spans_answer_every_call_once(messages: tuple[Message, ...]) -> bool:
    owner: AssistantMessage | None = None
    answered: list[str] = []
    for message in (*messages, user()):
        if isinstance(message, ToolResultMessage):
            answered.append(message.tool_call_id)
            continue
        expected = [c.tool_call_id for c in owner.tool_calls] if owner else []
        if sorted(answered) != sorted(dict.fromkeys(expected)):
            return False
        owner = message if isinstance(message, AssistantMessage) else None
        answered = []
    return True


@settings(max_examples=200)
@given(HISTORIES)
def test_normalized_history_answers_every_call_exactly_once(history: tuple[Message, ...]) -> None:
    out = normalize_history(history)
    assert _spans_answer_every_call_once(out)
    assert all(m.parts for m in out if isinstance(m, AssistantMessage))
    assert normalize_history(out) == out


@settings(max_examples=200)
@given(HISTORIES, st.integers(min_value=12, max_value=64))
def test_normalized_ids_fit_and_map_injectively(history: tuple[Message, ...], max_len: int) -> None:
    out = normalize_tool_call_ids(history, max_len=max_len)

    def ids(ms: tuple[Message, ...]) -> list[str]:
        found: list[str] = []
        for m in ms:
            if isinstance(m, AssistantMessage):
                found.extend(c.tool_call_id for c in m.tool_calls)
            elif isinstance(m, ToolResultMessage):
                found.append(m.tool_call_id)
        return found

    before, after = ids(history), ids(out)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", i) and len(i) <= max_len for i in after)
    pairs = dict(zip(before, after, strict=True))
    assert len(set(pairs.values())) == len(pairs)
    assert all(pairs[b] == a for b, a in zip(before, after, strict=True))
