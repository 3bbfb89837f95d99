"""Conformance checks any ``Journal`` or ``SnapshotStore`` implementation can run.

Call them from your own tests (they raise ``AssertionError`` saying what broke)::

    from agentcore.testing import check_journal, check_snapshot_store

    def test_my_journal_keeps_the_protocol(tmp_path):
        check_journal(lambda: MyJournal(tmp_path / str(uuid.uuid4())), reopen=reopen_mine)

``make_journal()`` must return a new, empty journal each time it is called.
``reopen(journal)`` (optional) closes ``journal`` and opens the same storage again: the
check then holds that nothing is lost and every agent's sequence goes on. A Hypothesis
property test (random events of every registered type, interleaved agents, syncs and
reads in between) compares the journal with a list, the model.

``second(journal)`` (optional) opens a second writer on ``journal``'s storage while
``journal`` stays open (another handle on the same file or database; for a journal that
lives in one object, the object itself): the check then holds that a lane one writer
claimed is refused to the other with ``LaneBusyError`` until it is released or its
journal closed, and a property test interleaves the two writers' claims, appends,
releases and syncs: every append is either refused with ``LaneBusyError`` or numbered
one above the last accepted one of its agent, whichever writer made it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .._core.events import TextDelta, ToolResult, UserMessage
from .._core.secrets import scrub_event
from .._core.wire import to_dict
from .._journal.journal import Journal
from .._journal.lanes import LaneBusyError, claim_lane, release_lane
from .._journal.read import JournalEntry, JournalError
from .._journal.snapshots import SnapshotStore
from .strategies import registered_events, unchecked

__all__ = ["check_journal", "check_snapshot_store"]

_SECRET = "sk-ant-api03-" + "x" * 40


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN included (a float field may hold one)."""
    if a == b:
        return True
    if isinstance(a, float) and isinstance(b, float):
        return math.isnan(a) and math.isnan(b)
    return False


def _entries(journal: Journal, agent: str | None = None, after: int = 0) -> list[JournalEntry]:
    return list(journal.entries(agent, after=after))


def _check_basics(journal: Journal) -> None:
    assert isinstance(journal, Journal), f"{journal!r} lacks a method of the Journal protocol"
    assert journal.last_seq("a") == 0, "an empty journal's last_seq must be 0"
    assert _entries(journal) == [], "an empty journal must have no entries"
    events = [UserMessage("u1", "hi", timestamp=1), TextDelta("Hel", 0, timestamp=2)]
    assert journal.append("a", events[0]) == 1, "an agent's first seq must be 1"
    assert journal.append("b", events[1]) == 1, "each agent must have its own sequence"
    assert journal.append("a", events[1]) == 2
    assert journal.last_seq("a") == 2 and journal.last_seq("b") == 1
    assert journal.last_seq("nobody") == 0
    expected = [("a", 1, events[0]), ("b", 1, events[1]), ("a", 2, events[1])]
    got = [tuple(e) for e in _entries(journal)]
    assert got == expected, f"entries must come back in append order: {got}"
    assert all(type(e) is JournalEntry for e in _entries(journal)), "entries are JournalEntry"
    assert [tuple(e) for e in _entries(journal, "a")] == [expected[0], expected[2]]
    assert [tuple(e) for e in _entries(journal, "a", after=1)] == [expected[2]]
    assert [tuple(e) for e in _entries(journal, None, after=1)] == [expected[2]]
    assert _entries(journal, "a", after=2) == []
    for bad, error in (("1", TypeError), (-1, ValueError), (1.0, TypeError)):
        try:
            _entries(journal, "a", after=bad)  # type: ignore[arg-type]
        except error:
            pass
        else:
            raise AssertionError(f"entries(after={bad!r}) must raise {error.__name__}")


def _check_secrets_and_bad_events(journal: Journal) -> None:
    seq = journal.append("s", TextDelta(f"key {_SECRET} end", 0, timestamp=1))
    (entry,) = _entries(journal, "s")
    assert entry.seq == seq and _SECRET not in entry.event.text, "a secret reached the journal"
    assert "[REDACTED]" in entry.event.text
    unwritable = unchecked(ToolResult, "c1", "ok", details={"not json": {1, 2}}, timestamp=2)
    try:
        journal.append("s", unwritable)
    except JournalError:
        pass
    else:
        raise AssertionError("an event JSON cannot hold must raise JournalError")
    assert journal.last_seq("s") == seq, "a refused append must not move the sequence"
    assert journal.append("s", TextDelta("next", 0, timestamp=3)) == seq + 1
    assert [e.seq for e in _entries(journal, "s")] == [seq, seq + 1], "a refused event was kept"


