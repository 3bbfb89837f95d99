"""The journal: numbering, JSONL round trip, crash tolerance, secret scrubbing."""

from __future__ import annotations

import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.events import MessageStart, TextDelta, UserMessage
from agentcore.journal import (
    JournalEntry,
    JournalError,
    JsonlJournal,
    MemoryJournal,
    entries_of,
    read_jsonl,
    scrub,
)

EVENTS = [
    UserMessage(message_id="u1", content="hi", timestamp=5),
    MessageStart(message_id="m1", model="x", timestamp=6),
    TextDelta(text="hello", index=0, timestamp=7),
]


def test_memory_journal_numbers_each_agent_from_one() -> None:
    journal = MemoryJournal()
    seqs = [journal.append(agent, ev) for agent in ("a", "b") for ev in EVENTS]
    assert seqs == [1, 2, 3, 1, 2, 3]
    assert [e.seq for e in journal.entries("b")] == [1, 2, 3]
    assert [e.event for e in journal.entries("a")] == EVENTS
    assert journal.last_seq("a") == 3 and journal.last_seq("zzz") == 0


@pytest.mark.parametrize("fsync", ["never", "turn", "always"])
def test_jsonl_round_trip_and_resume(tmp_path: pathlib.Path, fsync: str) -> None:
    path = tmp_path / "j.jsonl"
    journal = JsonlJournal(path, fsync=fsync)  # type: ignore[arg-type]
    for ev in EVENTS:
        journal.append("a", ev)
    journal.sync()
    journal.close()
    journal.close()  # idempotent
    assert list(journal.entries()) == [JournalEntry("a", i, ev) for i, ev in enumerate(EVENTS, 1)]
    reopened = JsonlJournal(path)
    assert reopened.append("a", EVENTS[0]) == 4
    assert reopened.append("b", EVENTS[0]) == 1
    reopened.close()
    assert [e.seq for e in read_jsonl(path, agent_id="a")] == [1, 2, 3, 4]


def test_append_after_close_raises(tmp_path: pathlib.Path) -> None:
    journal = JsonlJournal(tmp_path / "j.jsonl")
    journal.close()
    with pytest.raises(JournalError, match="closed"):
        journal.append("a", EVENTS[0])


def test_unknown_fsync_policy_is_rejected(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="fsync must be one of"):
        JsonlJournal(tmp_path / "j.jsonl", fsync="sometimes")  # type: ignore[arg-type]


def test_truncated_last_line_is_skipped_then_cut_on_reopen(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = JsonlJournal(path)
    for ev in EVENTS:
        journal.append("a", ev)
    journal.close()
    whole = path.read_bytes()
    path.write_bytes(whole[:-20])  # a write interrupted by a crash
    assert [e.seq for e in read_jsonl(path)] == [1, 2]
    reopened = JsonlJournal(path)
    assert reopened.append("a", EVENTS[2]) == 3
    reopened.close()
    assert [e.event for e in read_jsonl(path)] == EVENTS


def test_unterminated_but_complete_last_line_is_kept(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = JsonlJournal(path)
    journal.append("a", EVENTS[0])
    journal.close()
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    reopened = JsonlJournal(path)
    assert reopened.append("a", EVENTS[1]) == 2
    reopened.close()
    assert [e.seq for e in read_jsonl(path)] == [1, 2]


def test_corrupt_middle_line_names_file_and_line(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = JsonlJournal(path)
    for ev in EVENTS:
        journal.append("a", ev)
    journal.close()
    lines = path.read_bytes().split(b"\n")
    lines[1] = b'{"agent_id": "a", "seq": 2, "event": {"type": "nope"}}'
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=r"j\.jsonl:2: corrupt journal line"):
        list(read_jsonl(path))


SECRETS = [
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
    "sk-proj-ABCDEFGHIJKLMNOPQRSTUV",
    "Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
    "AIzaSyA1234567890abcdefghijklmnopqrstuv",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_secrets_never_reach_a_journal(tmp_path: pathlib.Path, secret: str) -> None:
    event = UserMessage(message_id="u1", content=f"my key is {secret} ok")
    path = tmp_path / "j.jsonl"
    disk = JsonlJournal(path)
    disk.append("a", event)
    disk.close()
    memory = MemoryJournal()
    memory.append("a", event)
    assert secret not in path.read_text()
    for source in (path, memory):
        (entry,) = entries_of(source)
        assert entry.event.content == "my key is [REDACTED] ok"


def test_scrub_leaves_ordinary_text_alone() -> None:
    text = "skip the sk- prefix; bearer of news; task-force"
    assert scrub(text) == text


@settings(max_examples=50)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.text(max_size=20)), max_size=30))
def test_sequence_is_dense_and_monotonic_per_agent(items: list[tuple[str, str]]) -> None:
    journal = MemoryJournal()
    for agent, text in items:
        journal.append(agent, TextDelta(text=text, index=0))
    for agent in "abc":
        seqs = [e.seq for e in journal.entries(agent)]
        assert seqs == list(range(1, len(seqs) + 1))
