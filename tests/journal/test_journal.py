"""The journal: the protocol's contract, numbering, JSONL round trip, crash tolerance,
secret scrubbing, events JSON can carry but the fast writer cannot."""

from __future__ import annotations

import pathlib
import tempfile
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.errors import ConfigurationError, InvalidEventError
from agentcore.events import MessageStart, TextDelta, ToolResult, UserMessage
from agentcore.journal import (
    Journal,
    JournalEntry,
    JournalError,
    JsonlJournal,
    MemoryJournal,
    entries_of,
    read_jsonl,
    scrub,
)
from agentcore.testing import unchecked

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
    with pytest.raises(ConfigurationError, match="fsync must be one of"):
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


JOURNALS: dict[str, Callable[[pathlib.Path], Journal]] = {
    "memory": lambda _path: MemoryJournal(),
    "jsonl": lambda path: JsonlJournal(path / "j.jsonl"),
}


@pytest.mark.parametrize("kind", list(JOURNALS))
def test_every_journal_keeps_the_protocols_contract(tmp_path: pathlib.Path, kind: str) -> None:
    journal = JOURNALS[kind](tmp_path)
    assert isinstance(journal, Journal)
    assert journal.last_seq("a") == 0
    assert [journal.append("a", ev) for ev in EVENTS] == [1, 2, 3]
    assert journal.append("b", EVENTS[0]) == 1
    assert journal.last_seq("a") == 3 and journal.last_seq("b") == 1
    journal.sync()
    journal.sync()  # idempotent
    journal.close()
    journal.close()  # idempotent
    journal.sync()  # nothing to do after close
    with pytest.raises(JournalError, match="closed"):
        journal.append("a", EVENTS[0])
    assert journal.last_seq("a") == 3  # the failed append moved nothing; works after close
    assert [e.event for e in journal.entries("a")] == EVENTS
    assert [(e.agent_id, e.seq) for e in journal.entries()] == [
        ("a", 1),
        ("a", 2),
        ("a", 3),
        ("b", 1),
    ]


def test_memory_journal_rejects_entries_with_a_wrong_agent_or_seq() -> None:
    good = JournalEntry("a", 1, EVENTS[0])
    assert MemoryJournal([good]).append("a", EVENTS[1]) == 2
    for bad, problem in [
        (JournalEntry("a", "1", EVENTS[0]), "seq must be an integer"),  # type: ignore[arg-type]
        (JournalEntry("a", 0, EVENTS[0]), "seq must be an integer"),
        (JournalEntry("a", True, EVENTS[0]), "seq must be an integer"),
        (JournalEntry(5, 1, EVENTS[0]), "agent_id must be a string"),  # type: ignore[arg-type]
        ("a1", "expected a JournalEntry"),
    ]:
        with pytest.raises(JournalError, match=f"entry 2: {problem}"):
            MemoryJournal([good, bad])  # type: ignore[list-item]


def test_an_event_json_cannot_hold_is_refused_and_moves_nothing(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = JsonlJournal(path)
    journal.append("a", EVENTS[0])
    written = path.read_bytes()
    for details in ({"when": object()}, {"values": {1, 2}}):
        with pytest.raises(InvalidEventError, match="'details' must be JSON"):
            ToolResult("call-1", "ok", details=details)
        # an event its constructor would refuse, as a driver bypassing it could make
        unwritable = unchecked(ToolResult, "call-1", "ok", details=details)
        with pytest.raises(JournalError, match="cannot journal ToolResult for agent 'a'"):
            journal.append("a", unwritable)
    assert path.read_bytes() == written
    assert journal.append("a", EVENTS[1]) == 2
    journal.close()
    assert [e.seq for e in read_jsonl(path)] == [1, 2]


def test_secrets_in_dict_keys_never_reach_a_journal(tmp_path: pathlib.Path) -> None:
    secret = SECRETS[0]
    event = ToolResult("call-1", "ok", details={secret: {"nested " + SECRETS[1]: [secret]}})
    path = tmp_path / "j.jsonl"
    disk = JsonlJournal(path)
    disk.append("a", event)
    disk.close()
    memory = MemoryJournal()
    memory.append("a", event)
    assert secret not in path.read_text() and SECRETS[1] not in path.read_text()
    for source in (path, memory):
        (entry,) = entries_of(source)
        assert entry.event.details == {"[REDACTED]": {"nested [REDACTED]": ["[REDACTED]"]}}


_ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
"""Any code points, lone surrogates included (JSON escapes can carry them)."""


def _surrogate_events(text: str) -> list[object]:
    return [
        TextDelta(text=text, index=0),
        UserMessage("u1", f"smile {text}"),
        ToolResult("call-1", text, details={text: [text]}),
    ]


@pytest.mark.parametrize("parallel", [False, True], ids=["in-process", "forked"])
def test_a_lone_surrogate_is_journaled_and_read_back_exactly(
    tmp_path: pathlib.Path, parallel: bool
) -> None:
    events = _surrogate_events("\ud83d") + _surrogate_events("\ude00!")
    path = tmp_path / "j.jsonl"
    disk, memory = JsonlJournal(path), MemoryJournal()
    for journal in (disk, memory):
        assert [journal.append("a\udc80", ev) for ev in events] == list(range(1, 7))
    disk.close()
    assert path.read_bytes().isascii()  # those lines are written with escapes
    assert [e.event for e in read_jsonl(path, parallel=parallel)] == events
    assert [e.event for e in memory.entries()] == events
    assert [e.agent_id for e in read_jsonl(path, parallel=parallel)] == ["a\udc80"] * 6
    reopened = JsonlJournal(path)
    assert reopened.append("a\udc80", EVENTS[0]) == 7
    reopened.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b\ud800"]), _ANY_TEXT), max_size=12))
def test_any_text_round_trips_through_both_journals_and_readers(
    items: list[tuple[str, str]],
) -> None:
    events = [(agent, ev) for agent, text in items for ev in _surrogate_events(text)]
    memory = MemoryJournal()
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.jsonl"
        disk = JsonlJournal(path)
        for agent, event in events:
            assert disk.append(agent, event) == memory.append(agent, event)
        disk.close()
        expected = list(memory.entries())
        assert [(e.agent_id, e.event) for e in expected] == events
        for parallel in (False, True):
            assert list(read_jsonl(path, parallel=parallel)) == expected
