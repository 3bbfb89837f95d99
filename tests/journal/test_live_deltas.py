"""The live per-delta path of ``Conversation.feed_stream`` is exact.

``feed_stream`` keeps the chunks of deltas that only append to the block being streamed
and applies them at once (before the next other input, or when the state is read). These
tests hold that this never shows: fed in any cut into batches, with the state read at
any point of delivery (as a presenter or subscriber may), a conversation delivers the
outputs, performs the effects, journals the inputs and reaches the states of ``receive``
one input at a time.

Tests the private module ``agentcore._journal.conversation``: the live delta path.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal.conversation import Conversation
from agentcore.events import (
    InputJsonDelta,
    MessageStart,
    TextDelta,
    ThinkingDelta,
    UserMessage,
)
from agentcore.journal import MemoryJournal
from agentcore.loop import (
    EFFECTS,
    AgentConfigured,
    AgentPrompt,
    AgentSteer,
    LoopConfig,
    conversation_processor,
    create_initial_conversation_state,
)
from agentcore.processors import agent_processor, create_initial_agent_engine_state
from agentcore.testing import rechunked, turns

SECRET = "sk-ant-api03-" + "aB_-9" * 18 + "AA"


@st.composite
def runs(draw: st.DrawFn) -> list[Any]:
    """A prompt and the model's turn with its deltas split anew, and stray deltas (another
    block, a secret, a signature) and steers at random places."""
    turn = draw(turns(max_calls=2))
    stream = draw(rechunked([e for e in turn.events if type(e) is not UserMessage]))
    events: list[Any] = [AgentPrompt((UserMessage("u1", "go"),), timestamp=1), *stream]
    strays = [
        TextDelta("stray", 7, timestamp=3),
        TextDelta(f"key {SECRET} here", 0, timestamp=3),
        ThinkingDelta("sig", 0, signature="s1", timestamp=3),
        InputJsonDelta('{"a"', 1, timestamp=3),
        AgentSteer("wait", timestamp=3),
    ]
    for _ in range(draw(st.integers(0, 3))):
        events.insert(draw(st.integers(1, len(events))), draw(st.sampled_from(strays)))
    return events


class Reading:
    """A sink that records each output and, at the chosen outputs, the state it reads."""

    congested = False

    def __init__(self, log: list[Any], reads: set[int]) -> None:
        self.log, self.reads = log, reads
        self.conversation: Conversation | None = None
        self.states: list[tuple[int, Any]] = []

    def send(self, output: Any) -> None:
        self.log.append(output)
        if len(self.log) in self.reads:
            assert self.conversation is not None
            self.states.append((len(self.log), self.conversation.state))


def _configured() -> list[Any]:
    return [AgentConfigured(LoopConfig().to_wire(), timestamp=1)]


class Snapshots:
    """A snapshot store that keeps every ``(seq, state)`` saved."""

    def __init__(self) -> None:
        self.saved: list[tuple[int, Any]] = []

    def save(self, agent_id: str, seq: int, state: Any) -> None:
        self.saved.append((seq, state))


def _kept(state: Any) -> Any:
    return state


@settings(max_examples=120, deadline=None)
@given(
    events=runs(),
    cuts=st.lists(st.integers(0, 400), max_size=10),
    reads=st.sets(st.integers(1, 400), max_size=12),
    every=st.integers(1, 9),
)
def test_any_batches_and_reads_give_what_receive_gives(
    events: list[Any], cuts: list[int], reads: set[int], every: int
) -> None:
    """Same outputs and effects in order, same states read during delivery, same final
    state, journal and snapshots (saved every ``every`` inputs, mid-stream included)."""
    inputs = _configured() + events
    one = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        journal=MemoryJournal(),
        snapshots=Snapshots(),
        snapshot=_kept,
        snapshot_every=every,
    )
    expected: list[Any] = []
    states: dict[int, Any] = {}  # output number -> the state after its input
    for event in inputs:
        expected += one.receive(event)
        for n in range(len(states) + 1, len(expected) + 1):
            states[n] = one.state

    log: list[Any] = []
    sink = Reading(log, reads)
    fed = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        journal=MemoryJournal(),
        outlet=sink,
        perform=log.append,
        snapshots=Snapshots(),
        snapshot=_kept,
        snapshot_every=every,
    )
    sink.conversation = fed
    bounds = [0, *sorted(c % (len(inputs) + 1) for c in cuts), len(inputs)]
    for start, end in itertools.pairwise(bounds):
        batch, done = inputs[start:end], 0
        while done < len(batch):
            done = fed.feed_stream(batch, done)

    assert log == expected
    delivered = [n for n, o in enumerate(log, 1) if type(o) not in EFFECTS]
    assert sink.states == [(n, states[n]) for n in delivered if n in reads]
    assert fed.state == one.state
    assert fed.seq == one.seq == len(inputs)
    assert [e.event for e in fed.journal.entries("a")] == [
        e.event for e in one.journal.entries("a")
    ]
    assert fed.snapshots.saved == one.snapshots.saved
    assert len(one.snapshots.saved) == len(inputs) // every


def test_a_delta_that_only_appends_is_delivered_and_applied_when_read() -> None:
    """The hot path itself: each appended delta is delivered as it comes; the state read
    after any of them holds every chunk so far, and a new state set drops none it should
    not (a fresh one has no block to append to)."""
    log: list[Any] = []
    sink = Reading(log, set())
    fed = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        outlet=sink,
        perform=log.append,
    )
    sink.conversation = fed
    fed.feed_all(_configured())
    fed.feed(AgentPrompt((UserMessage("u1", "go"),), timestamp=2))
    one = Conversation(conversation_processor, fed.state, agent_id="a")
    start = MessageStart("m1", "m", timestamp=3)
    deltas = [TextDelta(f"w{i} ", 0, timestamp=3) for i in range(5)]
    fed.feed_stream((start, deltas[0]), 0)
    one.receive(start)
    one.receive(deltas[0])
    for delta in deltas[1:]:
        before = len(log)
        fed.feed_stream((delta,), 0)
        assert log[before:] == [delta]
        one.receive(delta)
        if delta is deltas[2]:
            assert fed.state == one.state
    assert fed.state == one.state
    fed.feed_all(deltas[:2])  # kept, unread: the state set below replaces them
    fresh = Conversation(conversation_processor, create_initial_conversation_state(), agent_id="a")
    fed.state = fresh.state
    before = len(log)
    fed.feed(deltas[0])  # no block is open in a fresh state: the core reports it
    assert log[before:] == list(fresh.receive(deltas[0]))
    assert fed.state == fresh.state


def test_the_core_alone_appends_without_outputs() -> None:
    """Over ``agent_processor`` (no echo), an appended delta gives no output."""
    log: list[Any] = []
    fed = Conversation(
        agent_processor,
        create_initial_agent_engine_state(),
        agent_id="a",
        outlet=Reading(log, set()),
    )
    one = Conversation(agent_processor, create_initial_agent_engine_state(), agent_id="a")
    events = [
        UserMessage("u", "go", timestamp=1),
        MessageStart("m1", "m", timestamp=1),
        *(TextDelta(f"w{i}", 0, timestamp=1) for i in range(4)),
    ]
    expected = [o for e in events for o in one.receive(e)]
    fed.feed_stream(events, 0)
    assert log == expected
    assert fed.state == one.state
