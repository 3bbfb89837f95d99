"""The conversation processor in a machine that collects runs of deltas (``Runs`` with
``echo``: the conversation echoes each stream input as its first output) gives the
outputs and states of folding every event: the path for a live fold to take the core
machine's delta fast path too.

Tests the private module ``agentcore._core.agent_processor``: delta runs under the
conversation.
"""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._core.agent_processor import delta_run, with_appended
from agentcore.events import TextDelta, ThinkingDelta, UserMessage
from agentcore.loop import AgentPrompt, conversation_processor, create_initial_conversation_state
from agentcore.machine import MealyMachine, Runs
from agentcore.testing import Turn, turns

CONVERSATION_RUNS = Runs(
    lambda state: delta_run(state.core),
    lambda state, chunks: state._replace(core=with_appended(state.core, chunks)),
    echo=True,
)

_EXTRA = st.one_of(
    st.builds(TextDelta, text=st.sampled_from(["x", "yz"]), index=st.integers(0, 1)),
    st.builds(ThinkingDelta, text=st.just("t"), index=st.integers(0, 1)),
)


@settings(max_examples=100, deadline=None)
@given(turns(), st.lists(st.tuples(st.integers(0, 40), _EXTRA), max_size=8))
def test_runs_in_a_conversation_give_every_output(turn: Turn, extra: list[Any]) -> None:
    events: list[Any] = [
        AgentPrompt((e,)) if isinstance(e, UserMessage) else e for e in turn.events
    ]
    for at, delta in extra:
        events.insert(min(at, len(events)), delta)
    machine = MealyMachine(
        conversation_processor, create_initial_conversation_state, runs=CONVERSATION_RUNS
    )
    reference = MealyMachine(conversation_processor, create_initial_conversation_state)
    for event in events:
        assert machine.process("a", event) == reference.process("a", event)
    assert machine.state_of("a") == reference.state_of("a")
