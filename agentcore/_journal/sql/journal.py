"""``SqlJournal``: the ``Journal`` protocol over a database (SQLite or PostgreSQL).

Each entry is a row of ``agentcore_entries``: ``(agent_id, seq, pos, event)``, ``pos``
giving the append order across agents, the event as JSON text (``rows``); the bytes of
its media are rows of ``agentcore_blobs``, written once each, in the same transaction
(``blobs``). The session
tables (``tally``) are written in the same transaction as the entries they count.

Batching (``batch=N``): appends wait in memory until ``N`` of them are there, or until
``sync()``, ``close()`` or a read (``entries``, ``Sessions``), then are written in one
transaction. ``batch=1`` (the default) writes each append before it returns.

Durability (``fsync=``), the same table as ``JsonlJournal``'s, for what was written:

- ``"never"``: each write is committed to the database without waiting for the disk; a
  process crash loses nothing written; a machine crash (or a PostgreSQL server crash) may
  lose the last commits.
- ``"turn"``: as ``"never"``, plus a durable commit at every ``sync()`` (the runtime calls
  it when a run ends or pauses): a machine crash loses at most the turn in progress.
- ``"always"``: every commit is durable before ``append`` returns (requires ``batch=1``).

With ``batch=N``, a process crash also loses the appends still waiting: at most ``N - 1``,
never one that a ``sync()`` returned after.

A write that fails raises ``JournalError``: the entry of that ``append`` is not recorded
and its agent's sequence does not move; entries appended before it (with ``batch > 1``)
stay waiting and are written by the next write.

One writer per agent (``agentcore._journal.lanes``): ``claim(agent_id)`` (an ``Agent``
does it when it opens the journal) or the first ``append`` takes the agent's lane in the
database (a lock file for SQLite, an advisory lock for PostgreSQL); a second writer, in
this process or another, gets ``LaneBusyError`` naming the holder. Several processes may
write different agents to one database.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..._core.errors import ConfigurationError
from ..journal import FsyncPolicy, _check_after, _Sequencer
from ..lanes import Lanes
from ..read import JournalEntry, JournalError, SeqCheck
from .database import Database
from .rows import INSERT_BLOB, SELECT_BLOB, SqlBlobs, blob_of, decode_rows, encode_event
from .schema import migrate
from .tally import CallRow, Tally, price_from_json
from .writes import write_counted

__all__ = ["SqlJournal"]

_PAGE = 2000
_FSYNC_POLICIES = ("never", "turn", "always")


def _check_batch(batch: int, fsync: FsyncPolicy) -> int:
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ConfigurationError(f"batch must be an int >= 1, got {batch!r}")
    if fsync == "always" and batch != 1:
        raise ConfigurationError(
            f'fsync="always" makes every append durable before it returns; it cannot wait '
            f'in a batch (got batch={batch}): use batch=1, or fsync="turn"'
        )
    return batch


class SqlJournal:
    """A journal in a database (module docstring); ``SqliteJournal`` and
    ``PostgresJournal`` open one. ``database`` is migrated to the current schema."""

    __slots__ = (
        "_batch",
        "_blobs",
        "_closed",
        "_dirty",
        "_fsync",
        "_lanes",
        "_pending",
        "_seq",
        "_stored",
        "_tally",
        "database",
    )

    def __init__(self, database: Database, *, fsync: FsyncPolicy, batch: int) -> None:
        if fsync not in _FSYNC_POLICIES:
            database.close()
            raise ConfigurationError(f"fsync must be one of {_FSYNC_POLICIES}, got {fsync!r}")
        try:
            self._batch = _check_batch(batch, fsync)
            migrate(database)
        except BaseException:
            database.close()
            raise
        self.database = database
        self._fsync = fsync
        self._pending: list[tuple[str, int, str, Any]] = []
        self._blobs: dict[str, bytes] = {}  # the blobs of the pending entries
        self._stored: set[str] = set()  # blobs this object knows the database holds
        self._seq = _Sequencer(self._stored_last_seq)
        self._tally = Tally(self._stored_price, self._stored_call)
        self._closed = False
        self._dirty = False  # written since the last durable commit
        self._lanes = Lanes(self._lane_name, self._take, database.give_back_lane)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.database.name!r})"

    # -- what the database holds ----------------------------------------------------------

    def _stored_last_seq(self, agent_id: str) -> int:
        (last,) = self._query(
            "SELECT max(seq) FROM agentcore_entries WHERE agent_id = ?", (agent_id,)
        )[0]
        return int(last or 0)

    def _stored_price(self, agent_id: str) -> Any:
        rows = self._query("SELECT price FROM agentcore_sessions WHERE agent_id = ?", (agent_id,))
        return price_from_json(rows[0][0]) if rows else None

    def _stored_call(self, agent_id: str) -> CallRow | None:
        rows = self._query(
            "SELECT agent_id, seq, ts, model, input_tokens, output_tokens, cache_read_tokens, "
            "cache_write_tokens, reasoning_tokens, cost, image_tokens, audio_tokens, "
            "document_tokens, cache_write_1h_tokens FROM agentcore_calls "
            "WHERE agent_id = ? ORDER BY seq DESC LIMIT 1",
            (agent_id,),
        )
        return CallRow(*rows[0]) if rows else None

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.database.query(sql, params)
        except JournalError:
            raise
        except Exception as exc:
            raise JournalError(f"{self.database.name}: {type(exc).__name__}: {exc}") from exc

    # -- lanes ----------------------------------------------------------------------------

    def _lane_name(self, agent_id: str) -> str:
        return f"agent {agent_id!r} in {self.database.name}"

    def _take(self, agent_id: str) -> None:
        self.database.take_lane(agent_id, self._lane_name(agent_id))
        self.forget(agent_id)  # another writer may have written since we last looked

    def claim(self, agent_id: str) -> None:
        """Become the agent's one writer (module docstring); ``LaneBusyError`` when
        another writer holds its lane."""
        if self._closed:
            raise JournalError(f"{self!r} is closed; open a new one")
        self._lanes.claim(agent_id)

    def release(self, agent_id: str) -> None:
        """Write what waits and let the agent's lane go."""
        try:
            self.flush()
        finally:
            self._lanes.release(agent_id)

    # -- the Journal protocol -------------------------------------------------------------

    def append(self, agent_id: str, event: Any) -> int:
        if self._closed:
            raise JournalError(f"{self!r} is closed; open a new one")
        if type(agent_id) is not str:
            raise JournalError(f"agent_id must be a string, got {agent_id!r}")
        self._lanes.hold(agent_id)
        seq = self._seq.last(agent_id) + 1
        self._pending.append((agent_id, seq, encode_event(agent_id, event, self._blobs), event))
        self._seq.advance(agent_id, seq)
        if len(self._pending) >= self._batch:
            try:
                self._write(durable=self._fsync == "always")
            except JournalError:
                self._pending.pop()
                self._seq.advance(agent_id, seq - 1)
                raise
        return seq

    def flush(self) -> None:
        """Write the appends waiting in the batch now (one transaction), and end the hold
        of lanes taken by appends alone. Raises ``JournalError`` when the write fails
        (they stay waiting)."""
        if self._pending:
            self._write(durable=False)
        self._lanes.release_unclaimed()

    def _write(self, durable: bool) -> None:
        pending = self._pending
        counted = self._tally.count((agent, seq, event) for agent, seq, _, event in pending)
        blobs = [
            (digest, data) for digest, data in self._blobs.items() if digest not in self._stored
        ]
        try:
            with self.database.transaction(durable) as tx:
                if blobs:  # before the entries that refer to them, in one transaction
                    tx.many(INSERT_BLOB, blobs)
                tx.insert_entries([(agent, seq, text) for agent, seq, text, _ in pending])
                write_counted(tx, counted)
        except JournalError:
            raise
        except Exception as exc:
            raise JournalError(
                f"{self.database.name}: cannot write {len(pending)} journal entr"
                f"{'y' if len(pending) == 1 else 'ies'}: {type(exc).__name__}: {exc}"
            ) from exc
        self._tally.commit(counted)
        self._stored.update(self._blobs)
        self._blobs = {}
        self._pending = []
        self._dirty = not durable

    def entries(self, agent_id: str | None = None, *, after: int = 0) -> Iterator[JournalEntry]:
        _check_after(after)
        if not self._closed:
            self.flush()
        return self._read(agent_id, after)

    def _read(self, agent_id: str | None, after: int) -> Iterator[JournalEntry]:
        where, check = self.database.name, SeqCheck(self.database.name, after)
        if agent_id is not None:
            sql = (
                "SELECT agent_id, seq, event FROM agentcore_entries "
                "WHERE agent_id = ? AND seq > ? ORDER BY seq LIMIT ?"
            )
            last: Any = after
            while True:
                rows = self._query(sql, (agent_id, last, _PAGE))
                if not rows:
                    return
                for row in rows:
                    check.check(row[0], row[1])
                yield from decode_rows(rows, where, self._read_blob)
                last = rows[-1][1]
        sql = (
            "SELECT agent_id, seq, event, pos FROM agentcore_entries "
            "WHERE pos > ? AND seq > ? ORDER BY pos LIMIT ?"
        )
        last = -1
        while True:
            rows = self._query(sql, (last, after, _PAGE))
            if not rows:
                return
            for row in rows:
                check.check(row[0], row[1])
            yield from decode_rows([row[:3] for row in rows], where, self._read_blob)
            last = rows[-1][3]

    def _read_blob(self, digest: str) -> bytes | None:
        return blob_of(self._query(SELECT_BLOB, (digest,)))

    @property
    def blobs(self) -> SqlBlobs:
        """The media of the entries, one row per blob in ``agentcore_blobs`` (``blobs``)."""
        return SqlBlobs(self.database)

    def last_seq(self, agent_id: str) -> int:
        return self._seq.last(agent_id)

    def sync(self) -> None:
        """Write what waits; under ``"turn"``, durably (with what was written before)."""
        if self._closed:
            return
        if self._fsync == "turn" and (self._pending or self._dirty):
            if self._pending:
                self._write(durable=True)
            else:
                self._durable_point()
            self._lanes.release_unclaimed()
        else:
            self.flush()

    def _durable_point(self) -> None:
        """A durable commit with nothing to write: makes every earlier commit durable."""
        with self.database.transaction(durable=True) as tx:
            if self.database.dialect == "postgres":
                tx.run("SELECT pg_current_xact_id()")  # a commit record to wait for
            else:
                tx.run("UPDATE agentcore_schema SET applied_ms = applied_ms WHERE version = 1")
        self._dirty = False

    def close(self) -> None:
        """Write what waits (durably under ``"turn"`` and ``"always"``) and release the
        database; idempotent. Reading still works afterwards."""
        if self._closed:
            return
        try:
            if self._fsync == "never":
                self.flush()
            else:
                self.sync()
        finally:
            self._closed = True
            self._lanes.release_all()
            self.database.close()

    # -- for the session tools ------------------------------------------------------------

    def forget(self, agent_id: str) -> None:
        """Forget what this object knows of an agent whose rows were deleted or copied in
        (``Sessions``): it is read from the database again when needed."""
        self._seq.forget(agent_id)
        self._tally.forget(agent_id)

    @property
    def closed(self) -> bool:
        return self._closed
