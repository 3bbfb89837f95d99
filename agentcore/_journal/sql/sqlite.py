"""SQLite: the embedded default, through the standard library's ``sqlite3``, in WAL mode.

One connection per database object, used from one thread at a time (the agents' event
loop). Writes run in ``BEGIN IMMEDIATE`` transactions, so several processes may share a
file: SQLite serialises their writes (``busy_timeout`` waits for the lock).

Durability (``synchronous``): ``NORMAL`` in WAL mode makes every commit a ``write`` to the
WAL file (a process crash loses nothing committed) and syncs only at checkpoints (a
machine crash may lose the last commits, never corrupts); a durable commit runs with
``FULL``, which syncs the WAL before returning, and with it every commit before it.

Lanes (one writer per agent): a lock file per agent in ``<file>.lanes/``, taken with
``flock`` (``agentcore._journal.lanes.FileLock``), held while the writer holds the lane;
the operating system releases the lock of a process that dies. SQLite in WAL mode serves
the processes of one machine only, which is where ``flock`` excludes.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from ..._core.errors import ConfigurationError
from ..journal import FsyncPolicy
from ..lanes import FileLock, lane_file
from ..read import JournalError
from .journal import SqlJournal

__all__ = ["SqliteDatabase", "SqliteJournal"]

_BUSY_MS = 10_000


class _SqliteTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._conn.execute(sql, params).fetchall()

    def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._conn.executemany(sql, rows)

    def insert_entries(self, rows: Sequence[tuple[str, int, str]]) -> None:
        (top,) = self._conn.execute("SELECT max(pos) FROM agentcore_entries").fetchone()
        base = top or 0
        self._conn.executemany(
            "INSERT INTO agentcore_entries (agent_id, seq, pos, event) VALUES (?, ?, ?, ?)",
            [(agent, seq, base + i, event) for i, (agent, seq, event) in enumerate(rows, 1)],
        )

    def copy_entries(self, source: str, target: str, at: int) -> None:
        (top,) = self._conn.execute("SELECT max(pos) FROM agentcore_entries").fetchone()
        self._conn.execute(
            "INSERT INTO agentcore_entries (agent_id, seq, pos, event) SELECT ?, seq, ? + seq, "
            "event FROM agentcore_entries WHERE agent_id = ? AND seq <= ?",
            (target, top or 0, source, at),
        )


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
    return conn


class SqliteDatabase:
    """A SQLite file in WAL mode (module docstring). ``synchronous`` is the usual level
    (``"NORMAL"`` or ``"FULL"``)."""

    dialect: Literal["sqlite"] = "sqlite"

    def __init__(
        self, path: str | os.PathLike[str], synchronous: Literal["NORMAL", "FULL"] = "NORMAL"
    ) -> None:
        self.path = Path(path)
        self.name = f"sqlite:{self.path}"
        self._synchronous = synchronous
        try:
            conn = _connect(str(self.path))
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open {self.name}: {exc}") from exc
        if mode != "wal":
            conn.close()
            raise JournalError(f"{self.name} cannot use WAL mode (journal_mode is {mode})")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        self._conn: sqlite3.Connection | None = conn
        self._lanes: dict[str, FileLock] = {}

    def _open(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(f"{self.name} is closed")
        return self._conn

    @contextmanager
    def transaction(self, durable: bool = False) -> Iterator[_SqliteTx]:
        conn = self._open()
        raise_sync = durable and self._synchronous != "FULL"
        if raise_sync:
            conn.execute("PRAGMA synchronous=FULL")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTx(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            if raise_sync:
                conn.execute(f"PRAGMA synchronous={self._synchronous}")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self._conn is not None:
            return self._conn.execute(sql, params).fetchall()
        conn = _connect(str(self.path))
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def day(self, column: str) -> str:
        return f"date({column} / 1000, 'unixepoch')"

    def take_lane(self, agent_id: str, lane: str) -> None:
        if str(self.path) == ":memory:":
            return  # a database no other connection sees
        directory = self.path.with_name(self.path.name + ".lanes")
        try:
            directory.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"cannot make the lane directory {directory}: {exc}") from exc
        lock = FileLock(lane_file(directory, agent_id), lane)
        lock.acquire()
        self._lanes[agent_id] = lock

    def give_back_lane(self, agent_id: str) -> None:
        lock = self._lanes.pop(agent_id, None)
        if lock is not None:
            lock.release()

    def close(self) -> None:
        for agent_id in list(self._lanes):
            self.give_back_lane(agent_id)
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def _synchronous(fsync: FsyncPolicy) -> Literal["NORMAL", "FULL"]:
    if fsync not in ("never", "turn", "always"):
        raise ConfigurationError(f"fsync must be one of never, turn, always; got {fsync!r}")
    return "FULL" if fsync == "always" else "NORMAL"


class SqliteJournal(SqlJournal):
    """A journal in a SQLite file (created when missing), in WAL mode; see ``SqlJournal``
    for batching, the fsync policies and the session tables, and docs/sessions.md.

    Raises ``ConfigurationError`` for a bad option and ``JournalError`` when the file
    cannot be opened or holds a schema newer than this agentcore.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, fsync: FsyncPolicy = "never", batch: int = 1
    ) -> None:
        super().__init__(SqliteDatabase(path, _synchronous(fsync)), fsync=fsync, batch=batch)

    @property
    def path(self) -> Path:
        database = self.database
        assert isinstance(database, SqliteDatabase)
        return database.path
