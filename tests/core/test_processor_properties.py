"""Properties of the core processors over generated streams (agentcore.testing)."""

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore.errors import AgentError
from agentcore.events import (
    AssistantMessage,
    ErrorMessage,
    Interrupt,
    MessageStart,
    TextDelta,
    ToolCallMessage,
    ToolUseStart,
    ToolUseStop,
    TurnResponse,
    Usage,
    from_dict,
    to_dict,
)
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
from agentcore.testing import (
    AssistantStream,
    Turn,
    assistant_streams,
    broken_streams,
    check_processor,
    events,
    garbage,
    rechunked,
    turns,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PROCESSORS = [
    (message_assembler_processor, create_initial_message_assembler_state),
    (state_event_processor, create_initial_state_event_processor_context),
    (turn_tracker_processor, create_initial_turn_tracker_state),
    (agent_processor, create_initial_agent_engine_state),
]


def assemble(events: Any) -> list[Any]:
    state = create_initial_message_assembler_state()
    outputs: list[Any] = []
    for event in events:
        state, out = message_assembler_processor(state, event)
        outputs.extend(out)
    return outputs


@SETTINGS
@given(st.data(), assistant_streams())
def test_any_chunking_assembles_the_expected_message(data: Any, stream: AssistantStream) -> None:
    outputs = assemble(stream.events)
    message = outputs[-1]
    assert message == AssistantMessage(
        message_id=stream.message_id,
        model=stream.model,
        parts=stream.parts,
        usage=stream.usage,
        stop_reason=stream.stop_reason,
    )
    announced = [o.tool_call for o in outputs[:-1]]
    assert len(announced) == len(stream.tool_calls)
    assert {p.tool_call_id: p for p in announced} == {p.tool_call_id: p for p in stream.tool_calls}
    assert assemble(data.draw(rechunked(stream.events))) == outputs


@SETTINGS
@given(turns())
def test_every_started_tool_call_ends_in_exactly_one_part(turn: Turn) -> None:
    outputs = assemble(turn.events)
    assert not [o for o in outputs if isinstance(o, ErrorMessage)]
    started = [e.tool_call_id for e in turn.events if isinstance(e, ToolUseStart)]
    in_messages = [
        p.tool_call_id for o in outputs if isinstance(o, AssistantMessage) for p in o.tool_calls
    ]
    announced = [o.tool_call.tool_call_id for o in outputs if isinstance(o, ToolCallMessage)]
    assert sorted(in_messages) == sorted(started) == sorted(announced)
    assert len(set(in_messages)) == len(in_messages)


@SETTINGS
@given(turns(), st.integers(0, 10**6))
def test_any_prefix_then_interrupt_leaves_a_flushed_history(turn: Turn, cut: int) -> None:
    prefix = list(turn.events[: cut % (len(turn.events) + 1)])
    state, outputs = check_processor(
        agent_processor, create_initial_agent_engine_state(), [*prefix, Interrupt()]
    )
    assert not [o for o in outputs if isinstance(o, ErrorMessage)]
    assert layers_of(state)[0][0] is None, "no message is left open"
    starts = [e for e in prefix if isinstance(e, MessageStart)]
    messages = [o for o in outputs if isinstance(o, AssistantMessage)]
    assert [m.message_id for m in messages] == [s.message_id for s in starts]
    if messages and messages[-1].incomplete:
        last = messages[-1]
        at = prefix.index(starts[-1])
        by_index: dict[int, str] = {}
        for e in prefix[at:]:
            if isinstance(e, TextDelta):
                by_index[e.index] = by_index.get(e.index, "") + e.text
        assert last.text == "".join(by_index[i] for i in sorted(by_index))
        assert last.stop_reason == "interrupted"
        stopped = {e.tool_call_id for e in prefix[at:] if isinstance(e, ToolUseStop)}
        for call in last.tool_calls:
            assert (call.input_error is None) == (call.tool_call_id in stopped)
    responses = [o for o in outputs if isinstance(o, TurnResponse)]
    assert len(responses) == (1 if prefix else 0), responses


@SETTINGS
@given(turns(), st.sampled_from(PROCESSORS))
def test_processors_are_pure_on_valid_turns(turn: Turn, processor: Any) -> None:
    process, initial = processor
    check_processor(process, initial(), turn.events)


@SETTINGS
@given(broken_streams(), st.sampled_from(PROCESSORS))
def test_broken_streams_give_error_outputs_never_python_errors(
    events: list[Any], processor: Any
) -> None:
    process, initial = processor
    check_processor(process, initial(), events)  # raising anything fails the test


@SETTINGS
@given(st.lists(garbage(), max_size=5), st.booleans())
def test_garbage_is_reported_or_raised_as_an_agent_error(items: list[Any], strict: bool) -> None:
    state = create_initial_agent_engine_state(strict=strict)
    state, _ = agent_processor(state, MessageStart("m", "x"))
    for item in items:
        try:
            new, out = agent_processor(state, item)
        except AgentError:
            assert strict
            continue
        assert new is state
        assert [type(o) for o in out] == [ErrorMessage]


@SETTINGS
@given(turns())
def test_agent_processor_equals_the_three_processors_in_sequence(turn: Turn) -> None:
    separate: list[Any] = []
    states = [init() for _, init in PROCESSORS[:3]]
    for event in turn.events:
        for i, (process, _) in enumerate(PROCESSORS[:3]):
            states[i], out = process(states[i], event)
            separate.extend(out)
    state, combined = check_processor(
        agent_processor, create_initial_agent_engine_state(), turn.events
    )
    assert combined == separate
    assert layers_of(state) == tuple(states)
    machine = AgentStateMachine()  # the activity is the state machine's fold of the outputs
    for output in combined:
        machine.process(output)
    assert activity_of(state) is machine.state


@SETTINGS
@given(turns())
def test_a_turn_sums_the_usage_of_its_calls(turn: Turn) -> None:
    _, outputs = check_processor(
        turn_tracker_processor, create_initial_turn_tracker_state(), turn.events
    )
    _, response = outputs
    assert response.usage == sum((c.usage for c in turn.calls), Usage())
    assert response.duration_ms == turn.events[-1].timestamp - turn.events[0].timestamp
    assert response.model == turn.calls[-1].model
    assert response.cost is None


@settings(max_examples=200, deadline=None)
@given(events())
def test_wire_round_trip_is_lossless(event: Any) -> None:
    wire = to_dict(event)
    assert from_dict(wire) == event
    assert from_dict(json.loads(json.dumps(wire))) == event