def _check_close(journal: Journal) -> None:
    journal.append("c", TextDelta("x", 0, timestamp=1))
    journal.sync()
    journal.sync()  # idempotent
    before = _entries(journal)
    journal.close()
    journal.close()  # idempotent
    journal.sync()  # nothing after close
    try:
        journal.append("c", TextDelta("y", 0, timestamp=2))
    except JournalError:
        pass
    else:
        raise AssertionError("append after close() must raise JournalError")
    assert _entries(journal) == before, "entries must still be readable after close()"
    assert journal.last_seq("c") == 1, "last_seq must work after close()"


def _check_reopen(make: Callable[[], Journal], reopen: Callable[[Journal], Journal]) -> None:
    journal = make()
    for i in range(5):
        journal.append("a" if i % 2 else "b", TextDelta(f"t{i}", 0, timestamp=i))
    before = _entries(journal)
    again = reopen(journal)
    assert _entries(again) == before, "reopening lost or changed entries"
    assert again.last_seq("a") == 2 and again.last_seq("b") == 3
    assert again.append("a", TextDelta("more", 0, timestamp=9)) == 3, "the sequence must go on"
    assert _entries(again)[:-1] == before
    again.close()


_operations = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.sampled_from(["a", "b", "c"]), registered_events()),
        st.tuples(st.just("sync"), st.none(), st.none()),
        st.tuples(st.just("read"), st.sampled_from(["a", "b", None]), st.integers(0, 6)),
    ),
    max_size=25,
)


def _check_model(make: Callable[[], Journal], examples: int) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(_operations)
    def appends_are_kept_as_a_list(operations: list[tuple[str, Any, Any]]) -> None:
        journal = make()
        model: list[tuple[str, int, Any]] = []
        try:
            for op, agent, value in operations:
                if op == "append":
                    try:
                        expected = scrub_event(value)
                    except (TypeError, ValueError):
                        continue  # not JSON data: checked by _check_secrets_and_bad_events
                    seq = journal.append(agent, value)
                    assert seq == sum(1 for m in model if m[0] == agent) + 1
                    model.append((agent, seq, expected))
                elif op == "sync":
                    journal.sync()
                else:
                    got = _entries(journal, agent, after=value)
                    want = [m for m in model if (agent is None or m[0] == agent) and m[1] > value]
                    assert len(got) == len(want), f"read {len(got)} entries, expected {len(want)}"
                    for entry, (m_agent, m_seq, m_event) in zip(got, want, strict=True):
                        assert (entry.agent_id, entry.seq) == (m_agent, m_seq)
                        assert _events_equal(entry.event, m_event), (entry.event, m_event)
            got = _entries(journal)
            assert [(e.agent_id, e.seq) for e in got] == [(m[0], m[1]) for m in model]
        finally:
            journal.close()

    appends_are_kept_as_a_list()


def _refused(call: Callable[[], object], what: str) -> LaneBusyError:
    try:
        call()
    except LaneBusyError as exc:
        return exc
    raise AssertionError(f"{what} must raise LaneBusyError")


def _check_one_writer(make: Callable[[], Journal], second: Callable[[Journal], Journal]) -> None:
    event = TextDelta("x", 0, timestamp=1)
    first = make()
    other = second(first)
    try:
        claim_lane(first, "a")
        assert first.append("a", event) == 1
        refusal = _refused(lambda: claim_lane(other, "a"), "a second claim of a claimed lane")
        assert refusal.lane and refusal.lane in str(refusal), "LaneBusyError must name the lane"
        assert refusal.holder and refusal.holder in str(refusal), "and the holder"
        if other is not first:
            _refused(lambda: other.append("a", event), "an append to a lane another claimed")
        release_lane(first, "a")
        claim_lane(other, "a")
        assert other.append("a", event) == 2, "a lane taken over must continue its sequence"
        if other is not first:
            _refused(lambda: first.append("a", event), "an append to a lane another claimed")
            other.close()  # closing lets every lane go
            claim_lane(first, "a")
            assert first.append("a", event) == 3
        seqs = [e.seq for e in first.entries("a")]
        assert seqs == list(range(1, len(seqs) + 1)), f"seqs must be unique and gapless: {seqs}"
    finally:
        other.close()
        first.close()


_writers = st.lists(
    st.tuples(
        st.integers(0, 1),
        st.sampled_from(["append", "append", "claim", "release", "sync"]),
        st.sampled_from(["a", "b"]),
    ),
    max_size=30,
)


