"""Run records (``read.RUN_OF``): consecutive delta lines of one agent, kind and block read
as one record, which the folds over a file take in one step where the deltas only append
(``replay`` of a file, ``load_conversation`` of a JSONL journal). Expanded, the runs are
exactly the records read a line at a time, for any interleaving of agents, block size,
agent filter and ``after``; folds over them give the outputs and states of folding every
entry; a seq out of order inside a run is reported as the line-at-a-time reader reports it,
and so is the seq right after where a read after a seq starts.

Tests the private modules ``agentcore._journal.journal``, ``agentcore._journal.read``,
``agentcore._journal.resume``, ``agentcore._journal.tail``: the run records and the folds
that read them.
"""

from __future__ import annotations

import itertools
import pathlib
import tempfile
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal import read
from agentcore._journal import tail as _tail
from agentcore._journal.journal import record_blocks
from agentcore._journal.resume import load_conversation
from agentcore.events import InputJsonDelta, MessageStart, TextDelta, ThinkingDelta
from agentcore.journal import JournalError, JsonlJournal, MemoryJournal, dump_state, replay
from agentcore.loop import (
    AgentConfigured,
    LoopConfig,
    conversation_processor,
    create_initial_conversation_state,
)

from .test_conversation_replay import runs
from .test_delta_lines import TEXTS, Latest


