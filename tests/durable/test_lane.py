"""The durable workflow's journal lane: every input numbered, appended only past what the
journal holds (a recovered workflow folds its recorded steps again), the journal's answer
checked; a step's preview numbers inputs without keeping them.

Tests the private modules ``agentcore._durable.lane`` and
``agentcore._durable.stepping``: how a durable lane numbers its inputs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore._durable.lane import Lane
from agentcore._durable.stepping import _Numbered
from agentcore.journal import JournalError
from agentcore.loop import ClockTick


class Journal:
    def __init__(self, held: int, skew: int = 0) -> None:
        self.appended: list[tuple[str, Any]] = []
        self.held, self.skew = held, skew

    def append(self, agent_id: str, event: Any) -> int:
        self.appended.append((agent_id, event))
        return self.held + len(self.appended) + self.skew


@given(st.integers(0, 6), st.integers(0, 6), st.integers(1, 8))
def test_a_recovered_workflow_writes_only_past_the_journals_end(
    base: int, recorded: int, new: int
) -> None:
    journal = Journal(held=base + recorded)
    lane = Lane(journal)
    lane.seq, lane.written = base, base + recorded
    fresh = []
    for i in range(recorded + new):
        seq = lane.append("a", ClockTick(timestamp=10 + i))
        assert seq == base + i + 1
        fresh.append(lane.fresh)
    assert fresh == [False] * recorded + [True] * new
    assert [e.timestamp for _, e in journal.appended] == list(
        range(10 + recorded, 10 + recorded + new)
    )
    assert lane.now == 10 + recorded + new - 1


def test_another_writer_is_an_error_naming_the_agent() -> None:
    lane = Lane(Journal(held=0, skew=1))
    with pytest.raises(JournalError, match="agent 'a': journal at 2, expected 1"):
        lane.append("a", ClockTick(timestamp=1))


def test_a_preview_numbers_without_keeping() -> None:
    numbered = _Numbered(41)
    assert [numbered.append("a", ClockTick(timestamp=1)) for _ in range(3)] == [42, 43, 44]
