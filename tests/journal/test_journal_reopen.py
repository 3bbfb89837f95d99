"""Reopening a JSONL journal reads only its end: each agent's sequence continues exactly,
found backwards on demand, and the tail a crash cut is repaired.

Tests the private modules ``agentcore._journal.tail`` and ``agentcore._journal.read``:
reading a JSONL journal from its end."""

from __future__ import annotations

import pathlib
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal import tail as _tail
from agentcore._journal.read import dumps
from agentcore.events import TextDelta, to_dict
from agentcore.journal import JournalError, JsonlJournal, MemoryJournal, read_jsonl


def _bytes_read() -> int:
    """Bytes this process has read through system calls so far (Linux)."""
    with open("/proc/self/io", "rb") as f:
        for line in f:
            if line.startswith(b"rchar:"):
                return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")  # pragma: no cover


def _line(agent: str, seq: int, text: str) -> bytes:
    event = to_dict(TextDelta(text=text, index=0, timestamp=seq))
    return dumps({"agent_id": agent, "seq": seq, "event": event})


def _large_journal(path: pathlib.Path, lines: int) -> dict[str, int]:
    """``early`` appears only in the first line; ``a``, ``b`` and ``c`` take turns after
    it. The last seq of each agent."""
    last = {"early": 1}
    out = [_line("early", 1, "first")]
    for number in range(lines):
        agent = "abc"[number % 3]
        last[agent] = last.get(agent, 0) + 1
        out.append(_line(agent, last[agent], "x" * 80))
    path.write_bytes(b"\n".join(out) + b"\n")
    return last


@pytest.mark.skipif(not pathlib.Path("/proc/self/io").exists(), reason="needs /proc/self/io")
def test_reopening_reads_the_tail_and_the_rest_only_when_an_agent_needs_it(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "j.jsonl"
    last = _large_journal(path, 100_000)
    size = path.stat().st_size
    assert size > 13_000_000

    before = _bytes_read()
    journal = JsonlJournal(path)
    for agent in "cab":
        assert journal.append(agent, TextDelta("new", 0)) == last[agent] + 1
    assert journal.last_seq("a") == last["a"] + 1
    tail_cost = _bytes_read() - before
    assert tail_cost < 4 * _tail.SCAN_BYTES  # the last line of each of three agents

    before = _bytes_read()
    assert journal.last_seq("early") == 1  # only in the first line: one read of the rest
    assert journal.last_seq("never-seen") == 0  # everything is known by now: no read
    assert journal.append("early", TextDelta("again", 0)) == 2
    whole_cost = _bytes_read() - before
    assert size - 4 * _tail.SCAN_BYTES < whole_cost < size + _tail.SCAN_BYTES
    journal.close()

    seqs: dict[str, list[int]] = {}
    for entry in read_jsonl(path, decode_events=False):
        seqs.setdefault(entry.agent_id, []).append(entry.seq)
    assert all(s == list(range(1, len(s) + 1)) for s in seqs.values())


_AGENTS = ("a", "b", "long-agent-name", "d\u00e9j\u00e0", "e\ud83d")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_AGENTS), st.integers(0, 300)), min_size=0, max_size=60),
    st.permutations(_AGENTS),
    st.integers(1, 400),
    st.sampled_from([b"", b"\n", b'{"agent_id": "a", "se']),
)
def test_sequences_continue_exactly_for_interleaved_agents(
    appended: list[tuple[str, int]], order: list[str], scan_bytes: int, tail: bytes
) -> None:
    """Lines of any length, read back in blocks of any size: every agent continues its
    own sequence, and an agent the file never held starts at 1."""
    default, _tail.SCAN_BYTES = _tail.SCAN_BYTES, scan_bytes
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "j.jsonl"
            journal = JsonlJournal(path)
            for agent, length in appended:
                journal.append(agent, TextDelta("y" * length, 0))
            journal.close()
            with path.open("ab") as f:
                f.write(tail)  # an empty line, or a write a crash cut short
            counts = {agent: sum(1 for a, _ in appended if a == agent) for agent in _AGENTS}
            reopened = JsonlJournal(path)
            for agent in order:
                assert reopened.append(agent, TextDelta("z", 0)) == counts[agent] + 1
                assert reopened.last_seq(agent) == counts[agent] + 1
            assert reopened.last_seq("nobody") == 0
            reopened.close()
            got = [(e.agent_id, e.seq) for e in read_jsonl(path)]
            assert len(got) == len(appended) + len(_AGENTS)
            for agent in _AGENTS:
                mine = [seq for a, seq in got if a == agent]
                assert mine == list(range(1, counts[agent] + 2))
    finally:
        _tail.SCAN_BYTES = default


@pytest.mark.parametrize(
    "bad",
    [
        b'{"agent_id":"b","seq":"2","event":{}}',
        b'{"agent_id":"b","seq":-2,"event":{}}',
        b'{"agent_id":"b","seq":true,"event":{}}',
        b'{"agent_id":7,"seq":2,"event":{}}',
        b'{"agent_id":"b","event":{}}',
        b"[1, 2]",
        b"not json",
    ],
)
def test_an_agents_sequence_stops_at_a_bad_line_with_its_file_and_number(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, bad: bytes
) -> None:
    monkeypatch.setattr(_tail, "SCAN_BYTES", 64)
    path = tmp_path / "j.jsonl"
    lines = [_line("b", 1, "x")] + [_line("a", n, "x") for n in range(1, 40)]
    lines[20] = bad
    path.write_bytes(b"\n".join(lines) + b"\n")
    journal = JsonlJournal(path)  # reading the tail only: the bad line is not reached
    assert journal.append("a", TextDelta("t", 0)) == 40  # after the bad line: no harm
    for _ in range(2):  # and again: the scan does not skip the bad line's neighbours
        with pytest.raises(JournalError, match=r"j\.jsonl:21: corrupt journal line"):
            journal.append("b", TextDelta("t", 0))
    journal.close()
    with pytest.raises(JournalError, match=r"j\.jsonl:21: corrupt journal line"):
        list(read_jsonl(path))


