"""One writer per lane: an agent's entries in one journal are written by one writer at a time.

A *lane* is one agent's sequence in one journal (for a JSONL file, the whole file). Two
writers of one lane would hand out the same ``seq`` twice, or one of them would have its
entries refused and its conversation silently never persisted; so every journal refuses
a second live writer with ``LaneBusyError``, which names the lane and its holder.

A writer holds a lane from ``claim(agent_id)`` (what an ``Agent`` does when it opens its
journal) until ``release(agent_id)`` (its ``aclose``) or the journal's ``close()``; code
that appends without claiming holds the lane from its first ``append`` until the next
``flush()``/``sync()`` or ``close()``. Taking a lane re-reads its last ``seq`` from the
journal, so entries another writer added before stay numbered one by one.

How the lane is held across processes depends on the journal, and so does how a dead
holder's lane is taken over (docs/journal.md, "One writer per lane"): a lock file taken
with ``flock`` for JSONL and SQLite files (the operating system drops the lock of a
process that dies), a session-level advisory lock for PostgreSQL (the server drops it
when the holder's connection ends); a ``MemoryJournal`` lives in one process, where two
claims of one lane are refused.

``claim``, ``release`` and ``flush`` are optional parts of a ``Journal``: the functions
here call them when a journal has them (a journal of yours without them has no lane
protection, and its appends count as written at once).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._core.errors import ErrorCode
from .read import JournalError

__all__ = [
    "FileLock",
    "LaneBusyError",
    "Lanes",
    "claim_lane",
    "flush_journal",
    "holder_here",
    "lane_file",
    "release_lane",
]


class LaneBusyError(JournalError, RuntimeError):
    """Another live writer holds this lane (an agent's sequence in a journal): a second
    ``Agent`` on the same session, or a second process. ``lane`` names it, ``holder``
    says who holds it and since when."""

    default_code = ErrorCode.AGENT_BUSY

    def __init__(self, lane: str, holder: str) -> None:
        super().__init__(
            f"{lane} is being written by {holder}; one writer per agent: close the other "
            "writer (Agent.aclose) or wait for it to end, then open this one again",
            details={"lane": lane, "holder": holder},
        )
        self.lane = lane
        self.holder = holder


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


def holder_here(since_ms: int) -> dict[str, Any]:
    """This process as a lane's holder: pid, host, since when (ms)."""
    import socket  # when a lane is claimed: a run without a journal file never needs it

    return {"pid": os.getpid(), "host": socket.gethostname(), "since_ms": since_ms}


def describe(holder: dict[str, Any] | None) -> str:
    """A holder as a message says it."""
    if not holder:
        return "another writer (who, it did not record)"
    return f"pid {holder.get('pid')} on {holder.get('host')} since {_when(holder['since_ms'])}"


def lane_file(directory: Path, agent_id: str) -> Path:
    """The lock file of one agent's lane in ``directory`` (a digest: any agent id is a
    safe file name)."""
    import hashlib  # on the first lane claimed: a run without a journal never needs it

    digest = hashlib.sha256(agent_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return directory / f"{digest}.lock"


class FileLock:
    """An exclusive ``flock`` on a lock file, held while its descriptor is open; the file
    holds who took it (JSON), for the message a refused writer gets. A process that dies
    closes its descriptors, so the operating system releases its locks: a dead holder's
    lane is free at once. ``flock`` locks an open file description, so two handles in one
    process exclude each other as two processes do."""

    __slots__ = ("_fd", "lane", "path")

    def __init__(self, path: Path, lane: str) -> None:
        self.path = path
        self.lane = lane
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock; ``LaneBusyError`` naming the holder when another has it."""
        if self._fd is not None:
            return
        import fcntl  # Unix (flock): imported here, so that importing agentcore needs it not

        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise JournalError(f"cannot open the lock file {self.path}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise LaneBusyError(self.lane, describe(holder)) from None
        except BaseException:
            os.close(fd)
            raise
        record = json.dumps(holder_here(int(time.time() * 1000))).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, record, 0)
        self._fd = fd

    def release(self) -> None:
        """Let go of the lock (idempotent); the lock file stays, empty."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.ftruncate(fd, 0)
            os.close(fd)

    def __del__(self) -> None:
        # a journal dropped without close(): its lock goes with it, as with its process
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            os.close(fd)


def _read_holder(fd: int) -> dict[str, Any] | None:
    try:
        data = os.pread(fd, 4096, 0)
        holder = json.loads(data) if data else None
    except (OSError, ValueError):
        return None
    return holder if isinstance(holder, dict) and "since_ms" in holder else None


class Lanes:
    """The lanes one journal object writes, and whether a writer claimed each.

    ``take(agent_id)`` holds a lane against other journal objects and processes (and
    raises ``LaneBusyError`` when another holds it); ``give_back(agent_id)`` lets it go.
    Within this object, a lane claimed once is refused to a second claim until released.
    """

    __slots__ = ("_claimed", "_give_back", "_held", "_name", "_take")

    def __init__(
        self,
        name: Callable[[str], str],
        take: Callable[[str], None],
        give_back: Callable[[str], None],
    ) -> None:
        self._name = name
        self._take = take
        self._give_back = give_back
        self._held: set[str] = set()
        self._claimed: dict[str, int] = {}  # agent id -> since (ms)

    def hold(self, agent_id: str) -> None:
        """Hold the lane for an append (taking it when this object does not hold it)."""
        if agent_id not in self._held:
            self._take(agent_id)
            self._held.add(agent_id)

    def claim(self, agent_id: str) -> None:
        since = self._claimed.get(agent_id)
        if since is not None:
            here = describe(holder_here(since))
            raise LaneBusyError(self._name(agent_id), f"another writer in this process, {here}")
        self.hold(agent_id)
        self._claimed[agent_id] = int(time.time() * 1000)

    def release(self, agent_id: str) -> None:
        self._claimed.pop(agent_id, None)
        if agent_id in self._held:
            self._held.discard(agent_id)
            self._give_back(agent_id)

    def release_unclaimed(self) -> None:
        """Let go of the lanes held by appends alone (a flush or sync ends their hold)."""
        if len(self._held) > len(self._claimed):
            for agent_id in [a for a in self._held if a not in self._claimed]:
                self.release(agent_id)

    def release_all(self) -> None:
        for agent_id in list(self._held):
            self.release(agent_id)

    @property
    def held(self) -> frozenset[str]:
        return frozenset(self._held)


def claim_lane(journal: Any, agent_id: str) -> None:
    """Make the caller ``agent_id``'s one writer in ``journal`` (``LaneBusyError`` when
    another writer holds it); nothing for a journal without lanes."""
    claim = getattr(journal, "claim", None)
    if claim is not None:
        claim(agent_id)


def release_lane(journal: Any, agent_id: str) -> None:
    """Write what waits for ``agent_id`` and let its lane go (``claim_lane``)."""
    release = getattr(journal, "release", None)
    if release is not None:
        release(agent_id)


def flush_journal(journal: Any) -> None:
    """Write what a batching journal holds back, before an effect that must not be
    performed twice (a tool call that is not idempotent): after a crash, the journal then
    shows that it was asked for."""
    flush = getattr(journal, "flush", None)
    if flush is not None:
        flush()