def _check_two_writers(
    make: Callable[[], Journal], second: Callable[[Journal], Journal], examples: int
) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(_writers)
    def seqs_stay_unique(operations: list[tuple[int, str, str]]) -> None:
        first = make()
        writers = (first, second(first))
        shared = writers[0] is writers[1]
        accepted: dict[str, int] = {"a": 0, "b": 0}
        claimed: dict[str, int] = {}  # agent -> the writer that claimed it
        try:
            for number, (w, op, agent) in enumerate(operations):
                journal, holder = writers[w], claimed.get(agent)
                if op == "append":
                    try:
                        seq = journal.append(agent, TextDelta(f"{number}", 0, timestamp=number))
                    except LaneBusyError:
                        assert holder != w, "refused an append to a lane its writer claimed"
                        continue
                    assert shared or holder in (None, w), "accepted an append to a claimed lane"
                    accepted[agent] += 1
                    assert seq == accepted[agent], f"agent {agent}: seq {seq} after {seq - 1}"
                elif op == "claim":
                    try:
                        claim_lane(journal, agent)
                    except LaneBusyError:
                        continue
                    assert holder is None, "a claimed lane was claimed again"
                    claimed[agent] = w
                elif op == "release":
                    release_lane(journal, agent)
                    if holder == w or (shared and holder is not None):
                        del claimed[agent]
                else:
                    journal.sync()
            for journal in writers:
                journal.close()
            for agent, count in accepted.items():
                seqs = [e.seq for e in first.entries(agent)]
                assert seqs == list(range(1, count + 1)), f"agent {agent}: {seqs}"
        finally:
            for journal in writers:
                journal.close()

    seqs_stay_unique()


def _events_equal(a: Any, b: Any) -> bool:
    if a == b:
        return True
    return _wire_equal(to_dict(a), to_dict(b))


def _wire_equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_wire_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_wire_equal(x, y) for x, y in zip(a, b, strict=True))
    return _same(a, b)


def check_journal(
    make_journal: Callable[[], Journal],
    *,
    reopen: Callable[[Journal], Journal] | None = None,
    second: Callable[[Journal], Journal] | None = None,
    examples: int = 30,
) -> None:
    """Check that journals from ``make_journal`` keep the ``Journal`` protocol
    (docs/journal.md): sequences per agent, append order, ``after``, scrubbed secrets,
    refused events that leave no trace, ``close`` and reading afterwards, reopening (with
    ``reopen``), one writer per lane (with ``second``), and ``examples`` random runs
    against a list. Raises ``AssertionError``."""
    for check in (_check_basics, _check_secrets_and_bad_events, _check_close):
        journal = make_journal()
        try:
            check(journal)
        finally:
            journal.close()
    if reopen is not None:
        _check_reopen(make_journal, reopen)
    if second is not None:
        _check_one_writer(make_journal, second)
        _check_two_writers(make_journal, second, examples)
    _check_model(make_journal, examples)


def check_snapshot_store(make_store: Callable[[int], SnapshotStore]) -> None:
    """Check that stores from ``make_store(keep)`` (each new and empty) keep the
    ``SnapshotStore`` protocol: the newest at or before ``at_most``, ``keep``, a save
    forgetting the snapshots after it, ``delete``, bad arguments, ``close``. Raises
    ``AssertionError``."""
    store = make_store(2)
    assert isinstance(store, SnapshotStore), f"{store!r} lacks a SnapshotStore method"
    assert store.latest("a") is None
    for seq in (10, 20, 30):
        store.save("a", seq, f"state {seq}".encode())
    store.save("b", 25, b"\x00b")
    assert store.latest("a") == (30, b"state 30"), store.latest("a")
    assert store.latest("a", at_most=29) == (20, b"state 20")
    assert store.latest("a", at_most=19) is None, "keep=2 must have dropped seq 10"
    assert store.latest("b") == (25, b"\x00b")
    store.save("a", 25, b"new timeline")
    assert store.latest("a") == (25, b"new timeline"), "a save must forget later snapshots"
    store.save("a", 25, b"again")
    assert store.latest("a") == (25, b"again"), "a save at the same seq replaces it"
    store.delete("a")
    store.delete("a")
    assert store.latest("a") is None and store.latest("b") == (25, b"\x00b")
    for args, error in (
        ((5, 1, b"x"), TypeError),
        (("a", "1", b"x"), TypeError),
        (("a", 0, b"x"), ValueError),
        (("a", 1, "text"), TypeError),
    ):
        try:
            store.save(*args)
        except error:
            pass
        else:
            raise AssertionError(f"save{args!r} must raise {error.__name__}")
    store.close()
    store.close()
    try:
        store.latest("b")
    except JournalError:
        pass
    else:
        raise AssertionError("latest() after close() must raise JournalError")
