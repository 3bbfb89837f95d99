"""The message assembler, event by event: ordering, tool input, flushing, bad input."""

from typing import Any

import pytest

from agentcore.errors import ErrorCode, ProtocolError
from agentcore.events import (
    AssistantMessage,
    ConversationEnd,
    ErrorMessage,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingPart,
    ToolCallMessage,
    ToolCallPart,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    TurnRequest,
    Usage,
    UserMessage,
)
from agentcore.processors import (
    create_initial_message_assembler_state,
    message_assembler_processor,
)
from agentcore.testing import unchecked


def run(events: list[Any], state: Any = None) -> tuple[Any, list[Any]]:
    state = create_initial_message_assembler_state() if state is None else state
    outputs: list[Any] = []
    for event in events:
        state, out = message_assembler_processor(state, event)
        assert type(out) is tuple
        outputs.extend(out)
    return state, outputs


def tool(call_id: str, name: str, index: int, *chunks: str, stop: bool = True) -> list[Any]:
    events: list[Any] = [ToolUseStart(call_id, name, index)]
    events += [InputJsonDelta(c, index) for c in chunks]
    if stop:
        events.append(ToolUseStop(call_id, index))
    return events


START = MessageStart("m1", "claude-sonnet-4-5", timestamp=1)


def test_interleaved_blocks_and_concurrent_tool_calls_assemble_in_index_order() -> None:
    events = [
        START,
        ThinkingDelta("let me ", 0),
        ThinkingDelta("think", 0),
        ThinkingDelta("", 0, signature="sig-1"),
        TextDelta("Hel", 1),
        ToolUseStart("a", "search", 2),
        ToolUseStart("b", "calc", 3),
        InputJsonDelta('{"q": ', 2),
        InputJsonDelta('{"x": 2}', 3),
        TextDelta("lo", 1),
        InputJsonDelta('"cats"}', 2),
        ToolUseStop("b", 3, timestamp=5),
        ToolUseStop("a", 2, timestamp=6),
        TextDelta("done", 4),
        MessageDelta(stop_reason="tool_use", usage={"input_tokens": 3, "output_tokens": 1}),
        MessageDelta(usage={"input_tokens": 10, "output_tokens": 7}),
        MessageStop(timestamp=9),
    ]
    _, out = run(events)
    a = ToolCallPart("a", "search", {"q": "cats"}, '{"q": "cats"}')
    b = ToolCallPart("b", "calc", {"x": 2}, '{"x": 2}')
    assert out == [
        ToolCallMessage("m1", b, timestamp=5),
        ToolCallMessage("m1", a, timestamp=6),
        AssistantMessage(
            message_id="m1",
            model="claude-sonnet-4-5",
            parts=(
                ThinkingPart("let me think", "sig-1"),
                TextPart("Hello"),
                a,
                b,
                TextPart("done"),
            ),
            usage=Usage(input_tokens=10, output_tokens=7),
            stop_reason="tool_use",
            timestamp=9,
        ),
    ]


def test_message_stop_stop_reason_wins_and_redacted_thinking_is_kept() -> None:
    _, out = run(
        [
            START,
            ThinkingDelta("", 0, redacted_data="ENCRYPTED"),
            TextDelta("hi", 1),
            MessageDelta(stop_reason="max_tokens"),
            MessageStop(stop_reason="end_turn"),
        ]
    )
    (message,) = out
    assert message.parts == (ThinkingPart("", redacted_data="ENCRYPTED"), TextPart("hi"))
    assert message.stop_reason == "end_turn"
    assert message.text == "hi"
    assert not message.incomplete


@pytest.mark.parametrize(
    ("chunks", "expected_input", "error"),
    [
        ((), {}, None),
        (("  ",), {}, None),
        (('{"a": [1, ', '{"b": null}]}'), {"a": [1, {"b": None}]}, None),
        (('{"a": 1',), {}, "tool input is not valid JSON: Expecting ',' delimiter"),
        (('{"a": 1}x',), {}, "tool input is not valid JSON: Extra data"),
        (("[1, 2]",), {}, "tool input must be a JSON object, got an array"),
        (('"s"',), {}, "tool input must be a JSON object, got a string"),
        (("3",), {}, "tool input must be a JSON object, got a number"),
        (("null",), {}, "tool input must be a JSON object, got null"),
        (("true",), {}, "tool input must be a JSON object, got a boolean"),
        (('{"a": NaN}',), {}, "tool input is not valid JSON: NaN is not allowed"),
    ],
)
def test_tool_input_is_parsed_or_reported_never_silently_empty(
    chunks: tuple[str, ...], expected_input: dict[str, Any], error: str | None
) -> None:
    _, out = run([START, *tool("t", "f", 0, *chunks)])
    (call,) = out
    part = call.tool_call
    assert part.input == expected_input
    assert part.raw_input == "".join(chunks)
    if error is None:
        assert part.input_error is None
    else:
        assert part.input_error is not None and part.input_error.startswith(error)


