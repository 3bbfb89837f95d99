"""A ``Conversation`` sends nothing to a quiet sink, and answers a command with its own
outputs.

A sink whose ``quiet`` is true (an agent's ``Outlet`` with no presenter, subscriber or
interceptor) is sent no output: nothing would see it. These tests hold that this never
shows anywhere else: the effects performed, the outputs a collector gathers, the
journal and the states are those of a conversation whose sink records every output; and
that ``command(event)`` returns what ``receive(event)`` returns, not what its effects or
the inputs fed meanwhile caused.

Tests the private module ``agentcore._journal.conversation``: its quiet-sink path and
``command``.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal.conversation import Conversation
from agentcore.events import UserMessage
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


@st.composite
def runs(draw: st.DrawFn) -> list[Any]:
    """A configured agent's prompt, the model's turn with its deltas split anew, and
    steers at random places."""
    turn = draw(turns(max_calls=2))
    stream = draw(rechunked([e for e in turn.events if type(e) is not UserMessage]))
    events: list[Any] = [
        AgentConfigured(LoopConfig().to_wire(), timestamp=1),
        AgentPrompt((UserMessage("u1", "go"),), timestamp=1),
        *stream,
    ]
    for _ in range(draw(st.integers(0, 2))):
        events.insert(draw(st.integers(2, len(events))), AgentSteer("wait", timestamp=3))
    return events


class Recording:
    """A sink that records what it is sent; ``quiet`` as given."""

    congested = False

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.sent: list[Any] = []

    def send(self, output: Any) -> None:
        self.sent.append(output)


def _fed(events: list[Any], cuts: list[int], quiet: bool) -> tuple[Conversation, list[Any]]:
    """A conversation fed ``events`` in batches cut at ``cuts``, over a sink ``quiet`` or
    not, collecting; its effects are performed into the returned list."""
    performed: list[Any] = []
    conversation = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        journal=MemoryJournal(),
        outlet=Recording(quiet),
        perform=performed.append,
    )
    bounds = [0, *sorted(c % (len(events) + 1) for c in cuts), len(events)]
    for start, end in itertools.pairwise(bounds):
        batch, done = events[start:end], 0
        while done < len(batch):
            done = conversation.feed_stream(batch, done)
    return conversation, performed


@settings(max_examples=100, deadline=None)
@given(events=runs(), cuts=st.lists(st.integers(0, 400), max_size=8))
def test_a_quiet_sink_changes_nothing_but_what_it_is_sent(
    events: list[Any], cuts: list[int]
) -> None:
    loud, loud_effects = _fed(events, cuts, quiet=False)
    quiet_outlet = Recording(quiet=True)
    performed: list[Any] = []
    quiet = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        journal=MemoryJournal(),
        outlet=quiet_outlet,
        perform=performed.append,
    )
    collected = quiet.collect()
    bounds = [0, *sorted(c % (len(events) + 1) for c in cuts), len(events)]
    for start, end in itertools.pairwise(bounds):
        batch, done = events[start:end], 0
        while done < len(batch):
            done = quiet.feed_stream(batch, done)

    assert quiet_outlet.sent == []
    assert collected == loud.outlet.sent  # type: ignore[attr-defined]
    assert all(type(o) not in EFFECTS for o in collected)
    assert performed == loud_effects
    assert quiet.state == loud.state
    assert [e.event for e in quiet.journal.entries("a")] == [
        e.event for e in loud.journal.entries("a")
    ]


@settings(max_examples=60, deadline=None)
@given(events=runs(), quiet=st.booleans())
def test_a_command_answers_with_its_own_outputs(events: list[Any], quiet: bool) -> None:
    """``command(event)`` is ``receive(event)``'s outputs, effects included, even when
    its effect is performed at once and feeds the next inputs (the model's turn)."""
    one = Conversation(conversation_processor, create_initial_conversation_state(), agent_id="a")
    expected = [list(one.receive(event)) for event in events[:2]]

    rest = iter(events[2:])
    fed: Conversation

    def perform(effect: Any) -> None:  # the model answers inline: a backlog
        for event in rest:
            fed.feed(event)

    fed = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        outlet=Recording(quiet),
        perform=perform,
    )
    assert [fed.command(event) for event in events[:2]] == expected
    for event in events[2:]:
        one.receive(event)
    assert fed.state == one.state


def test_a_command_fed_while_feeding_waits_and_answers_nothing() -> None:
    """A command given while another input is folded (a subscriber steering) waits in the
    backlog: its answer is empty, and it is folded right after the input being folded."""
    answers: list[list[Any]] = []
    fed: Conversation
    steer = AgentSteer("later", timestamp=2)

    class Steering(Recording):
        def send(self, output: Any) -> None:
            super().send(output)
            if not answers:
                answers.append(fed.command(steer))

    fed = Conversation(
        conversation_processor,
        create_initial_conversation_state(),
        agent_id="a",
        journal=MemoryJournal(),
        outlet=Steering(quiet=False),
    )
    configured = AgentConfigured(LoopConfig().to_wire(), timestamp=1)
    prompt = AgentPrompt((UserMessage("u1", "go"),), timestamp=1)
    fed.command(configured)
    answer = fed.command(prompt)
    one = Conversation(conversation_processor, create_initial_conversation_state(), agent_id="a")
    one.receive(configured)
    assert answers == [[]]
    assert answer == list(one.receive(prompt))
    assert [e.event for e in fed.journal.entries("a")] == [configured, prompt, steer]
