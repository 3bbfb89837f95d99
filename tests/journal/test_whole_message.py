"""A complete message a driver hands whole is folded in one step, exactly.

``whole_message`` folds a batch that is one whole message (``message_start``, its blocks,
``message_stop``: ``message_end``) at once, the blocks by the core alone
(``fold_blocks``), and ``Conversation.feed_stream`` uses it for a batch that begins
with one when
nothing could tell (a quiet outlet, no snapshot store, no state-change handler, no
backlog). These tests hold that it never shows: the states, the outputs (the inputs
echoed as the very objects fed, in the same order), the effects performed, the
collected outputs and the journal are those of folding each input in turn, for
generated turns split into any batches, with secrets, stray deltas and batches that are
not a whole message.

Tests the private modules ``agentcore._journal.conversation`` and
``agentcore._core.agent_processor``: the whole-message fold and ``fold_blocks``.
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._core.agent_processor import (
    BLOCK_EVENTS,
    agent_processor,
    create_initial_agent_engine_state,
    fold_blocks,
)
from agentcore._journal.conversation import (
    Conversation,
    delta_lens,
    message_end,
    whole_message,
)
from agentcore.events import (
    InputJsonDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolResult,
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
from agentcore.testing import rechunked, turns

SECRET = "sk-ant-api03-" + "aB_-9" * 18 + "AA"
STRAYS = (
    TextDelta("stray", 7, timestamp=3),
    TextDelta(f"key {SECRET} here", 0, timestamp=3),
    TextDelta("unstamped", 0),
    InputJsonDelta(f'"{SECRET}"', 0, timestamp=3),
    ThinkingDelta("sig", 0, signature="s1", timestamp=3),
    MessageStart("m-stray", "model", timestamp=3),
    MessageStop(timestamp=3),
)


@st.composite
def runs(draw: st.DrawFn) -> list[Any]:
    """A configured agent's prompt and a model turn (tool calls, their results, the
    answer), deltas split anew, a secret in a text delta, unstamped inputs, and strays
    (a delta for no block, a second ``message_start``, a stop with no message) or a
    steer at random places."""
    turn = draw(turns(max_calls=2))
    stream = draw(rechunked([e for e in turn.events if type(e) is not UserMessage]))
    for i, event in enumerate(stream):
        if type(event) is TextDelta and draw(st.integers(0, 3)) == 0:
            stream[i] = TextDelta(f"{event.text} {SECRET}", event.index, timestamp=event.timestamp)
        elif draw(st.integers(0, 9)) == 0 and type(event) is not ToolResult:
            stream[i] = attrs.evolve(event, timestamp=0)
    events: list[Any] = [
        AgentConfigured(LoopConfig().to_wire(), timestamp=1),
        AgentPrompt((UserMessage("u1", "go"),), timestamp=1),
        *stream,
    ]
    for _ in range(draw(st.integers(0, 2))):
        stray = draw(st.sampled_from((*STRAYS, AgentSteer("wait", timestamp=3))))
        events.insert(draw(st.integers(2, len(events))), stray)
    return events


def _stamped(events: list[Any]) -> list[Any]:
    return [attrs.evolve(e, timestamp=9) if e.timestamp == 0 else e for e in events]


def _each(state: Any, events: list[Any], processor: Any) -> tuple[Any, list[Any]]:
    outputs: list[Any] = []
    for event in events:
        state, outs = processor(state, event)
        outputs.extend(outs)
    return state, outputs


def _same(got: list[Any], expected: list[Any], inputs: list[Any]) -> None:
    """Equal outputs, and an input echoed is the very object fed."""
    assert got == expected
    fed = {id(e) for e in inputs}
    assert [id(o) for o in got if id(o) in fed] == [id(o) for o in expected if id(o) in fed]


@settings(max_examples=150, deadline=None)
@given(events=runs(), cut=st.integers(0, 400))
def test_whole_message_is_folding_each(events: list[Any], cut: int) -> None:
    """From the state after any prefix, a whole message folded at once gives the state
    and outputs of folding each of its inputs; ``message_end`` finds exactly the batches
    that are one whole message."""
    events = _stamped(events)
    lens = delta_lens(conversation_processor)
    assert lens is not None
    prefix = events[: cut % len(events)]
    state, _ = _each(create_initial_conversation_state(), prefix, conversation_processor)
    rest = events[cut % len(events) :]
    for start, event in enumerate(rest):
        stop = message_end(rest, start) if type(event) is MessageStart else 0
        between = [type(e) in BLOCK_EVENTS for e in rest[start + 1 : stop - 1]]
        if stop:
            assert type(rest[stop - 1]) is MessageStop and all(between)
            message = rest[start:stop]
            expected_state, expected = _each(state, message, conversation_processor)
            folded = whole_message(conversation_processor, lens, state, message)
            if folded is None:  # an effect before the stop: the per-event fold stops there
                effects = [type(o) in EFFECTS for o in conversation_processor(state, message[0])[1]]
                assert any(effects)
            else:
                assert folded[0] == expected_state
                _same(folded[1], expected, message)
        elif type(event) is MessageStart:
            after = rest[start + 1 :]
            closed = next((i for i, e in enumerate(after) if type(e) not in BLOCK_EVENTS), None)
            assert closed is None or type(after[closed]) is not MessageStop
        state, _ = conversation_processor(state, event)


@settings(max_examples=150, deadline=None)
@given(events=runs(), start=st.integers(0, 400), echo=st.booleans())
def test_fold_blocks_is_the_core_on_each(events: list[Any], start: int, echo: bool) -> None:
    """The core alone: ``fold_blocks`` from any state and any input (strays included)
    is ``agent_processor`` on each input up to the first that is not a block event,
    each echoed first when asked."""
    events = _stamped(events)
    state = create_initial_agent_engine_state()
    start %= len(events)
    for event in events[:start]:
        state, _ = agent_processor(state, event)
    outputs: list[Any] = []
    folded, stop = fold_blocks(state, events, start, outputs, echo)
    assert stop == next(
        (i for i in range(start, len(events)) if type(events[i]) not in BLOCK_EVENTS),
        len(events),
    )
    expected: list[Any] = []
    for event in events[start:stop]:
        if echo:
            expected.append(event)
        state, outs = agent_processor(state, event)
        expected.extend(outs)
    assert folded == state
    _same(outputs, expected, events)


class Recording:
    """A sink that records what it is sent; ``quiet`` as given."""

    congested = False

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.sent: list[Any] = []

    def send(self, output: Any) -> None:
        self.sent.append(output)


def _conversation(quiet: bool, performed: list[Any], steers: int = 0) -> Conversation:
    """A journaled conversation; its first ``steers`` effects performed each feed a steer
    at once (an input that waits in the backlog)."""
    fed: Conversation

    def perform(effect: Any) -> None:
        performed.append(effect)
        if len(performed) <= steers:
            fed.feed(AgentSteer(f"now {len(performed)}", timestamp=4))

    fed = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        clock=itertools.count(100).__next__,
        journal=MemoryJournal(),
        outlet=Recording(quiet),
        perform=perform,
        report=lambda *failure: None,
    )
    return fed


@settings(max_examples=150, deadline=None)
@given(events=runs(), cuts=st.lists(st.integers(0, 400), max_size=6), steers=st.integers(0, 3))
def test_feeding_a_whole_message_is_feeding_each(
    events: list[Any], cuts: list[int], steers: int
) -> None:
    """A quiet conversation (which folds whole messages at once) fed ``events`` in any
    batches, its effects feeding steers or not, performs, collects and journals what a
    loud one (which folds each input) does, and ends in its state; a batch that begins
    with a whole message is folded in one step."""
    wholes: list[int] = []
    fold_whole = Conversation._fold_whole

    def counted(self: Conversation, message: list[Any]) -> list[Any] | None:
        folded = fold_whole(self, message)
        wholes.append(folded is not None)
        return folded

    loud_effects: list[Any] = []
    loud = _conversation(False, loud_effects, steers)
    quiet_effects: list[Any] = []
    quiet = _conversation(True, quiet_effects, steers)
    collected = quiet.collect()
    bounds = [0, *sorted(c % (len(events) + 1) for c in cuts), len(events)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Conversation, "_fold_whole", counted)
        for conversation in (loud, quiet):
            for start, end in itertools.pairwise(bounds):
                batch, done = events[start:end], 0
                while done < len(batch):
                    done = conversation.feed_stream(batch, done)
    assert quiet.outlet.sent == []  # type: ignore[attr-defined]
    _same(collected, loud.outlet.sent, events)  # type: ignore[attr-defined]
    assert quiet_effects == loud_effects
    assert quiet.state == loud.state
    assert quiet.seq == loud.seq
    assert [e.event for e in quiet.journal.entries("a")] == [
        e.event for e in loud.journal.entries("a")
    ]
    assert SECRET not in repr(collected)
    batches = [events[a:b] for a, b in itertools.pairwise(bounds)]
    if any(b and type(b[0]) is MessageStart and message_end(b, 0) for b in batches):
        assert wholes  # tried (an effect before a stop folds each)


def test_a_whole_message_is_one_step_and_a_partial_one_is_not() -> None:
    """The whole-message fold is taken for a batch holding a whole message, not for one
    cut inside it; both end where folding each does."""
    from agentcore.drivers.scripted import text_turn

    message = text_turn("Hello there, world", chunk=5)
    steps: list[Any] = []
    fold_whole = Conversation._fold_whole

    def counted(self: Conversation, batch: list[Any]) -> list[Any] | None:
        steps.append(len(batch))
        return fold_whole(self, batch)

    prompt = AgentPrompt((UserMessage("u1", "go"),), timestamp=1)
    states = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Conversation, "_fold_whole", counted)
        for batches in ([message], [message[:3], message[3:]]):
            fed = _conversation(True, [])
            fed.feed(prompt)
            for batch in batches:
                done = 0
                while done < len(batch):
                    done = fed.feed_stream(batch, done)
            states.append(fed.state)
    assert steps == [len(message)]
    assert states[0] == states[1]
