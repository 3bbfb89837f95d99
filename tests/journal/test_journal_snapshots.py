"""Snapshot stores: the protocol's contract on both stores, a model check, atomic saves
that survive a crash, damaged files skipped, agent ids of any shape kept apart."""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
from collections.abc import Callable

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from agentcore.errors import ConfigurationError
from agentcore.journal import FileSnapshots, JournalError, MemorySnapshots, SnapshotStore

STORES: dict[str, Callable[[pathlib.Path, int], SnapshotStore]] = {
    "memory": lambda _path, keep: MemorySnapshots(keep=keep),
    "file": lambda path, keep: FileSnapshots(path / "snapshots", keep=keep),
}
ANY_STORE = pytest.mark.parametrize("kind", list(STORES))


@ANY_STORE
def test_latest_is_the_newest_at_or_before_at_most(tmp_path: pathlib.Path, kind: str) -> None:
    store = STORES[kind](tmp_path, 3)
    assert isinstance(store, SnapshotStore)
    assert store.latest("a") is None
    for seq in (10, 20, 30):
        store.save("a", seq, f"state {seq}".encode())
    store.save("b", 25, b"b's")
    assert store.latest("a") == (30, b"state 30")
    assert store.latest("a", at_most=29) == (20, b"state 20")
    assert store.latest("a", at_most=20) == (20, b"state 20")
    assert store.latest("a", at_most=9) is None
    assert store.latest("b") == (25, b"b's")
    assert store.latest("c") is None


@ANY_STORE
def test_only_the_newest_keep_are_kept(tmp_path: pathlib.Path, kind: str) -> None:
    store = STORES[kind](tmp_path, 2)
    for seq in range(1, 8):
        store.save("a", seq, bytes([seq]))
    assert store.latest("a") == (7, b"\x07")
    assert store.latest("a", at_most=6) == (6, b"\x06")
    assert store.latest("a", at_most=5) is None
    if kind == "file":
        names = os.listdir(tmp_path / "snapshots" / "a")
        assert sorted(names) == ["6.snap", "7.snap"]


@ANY_STORE
def test_a_save_forgets_the_snapshots_after_it(tmp_path: pathlib.Path, kind: str) -> None:
    """A journal that lost its tail continues from an earlier seq: the later snapshots
    describe entries that are gone."""
    store = STORES[kind](tmp_path, 5)
    for seq in (10, 20, 30):
        store.save("a", seq, b"old timeline")
    store.save("a", 15, b"new timeline")
    assert store.latest("a") == (15, b"new timeline")
    assert store.latest("a", at_most=14) == (10, b"old timeline")
    store.save("a", 15, b"again")  # the same seq: replaced
    assert store.latest("a") == (15, b"again")


@ANY_STORE
def test_delete_close_and_bad_arguments(tmp_path: pathlib.Path, kind: str) -> None:
    store = STORES[kind](tmp_path, 2)
    store.save("a", 1, b"x")
    store.save("b", 1, b"y")
    store.delete("a")
    store.delete("a")  # idempotent
    store.delete("never")
    assert store.latest("a") is None and store.latest("b") == (1, b"y")
    for agent, seq, state, error, problem in [
        (5, 1, b"x", TypeError, "agent_id must be a string"),
        ("a", "1", b"x", TypeError, "seq must be an integer"),
        ("a", True, b"x", TypeError, "seq must be an integer"),
        ("a", 0, b"x", ValueError, "seq must be an integer of at least 1"),
        ("a", 1, "text", TypeError, "state must be bytes"),
        ("a", 1, {"a": 1}, TypeError, "state must be bytes"),
    ]:
        with pytest.raises(error, match=problem):
            store.save(agent, seq, state)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="at_most must be an integer"):
        store.latest("b", at_most="3")  # type: ignore[arg-type]
    for use in (store.latest, store.delete):
        with pytest.raises(TypeError, match="agent_id must be a string"):
            use(b"b")  # type: ignore[operator]
    store.close()
    store.close()  # idempotent
    for use in (lambda: store.save("b", 2, b"z"), lambda: store.latest("b")):
        with pytest.raises(JournalError, match="closed"):
            use()
    with pytest.raises(JournalError, match="closed"):
        store.delete("b")


@pytest.mark.parametrize("keep", [0, -1, 1.5, "2", True])
@ANY_STORE
def test_keep_must_be_a_positive_integer(tmp_path: pathlib.Path, kind: str, keep: object) -> None:
    with pytest.raises(ConfigurationError, match="keep must be an integer of at least 1"):
        STORES[kind](tmp_path, keep)  # type: ignore[arg-type]


_AGENTS = ["a", "A", "", "../up", "a/b", ".", "..", "%41", "~", "x" * 500, "y" * 500, "\ud83d"]