@st.composite
def delta_lines(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Agents' inputs in stretches: mostly deltas of one kind and block, some other events."""
    agents = st.sampled_from(["a", "b", 'q"\\é'])
    made: list[tuple[str, Any]] = []
    for _ in range(draw(st.integers(1, 12))):
        agent = draw(agents)
        kind = draw(
            st.sampled_from([TextDelta, TextDelta, ThinkingDelta, InputJsonDelta, MessageStart])
        )
        stamp = draw(st.integers(-(2**53), 2**53))
        if kind is MessageStart:
            made.append((agent, MessageStart(draw(TEXTS), "m", timestamp=stamp)))
            continue
        index = draw(st.integers(0, 2))
        for _ in range(draw(st.integers(1, 9))):
            made.append((agent, kind(draw(TEXTS), index, timestamp=stamp + len(made))))
    return made


def _expanded(blocks: Any) -> list[Any]:
    """Every record of ``blocks``, each run as the records of its deltas."""
    records = []
    for block in blocks:
        for agent, seq, kind, timestamp, values in block:
            if kind not in read.DELTA_OF:
                records.append((agent, seq, kind, timestamp, values))
                continue
            texts, index, stamps = values
            assert len(texts) == len(stamps) >= 1
            for i, (text, stamp) in enumerate(zip(texts, stamps, strict=True)):
                delta = read.DELTA_OF[kind]
                values = (text, index, *read.DELTA_REST[delta])
                records.append((agent, seq + i, delta, int(stamp), values))
    return records


def _write(path: pathlib.Path, inputs: list[tuple[str, Any]]) -> None:
    journal = JsonlJournal(path)
    for agent_id, event in inputs:
        journal.append(agent_id, event)
    journal.close()


@settings(max_examples=80, deadline=None)
@given(
    delta_lines(),
    st.sampled_from([None, "a", "b"]),
    st.integers(0, 30),
    st.sampled_from([2, 5, 64]),
)
def test_runs_expanded_are_the_records_of_each_line(
    inputs: list[tuple[str, Any]], agent: str | None, after: int, block: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patched:
        patched.setattr(read, "BLOCK_LINES", block)
        path = pathlib.Path(tmp) / "j.jsonl"
        _write(path, inputs)
        each = _expanded(record_blocks(path, agent_id=agent, after=after))
        ran = list(record_blocks(path, agent_id=agent, after=after, runs=True))
        assert _expanded(ran) == each
        assert any(r[2] in read.DELTA_OF for b in ran for r in b) == any(
            r[2] in read.DELTA_KINDS.values() for r in each
        ), "deltas are read as runs"


@st.composite
def chunked_lanes(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Two agents' runs (``runs``), each delta cut into several, interleaved by stretches."""
    each: dict[str, list[Any]] = {}
    for agent in ("a", "b"):
        events: list[Any] = [AgentConfigured(LoopConfig().to_wire(), timestamp=1)]
        for event in draw(runs()):
            event = event if event.timestamp else attrs.evolve(event, timestamp=3)
            if type(event) in (TextDelta, ThinkingDelta, InputJsonDelta):
                field = "partial_json" if type(event) is InputJsonDelta else "text"
                chunk = getattr(event, field)
                cuts = sorted(draw(st.lists(st.integers(0, len(chunk)), max_size=4)))
                bounds = [0, *cuts, len(chunk)]
                events += [
                    attrs.evolve(event, **{field: chunk[start:end]})
                    for start, end in itertools.pairwise(bounds)
                ]
            else:
                events.append(event)
        each[agent] = events
    inputs: list[tuple[str, Any]] = []
    while any(each.values()):
        agent = draw(st.sampled_from([a for a, events in each.items() if events]))
        take = draw(st.integers(1, 8))
        inputs += [(agent, event) for event in each[agent][:take]]
        del each[agent][:take]
    return inputs


@settings(max_examples=60, deadline=None)
@given(chunked_lanes(), st.integers(0, 60), st.sampled_from([3, 64]))
def test_folds_over_runs_equal_folds_of_every_entry(
    inputs: list[tuple[str, Any]], after: int, block: int
) -> None:
    """``replay`` of the file gives the outputs of replaying its entries; resuming from
    the file, with or without a snapshot at ``after`` (inside a run or not), lands in the
    state folding its entries one by one gives."""
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patched:
        patched.setattr(read, "BLOCK_LINES", block)
        path = pathlib.Path(tmp) / "j.jsonl"
        _write(path, inputs)
        entries = list(JsonlJournal(path).entries())
        assert list(replay(path)) == list(replay(entries))
        assert list(replay(path, agent_id="b")) == list(replay(entries, agent_id="b"))
        fresh = create_initial_conversation_state(LoopConfig())
        file = JsonlJournal(path)
        for agent in ("a", "b"):
            lane = [e for e in entries if e.agent_id == agent]
            whole = load_conversation(MemoryJournal(lane), agent, conversation_processor, fresh)
            assert load_conversation(file, agent, conversation_processor, fresh) == whole
            cut = min(after, len(lane))
            head = load_conversation(
                MemoryJournal(lane[:cut]), agent, conversation_processor, fresh
            )
            store = Latest((cut, dump_state(head)) if cut else None)
            assert load_conversation(file, agent, conversation_processor, fresh, store) == whole


def _delta_line(seq: int, text: str) -> str:
    return (
        f'{{"agent_id":"a","seq":{seq},"event":{{"type":"text_delta","timestamp":1,'
        f'"data":{{"text":"{text}","index":0}}}}}}\n'
    )


@pytest.mark.parametrize("seqs", [[1, 2, 4, 5], [1, 2, 2, 3], [1, 3, 2, 4]])
def test_a_seq_out_of_order_in_a_run_is_reported_as_the_lines_reader_reports_it(
    tmp_path: pathlib.Path, seqs: list[int]
) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text("".join(_delta_line(seq, f"t{seq}") for seq in seqs))
    bad = next(i for i, seq in enumerate(seqs) if seq != i + 1)
    problem = f"agent 'a' has seq {seqs[bad]} after seq {seqs[bad - 1]}"
    for runs_read in (False, True):
        with pytest.raises(JournalError, match=problem):
            list(record_blocks(path, runs=runs_read))


@pytest.mark.parametrize(
    ("seqs", "problem"),
    [
        ([1, 2, 3, 5], "seq 5 after seq 3: seq 4 missing"),
        ([1, 2, 3, 3, 4], "seq 3 after seq 3: a duplicate"),
        ([1, 2, 3, 2, 4], "seq 2 after seq 3: a duplicate or decreasing"),
    ],
)
def test_a_read_after_a_seq_checks_the_seq_right_after_it(
    tmp_path: pathlib.Path, seqs: list[int], problem: str
) -> None:
    """Lines as ``JsonlJournal`` writes them: a read after seq 3 starts just after that
    line (``tail.entries_start``), and still checks the seq that follows it."""
    path = tmp_path / "j.jsonl"
    path.write_text("".join(_delta_line(seq, f"t{seq}") for seq in seqs))
    for runs_read in (False, True):
        with pytest.raises(JournalError, match=problem):
            list(record_blocks(path, agent_id="a", after=3, runs=runs_read))
    path.write_text("".join(_delta_line(seq, f"t{seq}") for seq in [1, 2, 3, 4, 5]))
    read_after = list(record_blocks(path, agent_id="a", after=3))
    assert [record[1] for records in read_after for record in records] == [4, 5]


def test_a_read_after_a_seq_starts_just_after_its_line(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    lines = [_delta_line(seq, f"t{seq}") for seq in range(1, 9)]
    path.write_text("".join(lines))
    start, exact = _tail.entries_start(path, "a", 5)
    assert exact and start == len("".join(lines[:5]))
    path.write_text("".join(lines).replace('"seq":5,', '"seq": 5,'))  # not as written
    assert _tail.entries_start(path, "a", 5) == (0, False)