def test_tool_call_without_stop_is_finished_at_message_stop() -> None:
    _, out = run([START, *tool("t", "f", 0, '{"a": 1}', stop=False), MessageStop(timestamp=4)])
    part = ToolCallPart("t", "f", {"a": 1}, '{"a": 1}')
    assert out[0] == ToolCallMessage("m1", part, timestamp=4)
    assert out[1].parts == (part,)
    # it is pending like any other call: its result is accepted
    state, _ = run([START, *tool("t", "f", 0, stop=False), MessageStop()])
    _, more = run([ToolResult("t", "ok")], state)
    assert more == [ToolResultMessage("t", "f", "ok")]


def test_tool_results_name_the_pending_call_across_messages() -> None:
    state, _ = run([START, *tool("a", "search", 0, "{}"), *tool("b", "calc", 1), MessageStop()])
    state, _ = run([MessageStart("m2", "x"), TextDelta("still waiting", 0)], state)
    state, out = run(
        [
            ToolResult("b", "4", timestamp=7),
            ToolResult("a", ({"type": "text", "text": "no"},), is_error=True, details={"k": 1}),
        ],
        state,
    )
    assert out == [
        ToolResultMessage("b", "calc", "4", timestamp=7),
        ToolResultMessage("a", "search", ({"type": "text", "text": "no"},), True, {"k": 1}),
    ]
    _, again = run([ToolResult("a", "twice")], state)
    assert again[0].code == ErrorCode.PROTOCOL_ERROR
    assert "no pending tool call has id 'a'" in again[0].message


def test_result_may_arrive_before_message_stop_once_the_call_is_complete() -> None:
    _, out = run([START, *tool("a", "f", 0, "{}"), ToolResult("a", "ok"), MessageStop()])
    assert isinstance(out[1], ToolResultMessage) and out[1].tool_name == "f"
    assert isinstance(out[2], AssistantMessage)


def test_error_mid_message_flushes_what_was_streamed_then_reports() -> None:
    events = [
        START,
        TextDelta("partial ans", 0),
        *tool("done", "f", 1, '{"a": 1}'),
        *tool("cut", "g", 2, '{"q": "ha', stop=False),
        MessageDelta(usage={"output_tokens": 5}),
        ErrorReceived("overloaded", "OVERLOADED", retryable=True, timestamp=8),
    ]
    state, out = run(events)
    flushed, error = out[-2], out[-1]
    assert flushed == AssistantMessage(
        message_id="m1",
        model="claude-sonnet-4-5",
        parts=(
            TextPart("partial ans"),
            ToolCallPart("done", "f", {"a": 1}, '{"a": 1}'),
            ToolCallPart(
                "cut",
                "g",
                {},
                '{"q": "ha',
                "tool input was cut off (error) before the call was complete",
            ),
        ),
        usage=Usage(output_tokens=5),
        stop_reason="error",
        incomplete=True,
        timestamp=8,
    )
    assert error == ErrorMessage("overloaded", "OVERLOADED", retryable=True, timestamp=8)
    # the message is closed; both calls await results so history can be completed
    assert state[0] is None
    _, results = run([ToolResult("cut", "skipped", is_error=True), ToolResult("done", "ok")], state)
    assert [r.tool_name for r in results] == ["g", "f"]


def test_error_with_no_open_message_is_just_reported() -> None:
    state = create_initial_message_assembler_state()
    new, out = message_assembler_processor(state, ErrorReceived("boom", "PROVIDER_ERROR"))
    assert new is state
    assert out == (ErrorMessage("boom", "PROVIDER_ERROR"),)


def test_interrupt_flushes_an_open_message_and_is_silent_otherwise() -> None:
    state, out = run([START, TextDelta("hal", 0), Interrupt(timestamp=3)])
    assert out == [
        AssistantMessage(
            message_id="m1",
            model="claude-sonnet-4-5",
            parts=(TextPart("hal"),),
            stop_reason="interrupted",
            incomplete=True,
            timestamp=3,
        )
    ]
    new, nothing = message_assembler_processor(state, Interrupt())
    assert new is state and nothing == ()
    # a new message can start afterwards
    _, out = run([MessageStart("m2", "x"), MessageStop()], state)
    assert out[0].message_id == "m2"


def test_deltas_emit_nothing_and_leave_the_old_state_intact() -> None:
    state, _ = run([START, TextDelta("a", 0)])
    before = repr(state)
    new, out = message_assembler_processor(state, TextDelta("b", 0))
    assert out == ()
    assert repr(state) == before
    assert new != state


OPEN_WITH_BLOCKS = [
    START,
    TextDelta("t", 0),
    *tool("a", "f", 1, "{}"),
    *tool("b", "f", 2, stop=False),
]


