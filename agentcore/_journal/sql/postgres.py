"""PostgreSQL at scale: ``psycopg`` 3 with a ``psycopg_pool`` connection pool.

Needs the ``postgres`` extra (``pip install agentcore-engine[postgres]``); ``psycopg`` is imported
when a ``PostgresJournal`` is made, never by ``import agentcore``.

Each transaction borrows a connection from the pool: many agents (and the ``Sessions``
tools, and the persistence presenter) share a few connections. A batch of entries goes in
with ``COPY`` (from ``_COPY_ROWS`` rows up) or one pipelined ``executemany``. Durability
per transaction: ``SET LOCAL synchronous_commit`` ``off`` for an ordinary commit (the
server writes it, and flushes its WAL within ``wal_writer_delay``, 200 ms by default), ``on``
for a durable one (the commit returns once its WAL, and every commit before it, is
flushed).

Lanes (one writer per agent): a session-level advisory lock per agent
(``pg_try_advisory_lock``, keyed on a digest of the agent id), held on one connection of
its own (not the pool's) while the writer holds the lane. The server releases the locks
of a connection that ends, so a holder that dies (its process, or its machine once the
server notices the connection is gone) frees its lanes. That connection's
``application_name`` says who holds them, for the message a refused writer gets.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from ..._core.errors import ConfigurationError
from ..journal import FsyncPolicy
from ..lanes import LaneBusyError
from ..read import JournalError
from .journal import SqlJournal

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

__all__ = ["PostgresDatabase", "PostgresJournal"]

_COPY_ROWS = 32
_CONNECT_TIMEOUT = 30
_TAKEOVER_S = 5.0
"""How long taking a lane waits for a dead holder's connection to end."""
_LANE_NAME = re.compile(r"agentcore lanes: pid (\d+) on ")
_KEEPALIVE = (
    "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3"
)
"""The lane connection's keepalives: the server ends the connection of a holder whose
machine died within about 25 s, and with it the holder's lanes."""
_LANE_HOLDER = (
    "SELECT a.application_name, a.client_addr, a.backend_start, a.pid FROM pg_locks l "
    "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
    "AND l.classid = %s AND l.objid = %s AND l.objsubid = 1"
)
_SQL: dict[str, str] = {}


