"""PostgreSQL at scale: ``psycopg`` 3 with a ``psycopg_pool`` connection pool.

Needs the ``postgres`` extra (``pip install agentcore[postgres]``); ``psycopg`` is imported
when a ``PostgresJournal`` is made, never by ``import agentcore``.

Each transaction borrows a connection from the pool: many agents (and the ``Sessions``
tools, and the persistence presenter) share a few connections. A batch of entries goes in
with ``COPY`` (from ``_COPY_ROWS`` rows up) or one pipelined ``executemany``. Durability
per transaction: ``SET LOCAL synchronous_commit`` ``off`` for an ordinary commit (the
server writes it, and flushes its WAL within ``wal_writer_delay``, 200 ms by default), ``on``
for a durable one (the commit returns once its WAL, and every commit before it, is
flushed).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from .._core.errors import ConfigurationError
from .._journal.journal import FsyncPolicy
from .._journal.read import JournalError
from .journal import SqlJournal

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

__all__ = ["PostgresDatabase", "PostgresJournal"]

_COPY_ROWS = 32
_CONNECT_TIMEOUT = 30
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
            "PostgresJournal needs psycopg 3 and psycopg_pool: pip install 'agentcore[postgres]'"
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

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None and self._own:
            pool.close()


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