@pytest.mark.parametrize(
    ("prefix", "bad", "needle"),
    [
        ([], TextDelta("x", 0), "text_delta: no message is open"),
        ([], ThinkingDelta("x", 0), "thinking_delta: no message is open"),
        ([], ToolUseStart("t", "f", 0), "tool_use_start: no message is open"),
        ([], InputJsonDelta("{", 0), "input_json_delta: no message is open"),
        ([], ToolUseStop("t", 0), "tool_use_stop: no message is open"),
        ([], MessageDelta(), "message_delta: no message is open"),
        ([], MessageStop(), "message_stop: no message is open"),
        ([], ToolResult("nope", "x"), "no pending tool call has id 'nope'"),
        ([START], MessageStart("m2", "x"), "message 'm1' is still open"),
        (OPEN_WITH_BLOCKS, TextDelta("x", 1), "block 1 is a finished tool call block, not a text"),
        (OPEN_WITH_BLOCKS, TextDelta("x", 2), "block 2 is a tool call block, not a text block"),
        (OPEN_WITH_BLOCKS, ThinkingDelta("x", 0), "block 0 is a text block, not a thinking"),
        (OPEN_WITH_BLOCKS, InputJsonDelta("{", 0), "block 0 is a text block, not a tool call"),
        (OPEN_WITH_BLOCKS, InputJsonDelta("{", 1), "tool call 'a' is already complete"),
        (OPEN_WITH_BLOCKS, InputJsonDelta("{", 7), "no tool call was started at block 7"),
        (OPEN_WITH_BLOCKS, ToolUseStart("c", "f", 0), "block 0 is already a text block"),
        (OPEN_WITH_BLOCKS, ToolUseStart("a", "f", 5), "tool call id 'a' is already in use"),
        (OPEN_WITH_BLOCKS, ToolUseStart("b", "f", 5), "tool call id 'b' is already in use"),
        (OPEN_WITH_BLOCKS, ToolUseStop("a", 1), "tool call 'a' is already complete"),
        (OPEN_WITH_BLOCKS, ToolUseStop("zz", 2), "block 2 holds tool call 'b', not this one"),
        (OPEN_WITH_BLOCKS, ToolUseStop("b", 0), "no tool call was started at block 0"),
        (OPEN_WITH_BLOCKS, ToolUseStop("b", 9), "no tool call was started at block 9"),
        (OPEN_WITH_BLOCKS, ToolResult("b", "x"), "no pending tool call has id 'b'"),
        ([START], unchecked(TextDelta, "x", -1), "block index -1 is out of range"),
        ([START], TextDelta("x", 5000), "block index 5000 is out of range (0 to 1024)"),
        ([START], unchecked(TextDelta, "x", "0"), "block index must be an integer, got str"),
        ([START], unchecked(TextDelta, 5, 0), "text must be a string"),
        (
            [START],
            unchecked(ThinkingDelta, "x", 0, signature=3),
            "signature and redacted_data strings",
        ),
        ([START], unchecked(InputJsonDelta, None, 0), "partial_json must be a string"),
        (
            [START],
            unchecked(ToolUseStart, 1, "f", 0),
            "tool_call_id and tool_name must be strings",
        ),
        ([], unchecked(MessageStart, None, "x"), "message_id and model must be strings"),
        ([START], unchecked(MessageStop, 1), "stop_reason must be a string or None"),
        ([], object(), "object of type object: not an agentcore event"),
        ([START], None, "object of type NoneType: not an agentcore event"),
        ([START], {"type": "text_delta"}, "object of type dict: not an agentcore event"),
    ],
)
def test_bad_input_is_reported_and_ignored(prefix: list[Any], bad: Any, needle: str) -> None:
    state, _ = run(prefix)
    new, out = message_assembler_processor(state, bad)
    assert new is state
    (error,) = out
    assert isinstance(error, ErrorMessage)
    assert error.code == ErrorCode.PROTOCOL_ERROR and type(error.code) is str
    assert needle in error.message, error.message
    assert error.message.endswith("the event was ignored")
    strict, _ = run(prefix, create_initial_message_assembler_state(strict=True))
    with pytest.raises(ProtocolError, match="the event was ignored"):
        message_assembler_processor(strict, bad)


def test_an_ignored_event_does_not_disturb_the_message() -> None:
    bad = [TextDelta("x", 5000), InputJsonDelta("{", 0)]
    _, out = run([START, TextDelta("a", 0), *bad, TextDelta("b", 0), MessageStop()])
    assert [type(o) for o in out] == [ErrorMessage, ErrorMessage, AssistantMessage]
    assert out[-1].text == "ab"


def test_events_of_other_layers_are_ignored_silently() -> None:
    state, _ = run([START])
    for event in (
        ConversationEnd("completed"),
        TurnRequest("turn-1", "u1"),
        ErrorMessage("x", "y"),
        UserMessage("u2", "steer"),
    ):
        new, out = message_assembler_processor(state, event)
        assert new is state and out == ()


def test_malformed_event_fields_never_escape_as_python_errors() -> None:
    state, _ = run([START])
    broken = object.__new__(TextDelta)  # no fields at all
    new, out = message_assembler_processor(state, broken)
    assert new is state
    assert "malformed event (AttributeError" in out[0].message
    assert out[0].timestamp == 0


def test_sparse_indexes_leave_holes_that_are_skipped() -> None:
    _, out = run([START, TextDelta("b", 3), TextDelta("a", 1), MessageStop()])
    assert out[0].parts == (TextPart("a"), TextPart("b"))
