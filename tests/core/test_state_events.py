"""The state-event processor: one test per row of the transition table, and no noise."""

from typing import Any

from agentcore.events import (
    ConversationEnd,
    ConversationInterrupted,
    ConversationResponding,
    ConversationStart,
    ConversationThinking,
    ErrorOccurred,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextContent,
    TextDelta,
    ThinkingDelta,
    ToolCompleted,
    ToolExecuting,
    ToolFailed,
    ToolPlanned,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
    TurnRequest,
    UserMessage,
)
from agentcore.processors import (
    create_initial_state_event_processor_context,
    state_event_processor,
)
from agentcore.testing import unchecked


def run(events: list[Any], state: Any = None) -> tuple[Any, list[Any]]:
    state = create_initial_state_event_processor_context() if state is None else state
    outputs: list[Any] = []
    for event in events:
        state, out = state_event_processor(state, event)
        assert type(out) is tuple
        outputs.extend(out)
    return state, outputs


def test_a_plain_answer_emits_each_transition_once() -> None:
    events = [
        UserMessage("u1", "hi", timestamp=1),
        MessageStart("m1", "x", timestamp=2),
        *[TextDelta("a", 0, timestamp=3) for _ in range(50)],
        MessageDelta(stop_reason="end_turn"),
        MessageStop(timestamp=4),
    ]
    _, out = run(events)
    assert out == [
        ConversationStart("u1", timestamp=1),
        ConversationThinking(timestamp=2),
        ConversationResponding(timestamp=3),
        ConversationEnd("completed", timestamp=4),
    ]


def test_deltas_after_the_first_return_the_same_state_and_no_outputs() -> None:
    state, _ = run([MessageStart("m1", "x"), TextDelta("a", 0)])
    for event in (TextDelta("b", 0), InputJsonDelta("{", 1), MessageDelta()):
        new, out = state_event_processor(state, event)
        assert new is state and out == ()


def test_user_message_while_active_is_steering_not_a_new_conversation() -> None:
    state, _ = run([UserMessage("u1", "hi"), MessageStart("m1", "x")])
    new, out = state_event_processor(state, UserMessage("u2", "also this"))
    assert new is state and out == ()


def test_message_start_without_user_message_starts_the_conversation() -> None:
    _, out = run([MessageStart("m1", "x", timestamp=5)])
    assert out == [ConversationStart("m1", timestamp=5), ConversationThinking(timestamp=5)]


def test_thinking_after_responding_is_a_transition_each_way() -> None:
    _, out = run(
        [
            MessageStart("m1", "x"),
            ThinkingDelta("hmm", 0),
            TextDelta("a", 1),
            ThinkingDelta("more", 2),
            ThinkingDelta("more", 2),
            TextDelta("b", 3),
        ]
    )
    assert [type(o) for o in out] == [
        ConversationStart,
        ConversationThinking,
        ConversationResponding,
        ConversationThinking,
        ConversationResponding,
    ]


def test_tool_calls_are_planned_executed_and_finished() -> None:
    state, out = run(
        [
            UserMessage("u1", "go"),
            MessageStart("m1", "x"),
            ToolUseStart("a", "search", 0, timestamp=1),
            ToolUseStart("b", "calc", 1, timestamp=2),
            ToolUseStart("a", "search", 2),  # duplicate id: ignored
            ToolUseStop("a", 0),
            ToolUseStop("b", 1),
            MessageStop(timestamp=3),
        ]
    )
    assert out[2:] == [
        ToolPlanned("a", "search", timestamp=1),
        ToolPlanned("b", "calc", timestamp=2),
        ToolExecuting("a", "search", timestamp=3),
        ToolExecuting("b", "calc", timestamp=3),
    ]
    state, out = run(
        [
            ToolResult("b", (TextContent("division "), TextContent("by zero")), is_error=True),
            ToolResult("a", "found", timestamp=4),
            ToolResult("a", "again"),  # answered already: ignored
        ],
        state,
    )
    assert out == [
        ToolFailed("b", "calc", "division by zero"),
        ToolCompleted("a", "search", timestamp=4),
    ]
    _, out = run([MessageStart("m2", "x"), TextDelta("done", 0), MessageStop(timestamp=9)], state)
    assert out == [
        ConversationThinking(),
        ConversationResponding(),
        ConversationEnd("completed", timestamp=9),
    ]


def test_early_result_after_tool_use_stop_skips_executing() -> None:
    _, out = run(
        [
            MessageStart("m1", "x"),
            ToolUseStart("a", "f", 0),
            ToolResult("a", "too early"),  # input not complete yet: ignored
            ToolUseStop("a", 0),
            ToolResult("a", "ok"),
            ToolUseStart("b", "g", 1),
            MessageStop(),
        ]
    )
    assert out[2:] == [
        ToolPlanned("a", "f"),
        ToolCompleted("a", "f"),
        ToolPlanned("b", "g"),
        ToolExecuting("b", "g"),
    ]


def test_message_without_tools_does_not_end_while_results_are_awaited() -> None:
    state, _ = run([MessageStart("m1", "x"), ToolUseStart("a", "f", 0), MessageStop()])
    state, out = run([MessageStart("m2", "x"), TextDelta("hm", 0), MessageStop()], state)
    assert ConversationEnd("completed") not in out
    _, out = run([ToolResult("a", "ok"), MessageStart("m3", "x"), MessageStop()], state)
    assert out[-1] == ConversationEnd("completed")


def test_interrupt_ends_an_active_conversation_only() -> None:
    idle = create_initial_state_event_processor_context()
    new, out = state_event_processor(idle, Interrupt())
    assert new is idle and out == ()
    state, out = run(
        [UserMessage("u", "x"), MessageStart("m", "x"), Interrupt("stop", timestamp=7)]
    )
    assert out[-2:] == [
        ConversationInterrupted("stop", timestamp=7),
        ConversationEnd("interrupted", timestamp=7),
    ]
    assert state == idle


def test_error_reports_and_ends_an_active_conversation() -> None:
    idle = create_initial_state_event_processor_context()
    new, out = state_event_processor(idle, ErrorReceived("bad key", "AUTHENTICATION_ERROR"))
    assert new is idle and out == (ErrorOccurred("bad key", "AUTHENTICATION_ERROR"),)
    state, out = run(
        [
            MessageStart("m", "x"),
            ToolUseStart("a", "f", 0),
            MessageStop(),
            ErrorReceived("boom", "PROVIDER_ERROR", timestamp=3),
        ]
    )
    assert out[-2:] == [
        ErrorOccurred("boom", "PROVIDER_ERROR", timestamp=3),
        ConversationEnd("error", timestamp=3),
    ]
    # results still trickling in for the abandoned calls say nothing
    _, out = run([ToolResult("a", "late")], state)
    assert out == []


def test_events_it_cannot_place_are_ignored_silently() -> None:
    idle = create_initial_state_event_processor_context()
    for event in (
        TextDelta("x", 0),
        ThinkingDelta("x", 0),
        ToolUseStart("a", "f", 0),
        ToolUseStop("a", 0),
        MessageStop(),
        ToolResult("zz", "x"),
        TurnRequest("turn-1", "u"),
        object(),
        object.__new__(ToolResult),
    ):
        new, out = state_event_processor(idle, event)
        assert new is idle and out == (), event
    state, _ = run([MessageStart("m1", "x")])
    new, out = state_event_processor(state, MessageStart("m2", "x"))
    assert new is state and out == ()
    new, out = state_event_processor(state, unchecked(MessageStop, 3))
    assert new is state and out == ()
