"""Replay of any run reproduces every output of every layer: ``Conversation`` directly.

A live ``Conversation`` (clock, scrubbing, a JSONL journal) is fed a random run: a
prompt, model calls streamed with tool calls and their results, steers and aborts at
random points, unstamped inputs and secrets in the stream. Then its journal is folded
again three ways, each compared with what the live one gave:

- a fresh ``Conversation`` over the journal's entries (``replayed``): every output, effect
  requests included, and the final state;
- ``catch_up`` (the delta fast path resume uses): the final state;
- ``agentcore.journal.replay`` of the file (the bulk fast path): every output but effects.

Tests the private module ``agentcore._journal.conversation``: Conversation, the one fold
(not public).
"""

from __future__ import annotations

import pathlib
import tempfile
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal.conversation import Conversation
from agentcore.events import TextDelta, UserMessage
from agentcore.journal import JsonlJournal, replay
from agentcore.loop import (
    EFFECTS,
    AgentAbort,
    AgentConfigured,
    AgentPrompt,
    AgentSteer,
    LoopConfig,
    conversation_processor,
    create_initial_conversation_state,
)
from agentcore.testing import turns

SECRET = "sk-ant-api03-" + "aB_-9" * 18 + "AA"


@st.composite
def runs(draw: st.DrawFn) -> list[Any]:
    """A prompt and the model's turn (tool calls, results), with commands and secrets
    at random places and some inputs left unstamped (timestamp 0)."""
    turn = draw(turns(max_calls=2))
    events: list[Any] = [AgentPrompt((UserMessage("u1", "go"),), timestamp=1)]
    events += [e for e in turn.events if type(e) is not UserMessage]
    for _ in range(draw(st.integers(0, 3))):
        command = draw(
            st.sampled_from([AgentSteer("wait", timestamp=5), AgentAbort("user", timestamp=5)])
        )
        events.insert(draw(st.integers(1, len(events))), command)
    if draw(st.booleans()):
        at = draw(st.integers(1, len(events)))
        events.insert(at, TextDelta(f"key {SECRET} here", 0, timestamp=7))
    unstamped = draw(st.sets(st.integers(0, len(events) - 1), max_size=4))
    return [attrs.evolve(e, timestamp=0) if i in unstamped else e for i, e in enumerate(events)]


class Recorded:
    """A sink that keeps every delivered output."""

    congested = False

    def __init__(self) -> None:
        self.outputs: list[Any] = []

    def send(self, output: Any) -> None:
        self.outputs.append(output)


def _fresh() -> Any:
    return create_initial_conversation_state(LoopConfig())


@settings(max_examples=80, deadline=None)
@given(runs())
def test_replay_of_any_run_reproduces_every_output_of_every_layer(events: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "run.jsonl"
        journal = JsonlJournal(path)
        sink, effects = Recorded(), []
        ticks = iter(range(1000, 10**6))
        live = Conversation(
            conversation_processor,
            _fresh(),
            agent_id="a",
            clock=lambda: next(ticks),
            journal=journal,
            outlet=sink,
            perform=effects.append,
        )
        every: list[Any] = []
        live.feed(AgentConfigured(LoopConfig().to_wire(), timestamp=1))
        for event in events:
            every += live.receive(event)
        journal.close()
        entries = list(JsonlJournal(path).entries("a"))
        assert [e.seq for e in entries] == list(range(1, len(events) + 2))
        assert all(e.event.timestamp for e in entries), "every input is stamped"
        assert not any(SECRET in repr(e.event) for e in entries), "and scrubbed"
        assert live.seq == len(entries)

        again = Conversation(conversation_processor, _fresh(), agent_id="a")
        replayed = [o for entry in entries for o in again.replayed(entry.event)]
        head = len(sink.outputs) + len(effects)  # the configuration's, fed and delivered
        assert replayed[head:] == every
        assert again.state == live.state

        caught_up = Conversation(conversation_processor, _fresh(), agent_id="a")
        caught_up.catch_up(entry.event for entry in entries)
        assert caught_up.state == live.state
        assert caught_up.seq == live.seq

        bulk = [output for _agent, output in replay(path)]
        assert bulk == [o for o in replayed if type(o) not in EFFECTS]


def test_feeding_delivers_what_receive_returns() -> None:
    """``feed`` is ``receive`` plus delivery: outputs to the sink, effects performed."""
    sink, effects = Recorded(), []
    fed = Conversation(
        conversation_processor, _fresh(), agent_id="a", outlet=sink, perform=effects.append
    )
    received = Conversation(conversation_processor, _fresh(), agent_id="a")
    inputs = [
        AgentConfigured(LoopConfig().to_wire(), timestamp=1),
        AgentPrompt((UserMessage("u1", "hi"),), timestamp=2),
    ]
    outputs = [o for e in inputs for o in received.receive(e)]
    fed.feed_all(inputs)
    assert effects and sink.outputs
    assert sorted(map(repr, sink.outputs + effects)) == sorted(map(repr, outputs))
    assert fed.state == received.state


def test_an_unstamped_input_needs_a_clock() -> None:
    conversation = Conversation(conversation_processor, _fresh(), agent_id="a")
    try:
        conversation.receive(AgentAbort("user"))
    except TypeError as exc:
        assert "without clock=" in str(exc)
    else:
        raise AssertionError("an input with timestamp 0 was folded unstamped")


def test_a_failing_journal_is_raised_without_a_reporter_and_reported_with_one() -> None:
    class Broken:
        def append(self, agent_id: str, event: Any) -> int:
            raise OSError("disk full")

    reports: list[Any] = []
    reported = Conversation(
        conversation_processor,
        _fresh(),
        agent_id="a",
        journal=Broken(),
        report=lambda *failure: reports.append(failure),
    )
    reported.receive(AgentPrompt((UserMessage("u1", "hi"),), timestamp=2))
    assert [r[0] for r in reports] == ["journal"]
    assert reported.state != _fresh(), "the input was folded anyway"
    strict = Conversation(conversation_processor, _fresh(), agent_id="a", journal=Broken())
    try:
        strict.receive(AgentPrompt((UserMessage("u1", "hi"),), timestamp=2))
    except OSError:
        pass
    else:
        raise AssertionError("a journal failure was swallowed with no reporter")
    assert strict.state == _fresh(), "nothing is folded that was not journaled"
