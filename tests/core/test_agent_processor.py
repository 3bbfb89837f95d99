"""agent_processor: the three core processors as one, with bad input reported once."""

from typing import Any

import pytest

from agentcore.errors import ErrorCode, ProtocolError
from agentcore.events import (
    AssistantMessage,
    ConversationEnd,
    ConversationResponding,
    ConversationStart,
    ConversationThinking,
    ErrorMessage,
    ErrorOccurred,
    ErrorReceived,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolCallMessage,
    ToolCompleted,
    ToolExecuting,
    ToolPlanned,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    TurnRequest,
    TurnResponse,
    UserMessage,
)
from agentcore.pricing import ModelPrice
from agentcore.processors import (
    activity_of,
    agent_processor,
    create_initial_agent_engine_state,
    create_initial_message_assembler_state,
    create_initial_state_event_processor_context,
    create_initial_turn_tracker_state,
    layers_of,
    message_assembler_processor,
    state_event_processor,
    turn_tracker_processor,
)
from agentcore.state_machine import AgentStateMachine
from agentcore.testing import unchecked

PRICES = {"m": ModelPrice(input=1.0, output=2.0)}


def run(events: list[Any], state: Any = None) -> tuple[Any, list[Any]]:
    state = create_initial_agent_engine_state(PRICES) if state is None else state
    outputs: list[Any] = []
    for event in events:
        state, out = agent_processor(state, event)
        assert type(out) is tuple
        outputs.extend(out)
    return state, outputs


TURN = [
    UserMessage("u1", "weather?", timestamp=1),
    MessageStart("a1", "m", timestamp=2),
    TextDelta("Let me look", 0, timestamp=3),
    TextDelta(".", 0, timestamp=3),
    ToolUseStart("t1", "weather", 1, timestamp=4),
    InputJsonDelta('{"city": "Oslo"}', 1),
    ToolUseStop("t1", 1, timestamp=5),
    MessageDelta("tool_use", {"input_tokens": 1_000_000, "output_tokens": 10}),
    MessageStop(timestamp=6),
    ToolResult("t1", "rain", timestamp=7),
    MessageStart("a2", "m", timestamp=8),
    TextDelta("Rain.", 0, timestamp=9),
    MessageDelta("end_turn", {"output_tokens": 1_000_000}),
    MessageStop(timestamp=10),
]


def test_outputs_come_layer_by_layer_for_each_event() -> None:
    _, out = run(TURN)
    assert [type(o) for o in out] == [
        ConversationStart,
        TurnRequest,
        ConversationThinking,
        ConversationResponding,
        ToolPlanned,
        ToolCallMessage,
        AssistantMessage,
        ToolExecuting,
        ToolResultMessage,
        ToolCompleted,
        ConversationThinking,
        ConversationResponding,
        AssistantMessage,
        ConversationEnd,
        TurnResponse,
    ]
    response = out[-1]
    assert response.duration_ms == 9
    assert response.cost == pytest.approx(1.0 + 2 * 10e-6 + 2.0)


def test_same_outputs_as_the_three_processors_run_separately() -> None:
    processors = [
        (message_assembler_processor, create_initial_message_assembler_state()),
        (state_event_processor, create_initial_state_event_processor_context()),
        (turn_tracker_processor, create_initial_turn_tracker_state(PRICES)),
    ]
    expected: list[Any] = []
    states = [s for _, s in processors]
    for event in TURN:
        for i, (proc, _) in enumerate(processors):
            states[i], out = proc(states[i], event)
            expected.extend(out)
    state, out = run(TURN)
    assert out == expected
    assert layers_of(state) == tuple(states)
    machine = AgentStateMachine()
    for output in out:
        machine.process(output)
    assert activity_of(state) is machine.state


@pytest.mark.parametrize(
    "bad",
    [
        MessageStart("again", "m"),
        unchecked(TextDelta, "x", -3),
        ToolUseStart("t1", "dup", 5),
        ToolUseStop("nope", 1),
        unchecked(MessageStop, 7),
        object(),
        object.__new__(MessageStop),
    ],
)
def test_rejected_event_is_reported_once_and_changes_no_layer(bad: Any) -> None:
    state, _ = run(TURN[:5])
    new, out = agent_processor(state, bad)
    assert new is state
    (error,) = out
    assert isinstance(error, ErrorMessage) and error.code == ErrorCode.PROTOCOL_ERROR
    strict, _ = run(TURN[:5], create_initial_agent_engine_state(PRICES, strict=True))
    with pytest.raises(ProtocolError):
        agent_processor(strict, bad)


def test_text_before_any_message_does_not_claim_responding() -> None:
    state, _ = run([UserMessage("u", "hi")])
    _, out = agent_processor(state, TextDelta("x", 0))
    assert [type(o) for o in out] == [ErrorMessage]


def test_error_with_no_open_message_reaches_every_layer() -> None:
    state, _ = run([UserMessage("u", "hi", timestamp=1)])
    _, out = agent_processor(state, ErrorReceived("quota", "RATE_LIMITED", timestamp=4))
    assert out == (
        ErrorMessage("quota", "RATE_LIMITED", timestamp=4),
        ErrorOccurred("quota", "RATE_LIMITED", timestamp=4),
        ConversationEnd("error", timestamp=4),
        TurnResponse("turn-1", 3, cost=0.0, stop_reason="error", timestamp=4),
    )


def test_events_of_other_layers_change_nothing() -> None:
    state, out = run(TURN)
    for event in out:
        new, more = agent_processor(state, event)
        assert new is state and more == ()


def test_text_deltas_return_no_outputs_after_the_first() -> None:
    state, _ = run(TURN[:3])
    new, out = agent_processor(state, TextDelta("more", 0))
    assert out == () and layers_of(new)[1:] == layers_of(state)[1:]
