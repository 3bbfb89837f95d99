"""Reading a journal whose sequence numbers are duplicated, decreasing or missing is a
clear error naming the file (or database), the agent and the seq, on every read path:
``read_jsonl``, ``replay``, ``Agent.resume``, ``SqlJournal.entries``, ``MemoryJournal``;
a torn last line (an interrupted write) is still passed over."""

from __future__ import annotations

import asyncio
import json
import pathlib
import sqlite3
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent
from agentcore.drivers.scripted import FunctionDriver, text_turn
from agentcore.events import TextDelta, to_dict
from agentcore.journal import (
    JournalEntry,
    JournalError,
    JsonlJournal,
    LaneBusyError,
    MemoryJournal,
    SqliteJournal,
    read_jsonl,
    replay,
)


def _line(agent: str, seq: int) -> str:
    event = to_dict(TextDelta(f"t{seq}", 0, timestamp=seq))
    return json.dumps({"agent_id": agent, "seq": seq, "event": event}) + "\n"


def _write(path: pathlib.Path, pairs: list[tuple[str, int]], tail: str = "") -> None:
    path.write_text("".join(_line(a, s) for a, s in pairs) + tail)


@pytest.mark.parametrize(
    ("seqs", "problem"),
    [
        ([1, 2, 2, 3], r"seq 2 after seq 2: a duplicate"),
        ([1, 2, 3, 2], r"seq 2 after seq 3: a duplicate or decreasing"),
        ([1, 2, 4], r"seq 4 after seq 2: seq 3 missing"),
        ([2, 3], r"seq 2 after seq 0: seq 1 missing"),
        ([1, 5], r"seq 5 after seq 1: seqs 2 to 4 missing"),
    ],
)
def test_a_broken_sequence_is_refused_by_every_reader(
    tmp_path: pathlib.Path, seqs: list[int], problem: str
) -> None:
    path = tmp_path / "s1.jsonl"
    _write(path, [("other", 1)] + [("s1", s) for s in seqs] + [("other", 2)])
    for read in (
        lambda: list(read_jsonl(path)),
        lambda: list(read_jsonl(path, agent_id="s1")),
        lambda: list(read_jsonl(path, parallel=True)),
        lambda: list(JsonlJournal(path).entries()),
    ):
        with pytest.raises(JournalError, match=rf"{path}: agent 's1' has {problem}"):
            read()
    assert [e.seq for e in read_jsonl(path, agent_id="other")] == [1, 2]  # others are fine


def test_reading_after_a_seq_checks_what_it_reads(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "s1.jsonl"
    _write(path, [("s1", s) for s in [1, 2, 3, 4, 4, 5]])
    with pytest.raises(JournalError, match="seq 4 after seq 4"):
        list(read_jsonl(path, agent_id="s1", after=2))
    _write(path, [("s1", s) for s in [1, 2, 3, 4, 5]])
    assert [e.seq for e in read_jsonl(path, agent_id="s1", after=2)] == [3, 4, 5]


def test_a_torn_last_line_is_still_passed_over(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "s1.jsonl"
    _write(path, [("s1", 1), ("s1", 2)], tail=_line("s1", 3)[:25])
    assert [e.seq for e in read_jsonl(path)] == [1, 2]
    journal = JsonlJournal(path)
    assert journal.append("s1", TextDelta("x", 0, timestamp=9)) == 3
    journal.close()
    assert [e.seq for e in read_jsonl(path)] == [1, 2, 3]


def test_the_repro_two_jsonl_writers_are_refused_and_a_damaged_file_is_not_resumed(
    tmp_path: pathlib.Path,
) -> None:
    """attack/jsonl_two_writers_duplicate_seq_accepted.py: the second writer is refused;
    a file two writers damaged before this release is refused by replay and resume."""

    def model(request: Any) -> Any:
        return text_turn(f"answer to: {request.messages[-1].content}")

    path = tmp_path / "s1.jsonl"

    async def two_writers() -> None:
        a = Agent(FunctionDriver(model), journal=JsonlJournal(path), session_id="s1")
        await a.run("from A, first")
        with pytest.raises(LaneBusyError, match=str(path)):
            Agent(FunctionDriver(model), journal=JsonlJournal(path), session_id="s1")
        await a.run("from A, second")
        await a.aclose()

    asyncio.run(two_writers())
    seqs = [e.seq for e in read_jsonl(path, agent_id="s1")]
    assert seqs == list(range(1, len(seqs) + 1))

    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines + lines[3:5]))  # what two unlocked writers left behind
    with pytest.raises(JournalError, match=f"{path}: agent 's1' has seq 4 after seq {len(lines)}"):
        list(replay(path))

    async def resume() -> None:
        await Agent.resume(JsonlJournal(path), agent_id="s1", model=FunctionDriver(model))

    with pytest.raises(JournalError, match="a duplicate or decreasing seq"):
        asyncio.run(resume())


def test_a_sql_journal_with_a_missing_seq_is_refused(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "app.db"
    journal = SqliteJournal(db)
    for i in range(5):
        journal.append("s1", TextDelta(f"t{i}", 0, timestamp=i))
    journal.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM agentcore_entries WHERE agent_id = 's1' AND seq = 3")
    reader = SqliteJournal(db)
    with pytest.raises(JournalError, match=r"sqlite:.*app.db: agent 's1' has seq 4 after seq 2"):
        list(reader.entries("s1"))
    with pytest.raises(JournalError, match="seq 3 missing"):
        list(reader.entries())
    assert [e.seq for e in reader.entries("s1", after=3)] == [4, 5]
    reader.close()


def test_a_memory_journal_refuses_entries_out_of_sequence() -> None:
    event = TextDelta("x", 0, timestamp=1)
    with pytest.raises(JournalError, match="entry 3: agent 'a' has seq 2 after seq 2"):
        MemoryJournal(
            [JournalEntry("a", 1, event), JournalEntry("a", 2, event), JournalEntry("a", 2, event)]
        )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 6)), max_size=14))
def test_a_file_reads_exactly_when_each_agent_counts_up_by_one(
    tmp_path_factory: Any, pairs: list[tuple[str, int]]
) -> None:
    path = tmp_path_factory.mktemp("seq") / "j.jsonl"
    _write(path, pairs)
    last: dict[str, int] = {}
    whole = True
    for agent, seq in pairs:
        whole = whole and seq == last.get(agent, 0) + 1
        last[agent] = seq
    if whole:
        assert [(e.agent_id, e.seq) for e in read_jsonl(path)] == pairs
    else:
        with pytest.raises(JournalError, match=f"{path}: agent '[ab]' has seq"):
            list(read_jsonl(path))
