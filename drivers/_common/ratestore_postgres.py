"""``PostgresRateStore``: rate-budget buckets in PostgreSQL, shared by every process that
uses the same database (durable workers on several machines).

Each bucket is one row of ``agentcore_rate_buckets`` (``key``, ``level``, ``at``). An
update locks the row (``SELECT ... FOR UPDATE``), reads the database's clock, applies the
pure change of ``ratebucket`` and writes the row back in one transaction, so concurrent
workers queue their reservations in order on one clock, whatever their own clocks say.
The table is created on first use (under an advisory lock, so two workers starting
together do not race). One connection per store, used from a worker thread so the event
loop never blocks; ``psycopg`` is imported on first use (``agentcore-engine[postgres]``).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, TypeVar

from .ratebucket import Bucket, RateLimit, full
from .ratelimit import Change, RateStore

__all__ = ["TABLE", "PostgresRateStore"]

TABLE = "agentcore_rate_buckets"

T = TypeVar("T")

_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} ("
    "key TEXT PRIMARY KEY, level DOUBLE PRECISION NOT NULL, at DOUBLE PRECISION NOT NULL)"
)
_NOW = "SELECT extract(epoch FROM clock_timestamp())::float8"


class PostgresRateStore(RateStore):
    """Buckets in the database at ``conninfo`` (a ``postgresql://`` URL or a conninfo
    string); ``aclose`` closes its connection."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._conn: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return "PostgresRateStore(...)"  # the conninfo may hold a password

    def _connection(self) -> Any:
        if self._conn is None or self._conn.closed:
            import psycopg

            conn = psycopg.connect(self._conninfo, autocommit=True)
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (TABLE,))
                conn.execute(_CREATE)
            self._conn = conn
        return self._conn

    def _update(self, key: str, limit: RateLimit, change: Change[T]) -> T:
        with self._lock:
            conn = self._connection()
            with conn.transaction():
                now = conn.execute(_NOW).fetchone()[0]
                start = full(limit, now)
                conn.execute(
                    f"INSERT INTO {TABLE} (key, level, at) VALUES (%s, %s, %s) "
                    "ON CONFLICT (key) DO NOTHING",
                    (key, start.level, start.at),
                )
                row = conn.execute(
                    f"SELECT level, at FROM {TABLE} WHERE key = %s FOR UPDATE", (key,)
                ).fetchone()
                now = conn.execute(_NOW).fetchone()[0]  # after the lock: the wait was spent
                bucket, result = change(Bucket(row[0], row[1]), now)
                conn.execute(
                    f"UPDATE {TABLE} SET level = %s, at = %s WHERE key = %s",
                    (bucket.level, bucket.at, key),
                )
            return result

    async def update(self, key: str, limit: RateLimit, change: Change[T]) -> T:
        return await asyncio.to_thread(self._update, key, limit, change)

    async def aclose(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
