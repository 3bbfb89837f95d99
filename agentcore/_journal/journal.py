"""The event log: every input event of every agent, numbered, append-only.

The journal is the source of truth of a conversation (DESIGN.md, principle 3). The engine
appends each input event it feeds to the machine *before* feeding it, so folding the
journal through a fresh machine (``replay``) reproduces the live outputs exactly and
``state_at`` rebuilds the machine state after any event.

Entries are ``(agent_id, seq, event)``; ``seq`` starts at 1 and grows by one per agent.
On disk (``JsonlJournal``) each entry is one JSON line::

    {"agent_id": "a1", "seq": 3, "event": {"type": "text_delta", "timestamp": 0, "data": {...}}}

Secrets never reach a journal: any string that looks like an API key (``sk-...``,
``sk-ant-...``, ``AIza...``) or an auth header value (``Bearer ...``) is replaced by
``[REDACTED]`` when the entry is recorded.

fsync policy of ``JsonlJournal`` (``fsync=``):

- ``"never"``: each entry is written to the OS with one ``write`` call as it is appended.
  A crash of the process loses nothing; a crash of the machine (power, kernel) may lose
  what the OS had not yet written back.
- ``"turn"``: as ``"never"``, plus an ``fsync`` on every ``sync()`` (the engine calls it
  when a message is done), so a machine crash loses at most the turn in progress.
- ``"always"``: ``fsync`` after every entry; nothing acknowledged is ever lost, at the
  cost of one disk flush per event.

A crash in the middle of a write leaves a truncated last line; reading skips it (that
entry was never acknowledged). A malformed line anywhere else raises ``JournalError``
naming the file and line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from .._core.secrets import has_secret, scrub, scrub_bytes, scrub_event
from .._core.wire import to_dict
from .fork import FORK_MIN_BYTES, can_fork, forked_records
from .read import DecodeError as _DecodeError
from .read import (
    JournalEntry,
    JournalError,
    Record,
    build_entries,
    in_process_records,
    read_lines,
)
from .read import dumps as _dumps
from .read import loads as _loads

__all__ = [
    "FsyncPolicy",
    "Journal",
    "JournalEntry",
    "JournalError",
    "JsonlJournal",
    "MemoryJournal",
    "read_jsonl",
    "scrub",
    "scrub_event",
]

FsyncPolicy = Literal["never", "turn", "always"]
_FSYNC_POLICIES = ("never", "turn", "always")


@runtime_checkable
class Journal(Protocol):
    """An append-only, per-agent numbered log of input events.

    ``append`` returns the entry's ``seq`` (1, 2, 3... per agent). ``entries`` iterates in
    append order, optionally for one agent. ``sync`` is called by the engine when a message
    is done (a durability point); ``close`` releases resources and is idempotent.
    """

    def append(self, agent_id: str, event: Any) -> int: ...

    def entries(self, agent_id: str | None = None) -> Iterator[JournalEntry]: ...

    def last_seq(self, agent_id: str) -> int: ...

    def sync(self) -> None: ...

    def close(self) -> None: ...


class _Sequencer:
    """Per-agent sequence numbers: 1, 2, 3..."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[str, int] = {}

    def next(self, agent_id: str) -> int:
        seq = self._last.get(agent_id, 0) + 1
        self._last[agent_id] = seq
        return seq

    def observe(self, agent_id: str, seq: int) -> None:
        if seq > self._last.get(agent_id, 0):
            self._last[agent_id] = seq

    def last(self, agent_id: str) -> int:
        return self._last.get(agent_id, 0)


class MemoryJournal:
    """A journal in a list; for tests and short-lived engines. Events are scrubbed."""

    __slots__ = ("_entries", "_seq")

    def __init__(self, entries: Iterable[JournalEntry] = ()) -> None:
        self._entries: list[JournalEntry] = []
        self._seq = _Sequencer()
        for entry in entries:
            self._entries.append(entry)
            self._seq.observe(entry.agent_id, entry.seq)

    def append(self, agent_id: str, event: Any) -> int:
        seq = self._seq.next(agent_id)
        self._entries.append(JournalEntry(agent_id, seq, scrub_event(event)))
        return seq

    def entries(self, agent_id: str | None = None) -> Iterator[JournalEntry]:
        if agent_id is None:
            return iter(list(self._entries))
        return (e for e in list(self._entries) if e.agent_id == agent_id)

    def last_seq(self, agent_id: str) -> int:
        """The ``seq`` of the agent's latest entry (0 when it has none)."""
        return self._seq.last(agent_id)

    def sync(self) -> None:
        """Nothing to make durable in memory."""

    def close(self) -> None:
        """Nothing to release."""

    def __len__(self) -> int:
        return len(self._entries)


