"""A run of deltas that only append is delivered in one tight loop, exactly.

With no journal, collector or backlog, ``Conversation.feed_stream`` delivers the deltas
after one that only appended to the block being streamed in a run of their own
(``_appended``): each is still delivered as it comes, and the run ends at any other
input, a delta that needs a stamp or holds a secret, or after a delivery that left the
outlet congested, fed an input (a presenter steering) or set the state. These tests hold
that this never shows: in any cut into batches, with the state read, an input fed or the
outlet congested at any delivery, the outputs, effects and states are those of
``receive`` one input at a time.

Tests the private module ``agentcore._journal.conversation``: its runs of deltas.
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal.conversation import Conversation
from agentcore.events import InputJsonDelta, TextDelta, ThinkingDelta, UserMessage
from agentcore.loop import (
    EFFECTS,
    AgentConfigured,
    AgentPrompt,
    LoopConfig,
    conversation_processor,
    create_initial_conversation_state,
)
from agentcore.testing import rechunked, turns

DELTAS = (TextDelta, ThinkingDelta, InputJsonDelta)
SECRET = "sk-ant-api03-" + "aB_-9" * 18 + "AA"
FED = TextDelta("fed", 7, timestamp=4)
"""What a presenter feeds during a delivery (a stray delta: its error shows where it was
folded)."""


@st.composite
def runs(draw: st.DrawFn) -> list[Any]:
    """A prompt, the model's turn with its deltas split anew, and stray deltas (another
    block, a secret, no stamp, a signature) at random places."""
    turn = draw(turns(max_calls=2))
    stream = draw(rechunked([e for e in turn.events if type(e) is not UserMessage]))
    events: list[Any] = [
        AgentConfigured(LoopConfig().to_wire(), timestamp=1),
        AgentPrompt((UserMessage("u1", "go"),), timestamp=1),
        *stream,
    ]
    strays = [
        TextDelta("stray", 7, timestamp=3),
        TextDelta(f"key {SECRET} here", 0, timestamp=3),
        TextDelta("unstamped", 0),
        InputJsonDelta(f'"{SECRET}"', 0, timestamp=3),
        ThinkingDelta("sig", 0, signature="s1", timestamp=3),
    ]
    for _ in range(draw(st.integers(0, 4))):
        events.insert(draw(st.integers(2, len(events))), draw(st.sampled_from(strays)))
    return events


class Sink:
    """Records each output; at the chosen outputs reads the state, feeds ``FED``, or
    turns congested (the feeding loop relieves it; ``cause`` is the output)."""

    def __init__(self, reads: set[int], steer_at: int, congest: set[int]) -> None:
        self.log: list[Any] = []
        self.reads, self.steer_at, self.congest = reads, steer_at, congest
        self.conversation: Conversation | None = None
        self.states: list[tuple[int, Any]] = []
        self.congested = False
        self.cause: Any = None

    def send(self, output: Any) -> None:
        self.log.append(output)
        n = len(self.log)
        assert self.conversation is not None
        if n in self.reads:
            self.states.append((n, self.conversation.state))
        if n == self.steer_at:
            self.conversation.feed(FED)
        if n in self.congest:
            self.congested, self.cause = True, output


@settings(max_examples=150, deadline=None)
@given(
    events=runs(),
    cuts=st.lists(st.integers(0, 400), max_size=8),
    reads=st.sets(st.integers(1, 400), max_size=8),
    steer_at=st.integers(0, 300),
    congest=st.sets(st.integers(1, 400), max_size=8),
)
def test_runs_of_deltas_give_what_receive_gives(
    events: list[Any], cuts: list[int], reads: set[int], steer_at: int, congest: set[int]
) -> None:
    sink = Sink(reads, steer_at, congest)
    performed: list[Any] = []
    fed = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        clock=lambda: 9,
        outlet=sink,
        perform=performed.append,
    )
    sink.conversation = fed
    bounds = [0, *sorted(c % (len(events) + 1) for c in cuts), len(events)]
    for start, end in itertools.pairwise(bounds):
        batch, done = events[start:end], 0
        while done < len(batch):
            done = fed.feed_stream(batch, done)
            if sink.congested and type(sink.cause) in DELTAS and sink.cause != FED:
                # it stopped right after that delta (delivered scrubbed of any secret)
                last, cause = batch[done - 1], sink.cause
                if last.timestamp == 0:  # delivered stamped
                    last = attrs.evolve(last, timestamp=cause.timestamp)
                assert last == cause or (
                    type(last) is type(cause)
                    and last.index == cause.index
                    and "[REDACTED]" in repr(cause)
                )
            sink.congested = False  # relieved

    one = Conversation(
        conversation_processor, create_initial_conversation_state(), agent_id="a", clock=lambda: 9
    )
    expected: list[Any] = []
    effects: list[Any] = []
    states: dict[int, Any] = {}
    for event in events:
        before = len(expected)
        for output in one.receive(event):
            (effects if type(output) in EFFECTS else expected).append(output)
        for n in range(before + 1, len(expected) + 1):
            states[n] = one.state
        if before < steer_at <= len(expected):  # fed during this input's delivery
            before = len(expected)
            for output in one.receive(FED):
                (effects if type(output) in EFFECTS else expected).append(output)
            for n in range(before + 1, len(expected) + 1):
                states[n] = one.state

    assert sink.log == expected
    assert performed == effects
    assert sink.states == [(n, states[n]) for n in sorted(reads) if n <= len(expected)]
    assert fed.state == one.state
