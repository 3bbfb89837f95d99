"""The event log: every input event of every agent, numbered, append-only.

The journal is the source of truth of a conversation (DESIGN.md, principle 4). The runtime
appends each input event it folds *before* folding it, so folding the journal through a
fresh machine (``replay``) reproduces the live outputs exactly and ``state_at`` rebuilds
the machine state after any event.

Entries are ``(agent_id, seq, event)``; ``seq`` starts at 1 and grows by one per agent.
On disk (``JsonlJournal``) each entry is one JSON line::

    {"agent_id": "a1", "seq": 3, "event": {"type": "text_delta", "timestamp": 0, "data": {...}}}

Secrets never reach a journal: any string that looks like an API key (``sk-...``,
``sk-ant-...``, ``AIza...``) or an auth header value (``Bearer ...``), dict keys included,
is replaced by ``[REDACTED]`` when the entry is recorded.

fsync policy of ``JsonlJournal`` (``fsync=``):

- ``"never"``: each entry is written to the OS with one ``write`` call as it is appended.
  A crash of the process loses nothing; a crash of the machine (power, kernel) may lose
  what the OS had not yet written back.
- ``"turn"``: as ``"never"``, plus an ``fsync`` on every ``sync()`` (the runtime calls it
  when a run ends or pauses for approval), so a machine crash loses at most the turn in
  progress.
- ``"always"``: ``fsync`` after every entry; nothing acknowledged is ever lost, at the
  cost of one disk flush per event.

A crash in the middle of a write leaves a truncated last line; reading skips it (that
entry was never acknowledged) and reopening cuts it off. A malformed line anywhere else
raises ``JournalError`` naming the file and line. Reopening reads only the end of the
file: each agent's last ``seq`` is found on its first append, backwards (``tail``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from .._core.errors import ConfigurationError
from .._core.secrets import has_secret, scrub, scrub_event, scrub_wire
from .._core.wire import to_dict
from .fork import can_fork, forked_records
from .lanes import FileLock, LaneBusyError, Lanes
from .read import (
    DELTA_OF,
    JournalEntry,
    JournalError,
    Record,
    SeqCheck,
    build_entries,
    entry_problem,
    in_process_records,
    run_after,
    run_end,
    seq_problem,
)
from .read import dumps as _dumps
from .tail import LastSeqs, entries_start, repair_tail

if TYPE_CHECKING:  # the blobs are imported when a journal is made
    from .blobs import FolderBlobs, MemoryBlobs

__all__ = [
    "FsyncPolicy",
    "Journal",
    "JournalEntry",
    "JournalError",
    "JsonlJournal",
    "LaneBusyError",
    "MemoryJournal",
    "read_jsonl",
    "scrub",
    "scrub_event",
]

FsyncPolicy = Literal["never", "turn", "always"]
_FSYNC_POLICIES = ("never", "turn", "always")


@runtime_checkable
class Journal(Protocol):
    """An append-only log of input events, numbered per agent.

    A journal is the source of truth of its agents' conversations: whatever ``append``
    accepted, ``entries`` gives back, in the same order, with the same ``seq``.

    Optional, and every journal agentcore ships has them: ``claim(agent_id)`` and
    ``release(agent_id)`` (one writer per agent's lane, ``lanes``), and ``flush()`` (write
    what waits in a batch). Reading refuses a sequence that repeats, goes back or skips.
    """

    def append(self, agent_id: str, event: Any) -> int:
        """Record ``event`` as the agent's next entry; return its ``seq``, which is
        ``last_seq(agent_id) + 1``. Not idempotent: every call is a new entry. Raises
        ``JournalError`` when the event cannot be written (nothing is recorded and the
        sequence does not move) and after ``close()``."""
        ...

    def entries(self, agent_id: str | None = None, *, after: int = 0) -> Iterator[JournalEntry]:
        """The entries in append order, only ``agent_id``'s when given, and only those
        with a ``seq`` above ``after`` (what resuming from a snapshot at ``after`` folds;
        a journal should make this cost what those entries cost). Works after
        ``close()``. A corrupt entry raises ``JournalError`` after the ones before it."""
        ...

    def last_seq(self, agent_id: str) -> int:
        """The ``seq`` of the agent's latest entry, 0 when it has none. Changes nothing;
        works after ``close()``."""
        ...

    def sync(self) -> None:
        """A durability point (the runtime calls it when a run ends or pauses): what was
        appended survives what the journal's policy promises. Idempotent; does nothing
        after ``close()``."""
        ...

    def close(self) -> None:
        """Make everything appended durable and release resources. Idempotent."""
        ...


class _Sequencer:
    """Per-agent sequence numbers: the last one given, asked of ``lookup`` (the journal's
    existing entries) the first time an agent is seen."""

    __slots__ = ("_last", "_lookup")

    def __init__(self, lookup: Callable[[str], int] = lambda _agent: 0) -> None:
        self._last: dict[str, int] = {}
        self._lookup = lookup

    def last(self, agent_id: str) -> int:
        last = self._last.get(agent_id)
        if last is None:
            last = self._last[agent_id] = self._lookup(agent_id)
        return last

    def advance(self, agent_id: str, seq: int) -> None:
        self._last[agent_id] = seq

    def forget(self, agent_id: str) -> None:
        """Ask ``lookup`` again next time (the agent's entries changed behind us)."""
        self._last.pop(agent_id, None)

    def observe(self, agent_id: str, seq: int) -> None:
        if seq > self._last.get(agent_id, 0):
            self._last[agent_id] = seq


def _nothing(_agent_id: str) -> None:
    """A lane in memory is held by the journal object alone."""


def _check_after(after: int) -> None:
    if type(after) is not int:
        raise TypeError(f"after must be a seq (an integer), got {after!r}")
    if after < 0:
        raise ValueError(f"after must be a seq (at least 0), got {after!r}")


def _unwritable(agent_id: str, event: Any, exc: Exception) -> JournalError:
    return JournalError(
        f"cannot journal {type(event).__name__} for agent {agent_id!r}: "
        f"{type(exc).__name__}: {exc}; every field must be JSON data"
    )


class MemoryJournal:
    """A journal in a list; for tests and short-lived agents. Appended events are
    scrubbed of secrets; ``entries`` given to the constructor are taken as they are (they
    come from a journal). Raises ``JournalError`` for an entry whose ``agent_id`` or
    ``seq`` is wrong, and as ``Journal`` says."""

    __slots__ = ("_blobs", "_closed", "_entries", "_intern", "_lanes", "_seq")

    def __init__(self, entries: Iterable[JournalEntry] = ()) -> None:
        from .blobs import MemoryBlobs, intern_blobs

        self._entries: list[JournalEntry] = []
        self._blobs = MemoryBlobs()
        self._intern = intern_blobs
        self._seq = _Sequencer()
        self._closed = False
        self._lanes = Lanes(lambda agent: f"agent {agent!r} of {self!r}", _nothing, _nothing)
        for number, entry in enumerate(entries, 1):
            problem = (
                entry_problem(entry[0], entry[1])
                if isinstance(entry, tuple) and len(entry) == 3
                else f"expected a JournalEntry, got {entry!r}"
            )
            if problem is None and entry[1] != self._seq.last(entry[0]) + 1:
                problem = seq_problem(entry[0], entry[1], self._seq.last(entry[0]))
            if problem is not None:
                raise JournalError(f"entry {number}: {problem}")
            self._entries.append(JournalEntry(entry[0], entry[1], self._interned(entry[2])))
            self._seq.advance(entry[0], entry[1])

    def __repr__(self) -> str:
        return f"MemoryJournal(<{len(self._entries)} entries>)"

    @property
    def blobs(self) -> MemoryBlobs:
        """The media of the entries, each held once (``blobs``)."""
        return self._blobs

    def _interned(self, event: Any) -> Any:
        return self._intern(event, self._blobs) if hasattr(event, "type") else event

    def append(self, agent_id: str, event: Any) -> int:
        if self._closed:
            raise JournalError("this MemoryJournal is closed; make a new one")
        try:
            event = self._interned(scrub_event(event))
        except (TypeError, ValueError) as exc:
            raise _unwritable(agent_id, event, exc) from exc
        seq = self._seq.last(agent_id) + 1
        self._entries.append(JournalEntry(agent_id, seq, event))
        self._seq.advance(agent_id, seq)
        return seq

    def entries(self, agent_id: str | None = None, *, after: int = 0) -> Iterator[JournalEntry]:
        _check_after(after)
        entries = list(self._entries)
        if agent_id is None and after == 0:
            return iter(entries)
        return (
            e for e in entries if (agent_id is None or e.agent_id == agent_id) and e.seq > after
        )

    def last_seq(self, agent_id: str) -> int:
        return self._seq.last(agent_id)

    def claim(self, agent_id: str) -> None:
        """Become the agent's one writer in this journal (``lanes``): a second claim
        before ``release`` raises ``LaneBusyError``."""
        if self._closed:
            raise JournalError("this MemoryJournal is closed; make a new one")
        self._lanes.claim(agent_id)

    def release(self, agent_id: str) -> None:
        self._lanes.release(agent_id)

    def flush(self) -> None:
        """Nothing waits in memory."""

    def sync(self) -> None:
        """Nothing to make durable in memory."""

    def close(self) -> None:
        """Refuse later appends; the entries stay readable."""
        self._closed = True
        self._lanes.release_all()

    def __len__(self) -> int:
        return len(self._entries)


class JsonlJournal:
    """A journal in a JSON Lines file; appends continue the sequence of what is there.

    Opening an existing file reads only its end: a last line cut by a crash is cut off (an
    unterminated one that parses is kept), and each agent's last ``seq`` is found on its
    first append or ``last_seq``, by reading backwards from the end to that agent's latest
    line (once over at most, for all agents together). Raises ``ConfigurationError`` for
    an unknown ``fsync`` policy, and ``JournalError`` as ``Journal`` says, or when an
    agent's sequence runs into a line whose ``agent_id`` or ``seq`` is wrong. See the
    module docstring for what each policy guarantees after a crash.

    ``parallel`` says whether a resume from this file (``Agent.resume``, a session's
    load) reads it with a forked child while it folds: None (the default) where it is
    worth it (``fork.worth_forking``: a file of 4 MiB or more, a CPU idle), False never,
    True whenever forking is safe (``fork.can_fork``: Linux, one thread), whatever the
    file's size and the load. ``ConfigurationError`` for any other value.

    One writer per file: the first ``claim`` or ``append`` takes an exclusive ``flock``
    on ``<path>.lock`` (``lanes``), held until every lane is released, the next
    ``flush``/``sync`` for lanes held by appends alone, or ``close()``; another writer,
    in this process or another, gets ``LaneBusyError`` naming the holder. A holder that
    dies loses its lock with its process.
    """

    __slots__ = (
        "_blobs",
        "_extract",
        "_fd",
        "_fsync",
        "_lanes",
        "_lock",
        "_parallel",
        "_path",
        "_seen",
        "_seq",
    )

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        fsync: FsyncPolicy = "never",
        parallel: bool | None = None,
    ) -> None:
        from .blobs import FolderBlobs, blob_folder, extract_blobs

        if fsync not in _FSYNC_POLICIES:
            raise ConfigurationError(f"fsync must be one of {_FSYNC_POLICIES}, got {fsync!r}")
        if parallel is not None and type(parallel) is not bool:
            raise ConfigurationError(f"parallel must be True, False or None, got {parallel!r}")
        self._parallel = parallel
        self._path = Path(path)
        self._fsync = fsync
        self._seen = repair_tail(self._path)  # the size _seq knows: read, then written here
        self._seq = _Sequencer(LastSeqs(self._path, self._seen))
        self._fd: int | None = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._lock = FileLock(self._path.with_name(self._path.name + ".lock"), str(self._path))
        self._lanes = Lanes(lambda _agent: str(self._path), self._take, self._give_back)
        self._blobs = FolderBlobs(blob_folder(self._path), fsync=fsync != "never")
        self._extract = extract_blobs

    def __repr__(self) -> str:
        return f"JsonlJournal({str(self._path)!r})"

    @property
    def path(self) -> Path:
        return self._path

    @property
    def parallel(self) -> bool | None:
        """Whether a resume reads the file with a forked child: None where it is worth
        it, or the caller's choice (the class docstring)."""
        return self._parallel

    @property
    def blobs(self) -> FolderBlobs:
        """The media of the entries, one file per blob in ``<path>.blobs/`` (``blobs``);
        copy it with the file."""
        return self._blobs

    def _take(self, _agent_id: str) -> None:
        if not self._lock.held:
            self._lock.acquire()
            # another writer may have written since this object last looked: then the
            # file's size is another (writers only append; a cut tail is one unfinished)
            size = repair_tail(self._path)
            if size != self._seen:
                self._seen = size
                self._seq = _Sequencer(LastSeqs(self._path, size))

    def _give_back(self, _agent_id: str) -> None:
        if not self._lanes.held:
            self._lock.release()

    def claim(self, agent_id: str) -> None:
        """Become the agent's one writer (class docstring); ``LaneBusyError`` when
        another writer holds the file."""
        if self._fd is None:
            raise JournalError(f"journal {self._path} is closed; open a new JsonlJournal")
        self._lanes.claim(agent_id)

    def release(self, agent_id: str) -> None:
        self._lanes.release(agent_id)

    def append(self, agent_id: str, event: Any) -> int:
        if self._fd is None:
            raise JournalError(f"journal {self._path} is closed; open a new JsonlJournal")
        self._lanes.hold(agent_id)
        seq = self._seq.last(agent_id) + 1
        try:
            wire = self._extract(to_dict(event), self._blobs.put)
            record = {"agent_id": agent_id, "seq": seq, "event": wire}
            line = _dumps(record)
            if has_secret(line):  # rare: scrub the strings, never the media's bytes
                line = _dumps(scrub_wire(record))
        except (TypeError, ValueError) as exc:
            raise _unwritable(agent_id, event, exc) from exc
        except OSError as exc:
            raise JournalError(f"{self._path}: cannot store a blob of {agent_id!r}: {exc}") from exc
        self._seen += os.write(self._fd, line + b"\n")
        self._seq.advance(agent_id, seq)
        if self._fsync == "always":
            os.fsync(self._fd)
        return seq

    def entries(self, agent_id: str | None = None, *, after: int = 0) -> Iterator[JournalEntry]:
        return read_jsonl(self._path, agent_id=agent_id, after=after)

    def last_seq(self, agent_id: str) -> int:
        return self._seq.last(agent_id)

    def flush(self) -> None:
        """Every append is written to the OS as it is made: nothing waits. Ends the hold
        of lanes taken by appends alone."""
        self._lanes.release_unclaimed()

    def sync(self) -> None:
        """A durability point: ``fsync`` under the ``turn`` and ``always`` policies."""
        if self._fd is not None and self._fsync != "never":
            os.fsync(self._fd)
        self._lanes.release_unclaimed()

    def close(self) -> None:
        """Flush to disk, release the file's lock and close; idempotent. Reading still
        works afterwards."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            if self._fsync != "never":
                os.fsync(fd)
            os.close(fd)
        self._lanes.release_all()


def record_blocks(
    path: str | os.PathLike[str],
    *,
    agent_id: str | None = None,
    decode_events: bool = True,
    parallel: bool = False,
    after: int = 0,
    runs: bool = False,
) -> Iterator[list[Record]]:
    """The records of a JSONL journal file (see ``read``) in blocks of up to a few hundred,
    as ``read_jsonl`` reads them. A corrupt line, or an agent's ``seq`` that does not
    grow by one (``SeqCheck``), raises ``JournalError`` after the records before it were
    yielded. ``runs``: consecutive deltas as run records (``read.RUN_OF``)."""
    _check_after(after)
    start, exact = 0, False
    if after and agent_id is not None:
        start, exact = entries_start(Path(path), agent_id, after)
    if parallel and not start and can_fork():
        blocks = forked_records(path, agent_id, decode_events, runs)
    else:
        blocks = in_process_records(path, agent_id, decode_events, start=start, runs=runs)
    check = SeqCheck(path, after if exact else None if start else 0)
    checked = _numbered(blocks, check.check_runs if runs else check.check_records)
    if not after:
        return checked
    return _after_runs(checked, after) if runs else _after(checked, after)


def _numbered(
    blocks: Iterator[list[Record]], check: Callable[[list[Record]], list[Record]]
) -> Iterator[list[Record]]:
    for records in blocks:
        yield check(records)


def _after(blocks: Iterator[list[Record]], after: int) -> Iterator[list[Record]]:
    for records in blocks:
        kept = [record for record in records if record[1] > after]
        if kept:
            yield kept


def _after_runs(blocks: Iterator[list[Record]], after: int) -> Iterator[list[Record]]:
    """``_after`` of records that may be runs: a run across ``after`` keeps its end."""
    runs = DELTA_OF
    for records in blocks:
        kept = [
            record if record[1] > after else run_after(record, after)
            for record in records
            if record[1] > after or (record[2] in runs and run_end(record) > after)
        ]
        if kept:
            yield kept


def read_jsonl(
    path: str | os.PathLike[str],
    *,
    agent_id: str | None = None,
    decode_events: bool = True,
    parallel: bool = False,
    after: int = 0,
) -> Iterator[JournalEntry]:
    """Iterate the entries of a JSONL journal file, in file order.

    The file is read in chunks of 1 MiB, so memory stays flat whatever its size. A
    truncated last line (no newline, not valid JSON) is skipped: it is a write a crash
    interrupted. Any other malformed line raises ``JournalError`` with the file and line
    number. With ``decode_events=False`` the ``event`` of each entry is left as its wire
    dict (faster when only ids and sequence numbers are needed).

    ``after`` keeps only entries with a ``seq`` above it. With ``agent_id``, the file is
    read from where that agent's entries after ``after`` begin, found by reading it
    backwards from the end: what resuming from a snapshot needs costs what those entries
    cost, not what the file costs.

    ``parallel=True`` asks for a forked child to parse the file while this process builds
    the events: up to 1.5x faster for files of several MB on an idle multi-core machine,
    slower on a busy one or for small files. It forks only on Linux in a process that
    runs a single thread (native threads included); otherwise the file is read here,
    with the same results (see docs/journal.md).
    """
    blocks = record_blocks(
        path, agent_id=agent_id, decode_events=decode_events, parallel=parallel, after=after
    )
    for records in blocks:
        yield from build_entries(records, decode_events)
