"""``DurableAgent``'s following, with no database: a model call's events delivered ahead
of the journal (from live batches, split anyhow) and then read from the journal give
every output once, numbered as the journal numbers it; another attempt than the one
delivered ahead is rewound (``Feed.rewound``) and the journal's outputs follow."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any, cast

import attrs
from hypothesis import given
from hypothesis import strategies as st

from agentcore import Agent, MemoryJournal
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.durable import DurableAgent, DurableClient
from agentcore.events import MessageStart, TextDelta, to_dict
from agentcore.journal import replay_steps
from agentcore.loop import create_conversation_machine
from agentcore.serve import Cursor, Feed


def _journal() -> list[Any]:
    async def run() -> list[Any]:
        journal = MemoryJournal()
        reply = text_turn("the tide is high at noon, and low at six", chunk=4)
        agent = Agent(ScriptedDriver([reply]), journal=journal, agent_id="a")
        await agent.run("tides?")
        return list(journal.entries("a"))

    return asyncio.run(run())


ENTRIES = _journal()
CALL = next(i for i, e in enumerate(ENTRIES) if type(e.event) is MessageStart)
"""Index of the model call's first event: the follower had read the entries before it."""
STREAMED = [e.event for e in ENTRIES[CALL:] if e.event.type != "agent_end"][:12]


class Numbered:
    """A presenter that records each output with the number the journal view gives it."""

    def __init__(self, agent: DurableAgent) -> None:
        self.agent = agent
        self.seen: list[tuple[int, dict[str, Any]]] = []

    def present(self, agent_id: str, output: Any) -> None:
        self.seen.append((self.agent.journal.last_seq(agent_id), to_dict(output)))


def _expected() -> list[tuple[int, dict[str, Any]]]:
    """Each output the journal replays to, with its entry's number."""
    return [
        (entry.seq, to_dict(output))
        for entry, outputs in replay_steps(ENTRIES, create_conversation_machine)
        for output in outputs
    ]


def _follower() -> tuple[DurableAgent, Numbered, list[tuple[int, int]]]:
    agent = DurableAgent(cast(DurableClient, None), "a", "d")
    numbered = Numbered(agent)
    rewound: list[tuple[int, int]] = []
    agent.presenters = (numbered,)
    agent.on_rewind = lambda first, last: rewound.append((first, last))
    for entry in ENTRIES[:CALL]:
        agent._journaled(entry)
    return agent, numbered, rewound


def _batches(events: list[Any], cuts: list[int], attempt: int) -> list[dict[str, Any]]:
    bounds = sorted({0, *cuts, len(events)})
    after = ENTRIES[CALL - 1].seq
    return [
        {"after": after, "attempt": attempt, "events": [to_dict(e) for e in events[a:b]]}
        for a, b in itertools.pairwise(bounds)
    ]


@given(st.integers(0, len(STREAMED)), st.lists(st.integers(0, len(STREAMED))))
def test_outputs_delivered_ahead_are_not_delivered_again(ahead: int, cuts: list[int]) -> None:
    agent, numbered, rewound = _follower()
    for batch in _batches(STREAMED[:ahead], [c for c in cuts if c < ahead], 1):
        agent._ahead(batch)
    for entry in ENTRIES[CALL:]:
        agent._journaled(entry)
    assert numbered.seen == _expected()
    assert rewound == [] and agent.journal.ahead == []
    assert list(agent.journal.entries()) == ENTRIES


@given(st.integers(1, len(STREAMED)), st.lists(st.integers(0, len(STREAMED))))
def test_another_attempt_than_the_one_ahead_is_rewound(ahead: int, cuts: list[int]) -> None:
    agent, numbered, rewound = _follower()
    cut_attempt = [
        attrs.evolve(e, text=e.text.upper()) if type(e) is TextDelta else e
        for e in STREAMED[:ahead]
    ]
    for batch in _batches(cut_attempt, [c for c in cuts if c < ahead], 1):
        agent._ahead(batch)
    for entry in ENTRIES[CALL:]:
        agent._journaled(entry)
    expected = _expected()
    differ = [i for i, (a, b) in enumerate(zip(cut_attempt, STREAMED, strict=False)) if a != b]
    if not differ:  # no delta in the part streamed ahead: nothing differs
        assert numbered.seen == expected and rewound == []
        return
    first = ENTRIES[CALL].seq + differ[0]  # the outputs before it were right
    assert rewound == [(first, ENTRIES[CALL].seq + ahead - 1)]
    right = [o for o in expected if o[0] < first]
    rest = [o for o in expected if o[0] >= first]
    assert numbered.seen[: len(right)] == right
    assert numbered.seen[len(numbered.seen) - len(rest) :] == rest  # after the cut attempt's


def test_a_feed_moves_a_cursor_in_a_rewound_range_back() -> None:
    feed = Feed("a", MemoryJournal(), create_conversation_machine)
    feed.rewound(5, 9)
    assert feed.resume_point(Cursor(7, 2)) == Cursor(4, 1 << 62)
    assert feed.resume_point(Cursor(4, 3)) == Cursor(4, 3)
    assert feed.resume_point(Cursor(10, 0)) == Cursor(10, 0)
    assert feed.resume_point(None) is None