def test_a_cut_last_line_longer_than_a_block_is_cut_whole(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_tail, "SCAN_BYTES", 16)
    path = tmp_path / "j.jsonl"
    journal = JsonlJournal(path)
    journal.append("a", TextDelta("short", 0))
    journal.append("a", TextDelta("long " * 50, 0))
    journal.close()
    whole = path.read_bytes()
    path.write_bytes(whole[:-30])
    reopened = JsonlJournal(path)
    assert reopened.append("a", TextDelta("again", 0)) == 2
    reopened.close()
    assert [e.event.text for e in read_jsonl(path)] == ["short", "again"]


def test_a_complete_unterminated_last_line_with_escapes_is_kept(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = JsonlJournal(path)
    journal.append("a", TextDelta("lone \ud83d", 0))
    journal.close()
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    reopened = JsonlJournal(path)
    assert reopened.append("a", TextDelta("next", 0)) == 2
    reopened.close()
    assert [e.event.text for e in read_jsonl(path)] == ["lone \ud83d", "next"]


@pytest.mark.skipif(not pathlib.Path("/proc/self/io").exists(), reason="needs /proc/self/io")
def test_an_agents_entries_after_a_seq_cost_what_they_cost(tmp_path: pathlib.Path) -> None:
    """What resuming from a snapshot reads: the end of the file, not all of it."""
    path = tmp_path / "j.jsonl"
    last = _large_journal(path, 100_000)
    journal = JsonlJournal(path)
    before = _bytes_read()
    tail = list(journal.entries("b", after=last["b"] - 5))
    assert [e.seq for e in tail] == list(range(last["b"] - 4, last["b"] + 1))
    assert _bytes_read() - before < 4 * _tail.SCAN_BYTES
    assert [e.seq for e in journal.entries("early", after=0)] == [1]
    assert list(journal.entries("early", after=1)) == []  # read backwards to the first line
    journal.close()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_AGENTS), st.integers(0, 200)), max_size=60),
    st.sampled_from([*_AGENTS, None]),
    st.integers(0, 25),
    st.integers(1, 400),
)
def test_entries_after_a_seq_are_the_ones_a_whole_read_finds(
    appended: list[tuple[str, int]], agent: str | None, after: int, scan_bytes: int
) -> None:
    default, _tail.SCAN_BYTES = _tail.SCAN_BYTES, scan_bytes
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "j.jsonl"
            journal, memory = JsonlJournal(path), MemoryJournal()
            for who, length in appended:
                journal.append(who, TextDelta("y" * length, 0))
                memory.append(who, TextDelta("y" * length, 0))
            expected = [
                e
                for e in read_jsonl(path)
                if (agent is None or e.agent_id == agent) and e.seq > after
            ]
            assert list(journal.entries(agent, after=after)) == expected
            assert list(read_jsonl(path, agent_id=agent, after=after, parallel=True)) == expected
            assert list(memory.entries(agent, after=after)) == expected
            journal.close()
    finally:
        _tail.SCAN_BYTES = default


def test_a_corrupt_line_after_the_seq_is_named_with_its_line_in_the_file(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_tail, "SCAN_BYTES", 256)
    path = tmp_path / "j.jsonl"
    lines = [_line("a", n, "x" * 40) for n in range(1, 200)]
    lines[190] = b'{"agent_id":"a","seq":191,"event":{"type":"text_delta"}}'
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(JournalError, match=r"j\.jsonl:191: corrupt journal line"):
        list(read_jsonl(path, agent_id="a", after=185))
    for bad in ("3", -1, 1.5):
        with pytest.raises((TypeError, ValueError), match="after must be a seq"):
            list(read_jsonl(path, agent_id="a", after=bad))  # type: ignore[arg-type]
        with pytest.raises((TypeError, ValueError), match="after must be a seq"):
            list(MemoryJournal().entries("a", after=bad))  # type: ignore[arg-type]


def test_taking_the_file_reads_its_end_again_only_when_another_wrote(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.jsonl"
    first = JsonlJournal(path)
    for _ in range(3):
        first.append("a", TextDelta("x", 0, timestamp=1))
    first.close()
    steps: list[int] = []
    step = _tail.LastSeqs._step
    monkeypatch.setattr(_tail.LastSeqs, "_step", lambda self, f: (steps.append(1), step(self, f)))
    journal = JsonlJournal(path)
    assert journal.last_seq("a") == 3 and len(steps) == 1
    journal.claim("a")  # what a resume does after looking
    assert journal.last_seq("a") == 3 and len(steps) == 1, "nobody wrote since: no read"
    assert journal.append("a", TextDelta("y", 0, timestamp=1)) == 4
    journal.release("a")
    journal.claim("a")
    assert journal.last_seq("a") == 4 and len(steps) == 1, "only this object wrote"
    journal.release("a")
    other = JsonlJournal(path)
    assert other.append("a", TextDelta("z", 0, timestamp=1)) == 5
    other.close()
    read = len(steps)
    journal.claim("a")
    assert journal.last_seq("a") == 5 and len(steps) > read, "another wrote: read again"
    assert journal.append("a", TextDelta("w", 0, timestamp=1)) == 6
    journal.close()
    assert [e.seq for e in read_jsonl(path)] == [1, 2, 3, 4, 5, 6]
