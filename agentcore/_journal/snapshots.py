"""Snapshots of agents' states, so that resuming folds only the end of a journal.

A snapshot is an agent's state after its journal entry ``seq``, as bytes the caller
serialised (they are opaque here). To resume, the runtime takes the newest snapshot at or
before the journal's last ``seq``, rebuilds the state from it and folds only the entries
after it. The journal stays the source of truth (DESIGN.md, principle 4): a missing or
damaged snapshot costs time, never correctness.

A store keeps the newest ``keep`` snapshots of each agent (older ones are deleted as new
ones are saved), and forgets those after a ``seq`` saved anew: a journal only grows, so a
save below an existing snapshot means the journal lost the entries that snapshot covers
(a machine crash under ``fsync="never"``), and the snapshot describes a past that is no
longer there. One writer per agent, as for a journal.
"""

from __future__ import annotations

import contextlib
import os
import struct
import zlib
from pathlib import Path
from typing import Protocol, runtime_checkable

from .._core.errors import ConfigurationError
from .read import JournalError, entry_problem

__all__ = ["FileSnapshots", "MemorySnapshots", "SnapshotStore"]


@runtime_checkable
class SnapshotStore(Protocol):
    """Per-agent snapshots: ``(seq, state bytes)``, the newest few of each agent."""

    def save(self, agent_id: str, seq: int, state: bytes) -> None:
        """Store ``state`` as the agent's state after its entry ``seq``. Replaces a
        snapshot at the same ``seq`` (saving the same one twice is harmless), forgets the
        agent's snapshots after ``seq`` and the ones older than the newest ``keep``. When
        it returns, the snapshot is as durable as the store can make it. Raises
        ``TypeError``/``ValueError`` for a wrong argument, ``JournalError`` after
        ``close()``."""
        ...

    def latest(self, agent_id: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        """The agent's newest snapshot ``(seq, state)`` with ``seq <= at_most`` (any when
        None), or None. Pass ``at_most=journal.last_seq(agent_id)`` when resuming: a
        snapshot after the journal's end must not be used. Changes nothing; raises
        ``JournalError`` after ``close()``."""
        ...

    def delete(self, agent_id: str) -> None:
        """Forget every snapshot of the agent. Idempotent; raises ``JournalError`` after
        ``close()``."""
        ...

    def close(self) -> None:
        """Release resources. Idempotent."""
        ...


def _checked(agent_id: str, seq: int, state: bytes) -> None:
    problem = entry_problem(agent_id, seq)
    if problem is not None and type(agent_id) is str and type(seq) is int:
        raise ValueError(f"cannot save a snapshot: {problem}")
    if problem is not None:
        raise TypeError(f"cannot save a snapshot: {problem}")
    if not isinstance(state, bytes):
        raise TypeError(
            f"cannot save a snapshot: state must be bytes (serialise it first), "
            f"got {type(state).__name__}"
        )


def _check_agent(agent_id: str) -> None:
    if type(agent_id) is not str:
        raise TypeError(f"agent_id must be a string, got {agent_id!r}")


def _check_keep(keep: int) -> int:
    if type(keep) is not int or keep < 1:
        raise ConfigurationError(f"keep must be an integer of at least 1, got {keep!r}")
    return keep


def _doomed(seqs: list[int], saved: int, keep: int) -> list[int]:
    """Which of an agent's snapshots go after a save at ``saved``: those after it, and
    those older than the newest ``keep``."""
    ordered = sorted(seqs, reverse=True)
    return [seq for seq in ordered if seq > saved] + [s for s in ordered if s <= saved][keep:]


def _check_at_most(at_most: int | None) -> None:
    if at_most is not None and type(at_most) is not int:
        raise TypeError(f"at_most must be an integer or None, got {at_most!r}")


class MemorySnapshots:
    """Snapshots in a dict; for tests and for agents that resume within one process."""

    __slots__ = ("_closed", "_keep", "_snapshots")

    def __init__(self, *, keep: int = 2) -> None:
        self._keep = _check_keep(keep)
        self._snapshots: dict[str, dict[int, bytes]] = {}
        self._closed = False

    def _open(self, agent_id: str) -> None:
        if self._closed:
            raise JournalError("this MemorySnapshots is closed; make a new one")
        _check_agent(agent_id)

    def save(self, agent_id: str, seq: int, state: bytes) -> None:
        self._open(agent_id)
        _checked(agent_id, seq, state)
        kept = self._snapshots.setdefault(agent_id, {})
        kept[seq] = state
        for old in _doomed(list(kept), seq, self._keep):
            del kept[old]

    def latest(self, agent_id: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        self._open(agent_id)
        _check_at_most(at_most)
        kept = self._snapshots.get(agent_id, {})
        seqs = [seq for seq in kept if at_most is None or seq <= at_most]
        return (max(seqs), kept[max(seqs)]) if seqs else None

    def delete(self, agent_id: str) -> None:
        self._open(agent_id)
        self._snapshots.pop(agent_id, None)

    def close(self) -> None:
        self._closed = True


_MAGIC = b"agentcore-snapshot\n"
_HEADER = struct.Struct(">IQ")  # CRC-32 and length of the state
_SUFFIX = ".snap"
_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_-")
_LONGEST_NAME = 100


def _agent_dir_name(agent_id: str) -> str:
    """A folder name for the agent, the same for one id only, even on file systems that
    ignore case: every byte outside ``[a-z0-9_-]`` as ``%XX``; an empty or long result is
    replaced by ``~`` and the id's SHA-256 (``~`` itself is always escaped)."""
    raw = agent_id.encode("utf-8", "surrogatepass")
    name = "".join(chr(b) if b in _SAFE else f"%{b:02X}" for b in raw)
    if not name or len(name) > _LONGEST_NAME:
        import hashlib  # only for an agent id that is no plain file name

        return "~" + hashlib.sha256(raw).hexdigest()
    return name


def _fsync_dir(path: Path) -> None:
    """Make a rename or a new entry in ``path`` durable, where the platform allows."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms that cannot open a folder
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


class FileSnapshots:
    """Snapshots in a folder: one subfolder per agent, one file per snapshot, named after
    its ``seq`` (``directory/<agent>/<seq>.snap``).

    Each file is written atomically: to a temporary file in the same folder, ``fsync``,
    then renamed over its name (and the folder ``fsync``-ed), so a crash in the middle of
    a save leaves the previous snapshots as they were. Each file carries its length and
    CRC-32: one that fails the check (damaged on disk) is skipped and the next older one
    used. Temporary files a crash left behind are removed by the agent's next save.
    ``keep`` (default 2, at least 1) is how many snapshots of each agent are kept.
    """

    __slots__ = ("_closed", "_directory", "_keep")

    def __init__(self, directory: str | os.PathLike[str], *, keep: int = 2) -> None:
        self._keep = _check_keep(keep)
        self._directory = Path(directory)
        self._directory.mkdir(parents=True, exist_ok=True)
        self._closed = False

    @property
    def directory(self) -> Path:
        return self._directory

    def _agent_dir(self, agent_id: str) -> Path:
        if self._closed:
            raise JournalError(f"snapshot store {self._directory} is closed; open a new one")
        _check_agent(agent_id)
        return self._directory / _agent_dir_name(agent_id)

    def save(self, agent_id: str, seq: int, state: bytes) -> None:
        folder = self._agent_dir(agent_id)
        _checked(agent_id, seq, state)
        if not folder.is_dir():
            folder.mkdir(exist_ok=True)
            _fsync_dir(self._directory)
        header = _MAGIC + _HEADER.pack(zlib.crc32(state), len(state))
        import tempfile  # with shutil and random: only a snapshot written needs them

        fd, temporary = tempfile.mkstemp(prefix=f".{seq}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(state)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, folder / f"{seq}{_SUFFIX}")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        self._prune(folder, seq)
        _fsync_dir(folder)

    def _prune(self, folder: Path, saved: int) -> None:
        """Delete the snapshots after ``saved``, those older than the newest ``keep``,
        and temporary files other saves left."""
        for seq in _doomed(self._seqs(folder), saved, self._keep):
            with contextlib.suppress(FileNotFoundError):
                (folder / f"{seq}{_SUFFIX}").unlink()
        for name in os.listdir(folder):
            if name.startswith(".") and name.endswith(".tmp"):
                with contextlib.suppress(FileNotFoundError):
                    (folder / name).unlink()

    @staticmethod
    def _seqs(folder: Path) -> list[int]:
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            return []
        return [
            int(name[: -len(_SUFFIX)])
            for name in names
            if name.endswith(_SUFFIX) and name[: -len(_SUFFIX)].isdigit()
        ]

    def latest(self, agent_id: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        folder = self._agent_dir(agent_id)
        _check_at_most(at_most)
        for seq in sorted(self._seqs(folder), reverse=True):
            if at_most is not None and seq > at_most:
                continue
            state = _read_snapshot(folder / f"{seq}{_SUFFIX}")
            if state is not None:
                return seq, state
        return None

    def delete(self, agent_id: str) -> None:
        folder = self._agent_dir(agent_id)
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            return
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                (folder / name).unlink()
        with contextlib.suppress(FileNotFoundError):
            folder.rmdir()
        _fsync_dir(self._directory)

    def close(self) -> None:
        self._closed = True


def _read_snapshot(path: Path) -> bytes | None:
    """The state in a snapshot file, or None when it is gone or fails its check."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    start = len(_MAGIC) + _HEADER.size
    if len(data) < start or not data.startswith(_MAGIC):
        return None
    crc, length = _HEADER.unpack_from(data, len(_MAGIC))
    state = data[start:]
    if len(state) != length or zlib.crc32(state) != crc:
        return None
    return state
