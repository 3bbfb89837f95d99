"""What the SQL journal, snapshots and sessions need of a database, in two dialects.

A ``Database`` runs statements in transactions; SQL is written once, with ``?``
placeholders, and each database rewrites it for its driver (``%s`` for psycopg). What
differs between SQLite and PostgreSQL beyond that (how entries are inserted, how a day is
computed, how a durable commit is asked for) is a method of the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

__all__ = ["Database", "Dialect", "Tx"]

Dialect = Literal["sqlite", "postgres"]


class Tx(Protocol):
    """Statements inside one transaction."""

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Execute one statement; its rows (empty for a statement that returns none)."""
        ...

    def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Execute one statement once per row of parameters."""
        ...

    def insert_entries(self, rows: Sequence[tuple[str, int, str]]) -> None:
        """Append ``(agent_id, seq, event JSON)`` rows to the entries, in this order."""
        ...

    def copy_entries(self, source: str, target: str, at: int) -> None:
        """Append ``source``'s entries up to ``seq`` ``at`` as ``target``'s, same seqs."""
        ...


class Database(Protocol):
    """A connection (or pool) to one database holding agentcore's tables."""

    @property
    def dialect(self) -> Dialect:
        """Which SQL the database speaks."""
        ...

    @property
    def name(self) -> str:
        """How messages name the database (never a password)."""
        ...

    def transaction(self, durable: bool = False) -> AbstractContextManager[Tx]:
        """One transaction, committed when the block ends without an exception, rolled
        back otherwise. ``durable``: the commit returns once it is on disk, whatever the
        database's usual policy."""
        ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one read-only statement; works after ``close()`` (on a connection
        opened for it)."""
        ...

    def day(self, column: str) -> str:
        """An SQL expression: the UTC day (``YYYY-MM-DD``) of a millisecond timestamp."""
        ...

    def take_lane(self, agent_id: str, lane: str) -> None:
        """Hold ``agent_id``'s lane against every other writer, in this process or
        another (``lanes``); ``LaneBusyError`` naming ``lane`` and the holder when
        another holds it."""
        ...

    def give_back_lane(self, agent_id: str) -> None:
        """Let go of a lane ``take_lane`` took. Idempotent."""
        ...

    def close(self) -> None:
        """Release the connection (or the pool this database made) and every lane held.
        Idempotent."""
        ...
