"""The default machine collects runs of appending deltas: nobody can tell.

``create_mealy_machine`` folds a delta that only appends its chunk by a list append
(``MealyMachine(runs=...)``) and settles the run before the next other event or any store
access. These properties hold it equal to folding every event, for interleaved agents,
broken streams, odd deltas and reads, writes and clears of the store in the middle of a
run.
"""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.events import InputJsonDelta, MessageStart, TextDelta, ThinkingDelta
from agentcore.machine import MealyMachine, create_mealy_machine
from agentcore.processors import agent_processor, create_initial_agent_engine_state
from agentcore.testing import broken_streams, turns

AGENTS = ("a", "b")

_ODD_DELTAS = st.one_of(
    st.builds(TextDelta, text=st.sampled_from(["x", ""]), index=st.integers(0, 2)),
    st.builds(
        ThinkingDelta,
        text=st.sampled_from(["t", ""]),
        index=st.integers(0, 2),
        signature=st.none() | st.just("sig"),
        redacted_data=st.none() | st.just("r"),
    ),
    st.builds(InputJsonDelta, partial_json=st.sampled_from(["{", ""]), index=st.integers(0, 2)),
)
_TOUCH = st.sampled_from(["get", "has", "set", "clear", "len"])


@st.composite
def _schedules(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Events for two agents, interleaved, with store accesses between them."""
    lanes = {
        agent: list(
            draw(
                st.one_of(
                    turns().map(lambda t: list(t.events)),
                    broken_streams(),
                    st.lists(_ODD_DELTAS, max_size=12).map(lambda d: [MessageStart("m", "x"), *d]),
                )
            )
        )
        for agent in AGENTS
    }
    schedule: list[tuple[str, Any]] = []
    while any(lanes.values()):
        agent = draw(st.sampled_from([a for a in AGENTS if lanes[a]]))
        schedule.append((agent, lanes[agent].pop(0)))
        if draw(st.integers(0, 9)) == 0:
            schedule.append((agent, draw(_TOUCH)))
    return schedule


def _reference() -> MealyMachine:
    """Every event folded by the processor, one store set per event."""
    return MealyMachine(agent_processor, create_initial_agent_engine_state)


@settings(max_examples=200, deadline=None)
@given(_schedules())
def test_runs_give_the_outputs_and_states_of_folding_every_event(
    schedule: list[tuple[str, Any]],
) -> None:
    machine, reference = create_mealy_machine(), _reference()
    for agent, item in schedule:
        if isinstance(item, str):  # the store touched in the middle of a run
            for m in (machine, reference):
                if item == "get":
                    assert m.store.get(agent) == reference.store.get(agent)
                elif item == "has":
                    assert m.has_state(agent) == reference.has_state(agent)
                elif item == "set" and reference.has_state(agent):
                    m.store.set(agent, reference.state_of(agent))
                elif item == "clear":
                    m.clear_state(agent)
                elif item == "len":
                    assert len(m.store) == len(reference.store)  # type: ignore[arg-type]
            continue
        # states compared only where the store is touched: reading one settles the run
        assert machine.process(agent, item) == reference.process(agent, item)
    for agent in AGENTS:
        assert machine.has_state(agent) == reference.has_state(agent)
        if reference.has_state(agent):
            assert machine.state_of(agent) == reference.state_of(agent)


def test_a_run_is_collected_and_settled_when_the_store_is_read() -> None:
    machine = create_mealy_machine()
    process = machine.process
    process("a", MessageStart("m", "x"))
    process("a", TextDelta("he", 0))  # starts the block: the processor's general step
    states: dict[str, Any] = machine.store._states  # type: ignore[attr-defined]
    before = states["a"]
    for chunk in ("l", "l", "o"):
        assert process("a", TextDelta(chunk, 0)) == ()
    assert states["a"] is before, "the run is collected, not folded delta by delta"
    assert "".join(machine.state_of("a")[3]) == "hello"  # settled by the read
    assert states["a"] is not before


def test_a_store_the_caller_gave_sees_every_event_folded() -> None:
    from agentcore import MemoryStore

    store = MemoryStore()
    machine = create_mealy_machine(store)
    machine.process("a", MessageStart("m", "x"))
    for chunk in ("he", "l", "lo"):
        machine.process("a", TextDelta(chunk, 0))
        assert "".join(store._states["a"][3]).endswith(chunk)  # type: ignore[attr-defined]