def _sql(text: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (none of agentcore's SQL holds a ``?`` or a
    ``%`` otherwise)."""
    converted = _SQL.get(text)
    if converted is None:
        converted = _SQL[text] = text.replace("?", "%s")
    return converted


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:  # pragma: no cover - the dev environment has the extra
        raise ConfigurationError(
            "PostgresJournal needs psycopg 3 and psycopg_pool: "
            "pip install 'agentcore-engine[postgres]'"
        ) from exc
    return psycopg, psycopg_pool


class _PostgresTx:
    __slots__ = ("_cur",)

    def __init__(self, cur: psycopg.Cursor[Any]) -> None:
        self._cur = cur

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cur = self._cur
        cur.execute(_sql(sql), params)
        return cur.fetchall() if cur.description is not None else []

    def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._cur.executemany(_sql(sql), rows)

    def insert_entries(self, rows: Sequence[tuple[str, int, str]]) -> None:
        if len(rows) < _COPY_ROWS:
            self._cur.executemany(
                "INSERT INTO agentcore_entries (agent_id, seq, event) VALUES (%s, %s, %s)", rows
            )
            return
        with self._cur.copy("COPY agentcore_entries (agent_id, seq, event) FROM STDIN") as copy:
            write = copy.write_row
            for row in rows:
                write(row)

    def copy_entries(self, source: str, target: str, at: int) -> None:
        self._cur.execute(
            "INSERT INTO agentcore_entries (agent_id, seq, event) SELECT %s, seq, event "
            "FROM agentcore_entries WHERE agent_id = %s AND seq <= %s ORDER BY seq",
            (target, source, at),
        )


def _public_name(conninfo: str) -> str:
    """``postgres:`` and the connection string without its password."""
    psycopg, _ = _psycopg()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:
        return "postgres:<conninfo>"
    parts.pop("password", None)
    return "postgres:" + " ".join(f"{k}={v}" for k, v in sorted(parts.items()))


class PostgresDatabase:
    """A pool of connections to one PostgreSQL database (module docstring): ``source`` is
    a libpq connection string or URL (the pool is made here, and closed with the
    database), or a ``psycopg_pool.ConnectionPool`` of yours (left open)."""

    dialect: Literal["postgres"] = "postgres"

    def __init__(self, source: str | ConnectionPool, *, max_connections: int = 4) -> None:
        psycopg, psycopg_pool = _psycopg()
        self._psycopg = psycopg
        if isinstance(source, str):
            self._conninfo = source
            self._own = True
            try:
                psycopg.connect(source, connect_timeout=_CONNECT_TIMEOUT).close()  # fail fast
                pool = psycopg_pool.ConnectionPool(
                    source, min_size=1, max_size=max_connections, open=True, name="agentcore"
                )
            except psycopg.Error as exc:
                raise JournalError(
                    f"cannot connect to {_public_name(source)}: {type(exc).__name__}: {exc}"
                ) from exc
        elif isinstance(source, psycopg_pool.ConnectionPool):
            pool, self._conninfo, self._own = source, source.conninfo, False
        else:
            raise ConfigurationError(
                f"a PostgreSQL database is a connection string or a psycopg_pool."
                f"ConnectionPool, got {source!r}"
            )
        self._pool: ConnectionPool | None = pool
        self.name = _public_name(self._conninfo)
        self._lanes: dict[str, int] = {}  # agent id -> advisory lock key
        self._lane_conn: Any = None  # a psycopg.Connection, made at the first lane
        self._lane_guard = threading.Lock()
        self._schema = ""  # where agentcore's tables are: part of a lane's key

    @property
    def pool(self) -> ConnectionPool:
        if self._pool is None:
            raise JournalError(f"{self.name} is closed")
        return self._pool

    @contextmanager
    def transaction(self, durable: bool = False) -> Iterator[_PostgresTx]:
        with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.execute(f"SET LOCAL synchronous_commit TO {'on' if durable else 'off'}")
            yield _PostgresTx(cur)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self._pool is not None:
            with self._pool.connection() as conn:
                rows: list[tuple[Any, ...]] = conn.execute(_sql(sql), params).fetchall()
                return rows
        with self._psycopg.connect(self._conninfo) as conn:
            rows = conn.execute(_sql(sql), params).fetchall()
            return rows

    def day(self, column: str) -> str:
        return f"to_char(to_timestamp({column} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"

    def _lane_connection(self) -> Any:
        conn = self._lane_conn
        if conn is None or conn.closed:
            try:
                conn = self._psycopg.connect(
                    self._conninfo,
                    autocommit=True,
                    connect_timeout=_CONNECT_TIMEOUT,
                    application_name=_lane_app_name(os.getpid()),
                )
            except self._psycopg.Error as exc:
                raise JournalError(
                    f"cannot connect to {self.name} to hold a lane: {type(exc).__name__}: {exc}"
                ) from exc
            conn.execute(_KEEPALIVE)
            (self._schema,) = conn.execute("SELECT current_schema()").fetchone()
            self._lane_conn = conn
        return conn

    def take_lane(self, agent_id: str, lane: str) -> None:
        """The agent's advisory lock; a holder that is a dead process of this host (its
        connection not yet ended by the server) has its connection ended, then the lock is
        taken over."""
        with self._lane_guard:
            conn = self._lane_connection()
            key = _lane_key(self._schema, agent_id)
            ids = ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF)
            deadline = time.monotonic() + _TAKEOVER_S
            while not conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
                rows = conn.execute(_LANE_HOLDER, ids).fetchall()
                if time.monotonic() > deadline or (rows and not _dead_here(rows[0][0])):
                    raise LaneBusyError(lane, _holder(rows))
                if rows:
                    conn.execute("SELECT pg_terminate_backend(%s)", (rows[0][3],))
                time.sleep(0.02)
            self._lanes[agent_id] = key

    def give_back_lane(self, agent_id: str) -> None:
        with self._lane_guard:
            key = self._lanes.pop(agent_id, None)
            conn = self._lane_conn
            if key is not None and conn is not None and not conn.closed:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def close(self) -> None:
        with self._lane_guard:
            conn, self._lane_conn = self._lane_conn, None
            self._lanes.clear()
        if conn is not None:
            conn.close()  # the server lets go of every lane it held
        pool, self._pool = self._pool, None
        if pool is not None and self._own:
            pool.close()


def _lane_key(schema: str, agent_id: str) -> int:
    """The advisory lock key of an agent's lane (advisory locks are database-wide: the
    schema of agentcore's tables is part of it): a signed 64-bit digest."""
    lane = f"agentcore lane\0{schema}\0{agent_id}"
    digest = hashlib.sha256(lane.encode("utf-8", "surrogatepass"))
    return int.from_bytes(digest.digest()[:8], "big", signed=True)


def _lane_app_name(pid: int) -> str:
    """The ``application_name`` of process ``pid``'s lane connection on this host."""
    return f"agentcore lanes: pid {pid} on {socket.gethostname()}"[:63]


def _dead_here(application_name: str | None) -> bool:
    """Whether a lane connection's holder is a process of this host that is gone."""
    found = _LANE_NAME.match(application_name or "")
    if found is None or _lane_app_name(int(found[1])) != application_name:
        return False
    try:
        os.kill(int(found[1]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, someone else's
        return False
    return False


def _holder(rows: list[tuple[Any, ...]]) -> str:
    if not rows:
        return "another writer (it let go a moment ago: try again)"
    name, address, since, _pid = rows[0]
    where = f" from {address}" if address is not None else ""
    return f"{name or 'a connection'}{where}, connected since {since:%Y-%m-%dT%H:%M:%S%z}"


class PostgresJournal(SqlJournal):
    """A journal in a PostgreSQL database (``source``: a connection string or a
    ``psycopg_pool.ConnectionPool``); see ``SqlJournal`` for batching, the fsync policies
    and the session tables, and docs/sessions.md. ``max_connections`` sizes the pool made
    from a connection string.

    Raises ``ConfigurationError`` for a bad option, ``JournalError`` when the database
    cannot be reached or holds a schema newer than this agentcore.
    """

    def __init__(
        self,
        source: str | ConnectionPool,
        *,
        fsync: FsyncPolicy = "never",
        batch: int = 1,
        max_connections: int = 4,
    ) -> None:
        super().__init__(
            PostgresDatabase(source, max_connections=max_connections), fsync=fsync, batch=batch
        )