class JsonlJournal:
    """A journal in a JSON Lines file; appends continue the sequence of what is there.

    Raises ``ConfigurationError``-like ``ValueError`` for an unknown ``fsync`` policy and
    ``JournalError`` when appending after ``close()``. See the module docstring for what
    each policy guarantees after a crash.
    """

    __slots__ = ("_fd", "_fsync", "_path", "_seq")

    def __init__(self, path: str | os.PathLike[str], *, fsync: FsyncPolicy = "never") -> None:
        if fsync not in _FSYNC_POLICIES:
            raise ValueError(f"fsync must be one of {_FSYNC_POLICIES}, got {fsync!r}")
        self._path = Path(path)
        self._fsync = fsync
        self._seq = _Sequencer()
        if self._path.exists():
            for entry in read_jsonl(self._path, decode_events=False):
                self._seq.observe(entry.agent_id, entry.seq)
            _drop_truncated_tail(self._path)
        self._fd: int | None = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    @property
    def path(self) -> Path:
        return self._path

    def append(self, agent_id: str, event: Any) -> int:
        if self._fd is None:
            raise JournalError(f"journal {self._path} is closed; open a new JsonlJournal")
        seq = self._seq.next(agent_id)
        line = _dumps({"agent_id": agent_id, "seq": seq, "event": to_dict(event)})
        if has_secret(line):
            line = scrub_bytes(line)
        os.write(self._fd, line + b"\n")
        if self._fsync == "always":
            os.fsync(self._fd)
        return seq

    def entries(self, agent_id: str | None = None) -> Iterator[JournalEntry]:
        return read_jsonl(self._path, agent_id=agent_id)

    def last_seq(self, agent_id: str) -> int:
        """The ``seq`` of the agent's latest entry (0 when it has none)."""
        return self._seq.last(agent_id)

    def sync(self) -> None:
        """A durability point: ``fsync`` under the ``turn`` and ``always`` policies."""
        if self._fd is not None and self._fsync != "never":
            os.fsync(self._fd)

    def close(self) -> None:
        """Flush to disk and close; idempotent. Reading still works afterwards."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            if self._fsync != "never":
                os.fsync(fd)
            os.close(fd)


def _drop_truncated_tail(path: Path) -> None:
    """Before appending, end the file with a newline: an unterminated last line that parses
    is kept (terminated), one that does not (a write the crash interrupted) is cut."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    cut = data.rfind(b"\n") + 1
    with path.open("rb+") as f:
        try:
            _loads(data[cut:])
        except _DecodeError:
            f.truncate(cut)
        else:
            f.seek(0, os.SEEK_END)
            f.write(b"\n")


def record_blocks(
    path: str | os.PathLike[str],
    *,
    agent_id: str | None = None,
    decode_events: bool = True,
    parallel: bool | None = None,
) -> Iterator[list[Record]]:
    """The records of a JSONL journal file (see ``_journal_read``) in blocks of up to a
    few hundred, parsed here or by a forked child as ``read_jsonl`` describes. A corrupt
    line raises ``JournalError`` after the records before it were yielded."""
    fork = os.path.getsize(path) >= FORK_MIN_BYTES if parallel is None else parallel
    if fork and can_fork():
        return forked_records(path, agent_id, decode_events)
    return in_process_records(path, read_lines(path), 0, agent_id, decode_events)


def read_jsonl(
    path: str | os.PathLike[str],
    *,
    agent_id: str | None = None,
    decode_events: bool = True,
    parallel: bool | None = None,
) -> Iterator[JournalEntry]:
    """Iterate the entries of a JSONL journal file, in file order.

    A truncated last line (no newline, not valid JSON) is skipped: it is a write a crash
    interrupted. Any other malformed line raises ``JournalError`` with the file and line
    number. With ``decode_events=False`` the ``event`` of each entry is left as its wire
    dict (faster when only ids and sequence numbers are needed).

    ``parallel`` chooses whether a forked child parses the file while this process builds
    the events: ``None`` (the default) for files of ``FORK_MIN_BYTES`` (8 MB) or more,
    ``True`` for any file, ``False`` never. Forking happens only on Linux in a
    single-threaded process; otherwise the file is read here (see docs/journal.md).
    """
    blocks = record_blocks(path, agent_id=agent_id, decode_events=decode_events, parallel=parallel)
    for records in blocks:
        yield from build_entries(records, decode_events)
