"""``fold_steps``, the journal's fold per entry (replay steps, an eval's trace): its delta
fast path gives every entry the outputs folding it one by one gives, effect requests
included, and leaves the machine in the same state, with the lanes of two agents
interleaved at random.

Tests the private module ``agentcore._journal.replay``: fold_steps, the journal's fold
per entry.
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal.replay import fold_steps
from agentcore.events import MessageStart, TextDelta, UserMessage
from agentcore.journal import JournalEntry, MemoryJournal, replay_steps
from agentcore.loop import (
    EFFECTS,
    AgentConfigured,
    AgentPrompt,
    LoopConfig,
    create_conversation_machine,
)

from .test_conversation_replay import runs


@st.composite
def two_lanes(draw: st.DrawFn) -> list[JournalEntry]:
    """Two agents' runs, interleaved; every input stamped, numbered per agent."""
    lanes = {agent: draw(runs()) for agent in ("a", "b")}
    order = draw(st.permutations([a for a, events in lanes.items() for _ in events]))
    taken = dict.fromkeys(lanes, 0)
    entries = [
        JournalEntry(a, 1, AgentConfigured(LoopConfig().to_wire(), timestamp=1)) for a in lanes
    ]
    for agent in order:
        event = lanes[agent][taken[agent]]
        taken[agent] += 1
        event = event if event.timestamp else attrs.evolve(event, timestamp=3)
        entries.append(JournalEntry(agent, taken[agent] + 1, event))
    return entries


def _states(machine: Any) -> dict[str, Any]:
    return {agent: machine.state_of(agent) for agent in ("a", "b")}


@settings(max_examples=80, deadline=None)
@given(two_lanes())
def test_the_fast_path_gives_each_entry_what_folding_it_gives(entries: list[JournalEntry]):
    fast_machine, slow_machine = create_conversation_machine(), create_conversation_machine()
    fast = list(fold_steps(entries, fast_machine))
    slow = list(fold_steps(entries, slow_machine, fast=False))
    assert fast == slow
    assert [entry for entry, _ in fast] == entries
    assert _states(fast_machine) == _states(slow_machine)
    one_by_one = create_conversation_machine()
    assert [one_by_one.process(e.agent_id, e.event) for e in entries] == [o for _, o in slow]


def test_the_fast_path_is_taken_and_replay_steps_drops_effects() -> None:
    """A run of appending deltas is not folded one by one (the machine's state lags while
    it is open), and ``replay_steps`` gives the same outputs without effect requests."""
    entries = [
        JournalEntry("a", 1, AgentConfigured(LoopConfig().to_wire(), timestamp=1)),
        *(JournalEntry("a", i + 2, e) for i, e in enumerate(_streamed(["he", "ll", "o"]))),
    ]
    machine, slow = create_conversation_machine(), create_conversation_machine()
    seen = []
    for entry, outputs in fold_steps(entries, machine):
        seen.append(outputs)
        assert outputs == slow.process("a", entry.event)
        if entry.seq > 4:  # the second delta on: the run is open, the state lags
            assert machine.state_of("a") != slow.state_of("a")
    assert machine.state_of("a") == slow.state_of("a")
    with_effects = [o for out in seen for o in out]
    shown = [o for _, out in replay_steps(MemoryJournal(entries)) for o in out]
    assert shown == [o for o in with_effects if type(o) not in EFFECTS]
    assert any(type(o) in EFFECTS for o in with_effects)


def _streamed(chunks: list[str]) -> list[Any]:
    return [
        AgentPrompt((UserMessage("u1", "go"),), timestamp=2),
        MessageStart("m1", "model", timestamp=3),
        *(TextDelta(chunk, 0, timestamp=3) for chunk in chunks),
    ]