@ANY_STORE
def test_agent_ids_of_any_shape_are_kept_apart(tmp_path: pathlib.Path, kind: str) -> None:
    store = STORES[kind](tmp_path, 2)
    for number, agent in enumerate(_AGENTS, 1):
        store.save(agent, number, agent.encode("utf-8", "surrogatepass"))
    for number, agent in enumerate(_AGENTS, 1):
        assert store.latest(agent) == (number, agent.encode("utf-8", "surrogatepass"))
    if kind == "file":
        folders = os.listdir(tmp_path / "snapshots")
        assert len(folders) == len(_AGENTS)  # all inside the store's folder
        assert len({name.lower() for name in folders}) == len(_AGENTS)  # case-blind safe


def _crash_during_save(store: FileSnapshots, patch: str) -> None:
    """Save in a forked child that dies (``os._exit``) when it reaches ``os.<patch>``."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        setattr(os, patch, lambda *_args: os._exit(7))
        store.save("a", 2, b"new state " * 1000)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 7


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks a child to crash")
@pytest.mark.parametrize("patch", ["fsync", "replace"])
def test_a_crash_mid_save_leaves_the_previous_snapshot(tmp_path: pathlib.Path, patch: str) -> None:
    store = FileSnapshots(tmp_path, keep=1)
    store.save("a", 1, b"old state")
    _crash_during_save(store, patch)
    assert any(name.endswith(".tmp") for name in os.listdir(tmp_path / "a"))  # what it left
    reopened = FileSnapshots(tmp_path, keep=1)
    assert reopened.latest("a") == (1, b"old state")
    reopened.save("a", 3, b"newer")
    assert reopened.latest("a") == (3, b"newer")
    assert os.listdir(tmp_path / "a") == ["3.snap"]  # the leftover is cleared


def test_a_damaged_snapshot_is_skipped_for_the_one_before(tmp_path: pathlib.Path) -> None:
    store = FileSnapshots(tmp_path, keep=3)
    for seq in (1, 2, 3):
        store.save("a", seq, f"state {seq}".encode())
    newest = tmp_path / "a" / "3.snap"
    data = bytearray(newest.read_bytes())
    data[-1] ^= 0xFF
    newest.write_bytes(bytes(data))  # one bit rotten
    assert store.latest("a") == (2, b"state 2")
    (tmp_path / "a" / "2.snap").write_bytes(b"")  # emptied
    assert store.latest("a") == (1, b"state 1")
    (tmp_path / "a" / "1.snap").write_bytes(b"agentcore-snapshot\nshort")  # cut
    assert store.latest("a") is None
    (tmp_path / "a" / "notes.txt").write_text("not a snapshot")
    assert store.latest("a") is None


class SnapshotModel(RuleBasedStateMachine):
    """Both stores, and a file store reopened at any time, behave as a dict of the newest
    ``keep`` snapshots of each agent, forgetting those after a save."""

    @initialize(keep=st.integers(1, 3))
    def start(self, keep: int) -> None:
        self.keep = keep
        self.folder = tempfile.TemporaryDirectory()
        self.memory = MemorySnapshots(keep=keep)
        self.file = FileSnapshots(self.folder.name, keep=keep)
        self.model: dict[str, dict[int, bytes]] = {}

    @rule(agent=st.sampled_from(["a", "b"]), seq=st.integers(1, 12), state=st.binary(max_size=6))
    def save(self, agent: str, seq: int, state: bytes) -> None:
        self.memory.save(agent, seq, state)
        self.file.save(agent, seq, state)
        kept = {s: v for s, v in self.model.get(agent, {}).items() if s < seq}
        kept[seq] = state
        self.model[agent] = {s: kept[s] for s in sorted(kept)[-self.keep :]}

    @rule(agent=st.sampled_from(["a", "b"]), at_most=st.none() | st.integers(0, 13))
    def latest(self, agent: str, at_most: int | None) -> None:
        seqs = [s for s in self.model.get(agent, {}) if at_most is None or s <= at_most]
        expected = (max(seqs), self.model[agent][max(seqs)]) if seqs else None
        assert self.memory.latest(agent, at_most) == expected
        assert self.file.latest(agent, at_most) == expected

    @rule(agent=st.sampled_from(["a", "b"]))
    def delete(self, agent: str) -> None:
        self.memory.delete(agent)
        self.file.delete(agent)
        self.model.pop(agent, None)

    @rule()
    def reopen(self) -> None:
        self.file.close()
        self.file = FileSnapshots(self.folder.name, keep=self.keep)

    @invariant()
    def files_are_the_model(self) -> None:
        if not hasattr(self, "model"):
            return
        on_disk = {
            agent: sorted(
                int(n.removesuffix(".snap"))
                for n in os.listdir(pathlib.Path(self.folder.name) / agent)
            )
            for agent in os.listdir(self.folder.name)
        }
        assert {a: s for a, s in on_disk.items() if s} == {
            a: sorted(k) for a, k in self.model.items() if k
        }

    def teardown(self) -> None:
        if hasattr(self, "folder"):
            self.folder.cleanup()


TestSnapshotModel = SnapshotModel.TestCase
TestSnapshotModel.settings = settings(max_examples=25, stateful_step_count=20, deadline=None)
