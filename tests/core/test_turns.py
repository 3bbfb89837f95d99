"""The turn tracker: turn boundaries, deterministic ids, duration, usage and cost."""

import math
from typing import Any

import pytest

from agentcore.events import (
    ErrorReceived,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
    TurnRequest,
    TurnResponse,
    Usage,
    UserMessage,
)
from agentcore.pricing import ModelPrice
from agentcore.processors import create_initial_turn_tracker_state, turn_tracker_processor
from agentcore.testing import unchecked

PRICES = {"claude-sonnet-4-5": ModelPrice(input=3.0, output=15.0)}


def run(events: list[Any], state: Any = None) -> tuple[Any, list[Any]]:
    state = create_initial_turn_tracker_state(PRICES) if state is None else state
    outputs: list[Any] = []
    for event in events:
        state, out = turn_tracker_processor(state, event)
        assert type(out) is tuple
        outputs.extend(out)
    return state, outputs


def call(
    model: str, input_tokens: int, output_tokens: int, *, tools: bool = False, ts: int = 0
) -> list[Any]:
    events: list[Any] = [MessageStart(f"m-{ts}", model, timestamp=ts), TextDelta("x", 0)]
    if tools:
        events += [ToolUseStart(f"t-{ts}", "f", 1), ToolUseStop(f"t-{ts}", 1)]
    events += [
        MessageDelta(usage={"input_tokens": 1}),
        MessageDelta(
            stop_reason="tool_use" if tools else "end_turn",
            usage={"input_tokens": input_tokens, "output_tokens": output_tokens},
        ),
        MessageStop(timestamp=ts + 1),
    ]
    return events


def test_a_turn_with_tool_calls_sums_every_model_call() -> None:
    _, out = run(
        [
            UserMessage("u1", "hi", timestamp=1000),
            *call("claude-sonnet-4-5-20250929", 1_000_000, 0, tools=True, ts=1100),
            ToolResult("t-1100", "ok"),
            *call("claude-sonnet-4-5", 0, 1_000_000, ts=1500),
        ]
    )
    request, response = out
    assert request == TurnRequest("turn-1", "u1", timestamp=1000)
    assert response.turn_id == "turn-1"
    assert response.duration_ms == 501
    assert response.usage == Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert response.cost is not None and math.isclose(response.cost, 18.0)
    assert response.model == "claude-sonnet-4-5"
    assert response.stop_reason == "end_turn"
    assert response.timestamp == 1501


def test_turn_ids_count_up_and_steering_joins_the_open_turn() -> None:
    state, out = run([UserMessage("u1", "a"), UserMessage("u1b", "steer"), *call("x", 1, 1)])
    state, more = run([UserMessage("u2", "b"), *call("x", 1, 1)], state)
    assert [o.turn_id for o in out + more] == ["turn-1", "turn-1", "turn-2", "turn-2"]
    assert [type(o) for o in out + more] == [TurnRequest, TurnResponse] * 2


def test_unknown_model_or_no_price_table_gives_no_cost_never_zero() -> None:
    _, out = run([UserMessage("u", "a"), *call("mystery-model", 10, 10)])
    assert out[-1].cost is None and out[-1].model == "mystery-model"
    # one unpriced call makes the whole turn's cost unknown
    _, out = run(
        [
            UserMessage("u", "a"),
            *call("mystery-model", 10, 10, tools=True),
            *call("claude-sonnet-4-5", 10, 10, ts=5),
        ]
    )
    assert out[-1].cost is None
    state = create_initial_turn_tracker_state()
    _, out = run([UserMessage("u", "a"), *call("claude-sonnet-4-5", 10, 10)], state)
    assert out[-1].cost is None


def test_a_turn_with_no_model_call_costs_nothing() -> None:
    _, out = run([UserMessage("u", "a", timestamp=5), Interrupt(timestamp=9)])
    assert out[-1] == TurnResponse(
        "turn-1", duration_ms=4, cost=0.0, stop_reason="interrupted", timestamp=9
    )


@pytest.mark.parametrize(
    ("cut", "reason"),
    [(ErrorReceived("boom", "OVERLOADED"), "error"), (Interrupt(), "interrupted")],
)
def test_error_or_interrupt_ends_the_turn_counting_the_partial_call(cut: Any, reason: str) -> None:
    events = [
        UserMessage("u", "a", timestamp=10),
        MessageStart("m", "claude-sonnet-4-5", timestamp=11),
        MessageDelta(usage={"input_tokens": 2_000_000}),
    ]
    state, out = run([*events, cut])
    response = out[-1]
    assert response.stop_reason == reason
    assert response.usage == Usage(input_tokens=2_000_000)
    assert response.cost is not None and math.isclose(response.cost, 6.0)
    assert response.model == "claude-sonnet-4-5"
    assert response.duration_ms == -10  # the cut event's timestamp was 0
    assert state[1] is None
    new, nothing = turn_tracker_processor(state, cut)
    assert new is state and nothing == ()


def test_message_start_without_user_message_opens_a_turn() -> None:
    _, out = run(call("x", 1, 2, ts=3))
    assert out[0] == TurnRequest("turn-1", "m-3", timestamp=3)
    assert out[1].usage == Usage(input_tokens=1, output_tokens=2)


def test_message_stop_stop_reason_overrides_the_delta() -> None:
    _, out = run([MessageStart("m", "x"), MessageDelta("max_tokens"), MessageStop("end_turn")])
    assert out[-1].stop_reason == "end_turn"


def test_events_it_does_not_track_return_the_same_state() -> None:
    state, _ = run([UserMessage("u", "a"), MessageStart("m", "x")])
    for event in (
        TextDelta("a", 0),
        UserMessage("u2", "steer"),
        MessageStart("m2", "x"),
        ToolResult("t", "x"),
        unchecked(MessageDelta, stop_reason=5),
        object(),
        object.__new__(MessageStop),
    ):
        new, out = turn_tracker_processor(state, event)
        assert new is state and out == (), event
    idle = create_initial_turn_tracker_state()
    for event in (MessageDelta(), MessageStop(), ToolUseStart("t", "f", 0)):
        new, out = turn_tracker_processor(idle, event)
        assert new is idle and out == ()
