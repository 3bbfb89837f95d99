"""The text-delta shortcut of agent_processor gives what the three processors give.

Tests the private module ``agentcore._core.agent_processor``: its text-delta shortcut
against the three processors."""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._core import agent_processor as _agent_processor
from agentcore.events import MessageStart, TextDelta, ThinkingDelta
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
from agentcore.testing import Turn, turns

PROCESSORS = (message_assembler_processor, state_event_processor, turn_tracker_processor)


def _assert_step_by_step_equal(events: list[Any]) -> None:
    combined: Any = create_initial_agent_engine_state()
    separate: list[Any] = [
        create_initial_message_assembler_state(),
        create_initial_state_event_processor_context(),
        create_initial_turn_tracker_state(),
    ]
    machine = AgentStateMachine()
    for event in events:
        combined, outputs = agent_processor(combined, event)
        expected: list[Any] = []
        for i, processor in enumerate(PROCESSORS):
            separate[i], out = processor(separate[i], event)
            expected.extend(out)
        assert outputs == tuple(expected)
        assert layers_of(combined) == tuple(separate)
        for output in outputs:
            machine.process(output)
        assert activity_of(combined) is machine.state


@settings(max_examples=150, deadline=None)
@given(turns())
def test_valid_turns_step_by_step(turn: Turn) -> None:
    _assert_step_by_step_equal(list(turn.events))


_DELTAS = st.one_of(
    st.builds(TextDelta, text=st.sampled_from(["a", "", "bc"]), index=st.integers(0, 2)),
    st.builds(ThinkingDelta, text=st.sampled_from(["t", ""]), index=st.integers(0, 2)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_DELTAS, max_size=30))
def test_text_switching_blocks_and_modes_equals_the_general_step(deltas: list[Any]) -> None:
    # text and thinking on a few indexes: the shortcut must step aside whenever the block
    # or the mode changes (kind clashes included), leaving it to the general step
    state: Any = create_initial_agent_engine_state()
    reference = state
    for event in [MessageStart("m", "x"), *deltas]:
        state, outputs = agent_processor(state, event)
        reference, expected = _agent_processor._step(type(event))(reference, event)
        assert outputs == expected
        assert state == reference
