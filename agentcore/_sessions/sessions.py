"""``Sessions``: list, read, delete and fork the sessions of a SQL journal; usage and cost.

Listing and usage come from the session tables (``tally``), written with the entries, so
they cost a few rows, not a fold. Messages come from folding the session (from its
newest snapshot). A fork copies a session's entries up to a ``seq`` (and the snapshots up
to it) under a new id: the new session is the old one as it was then, and goes its own
way from there, while the old one is untouched (time travel that branches).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import Any, Literal

import attrs

from .._core.content import Usage
from .._journal.read import JournalError
from .._journal.resume import load_conversation
from .._journal.snapshots import SnapshotStore
from .._journal.sql.database import Tx
from .._journal.sql.journal import SqlJournal
from .._journal.sql.rows import blob_reader, decode_rows
from .._journal.sql.tally import Tally
from .._journal.sql.writes import write_counted
from .._loop.conversation import (
    ConversationState,
    conversation_processor,
    create_initial_conversation_state,
)
from .session import Session

__all__ = ["SessionInfo", "Sessions", "UsageBy", "UsageRow"]

UsageBy = Literal["session", "agent", "model", "day"]

_SUMS = (
    "count({c}.seq), CAST(coalesce(sum({c}.input_tokens), 0) AS BIGINT), "
    "CAST(coalesce(sum({c}.output_tokens), 0) AS BIGINT), "
    "CAST(coalesce(sum({c}.cache_read_tokens), 0) AS BIGINT), "
    "CAST(coalesce(sum({c}.cache_write_tokens), 0) AS BIGINT), "
    "CAST(coalesce(sum({c}.reasoning_tokens), 0) AS BIGINT), "
    "CAST(coalesce(sum({c}.image_tokens), 0) AS BIGINT), "
    "CAST(coalesce(sum({c}.audio_tokens), 0) AS BIGINT), "
    "CAST(coalesce(sum({c}.document_tokens), 0) AS BIGINT), "
    "CAST(coalesce(sum({c}.cache_write_1h_tokens), 0) AS BIGINT), "
    "CASE WHEN count({c}.cost) = count({c}.seq) THEN coalesce(sum({c}.cost), 0) END"
).format(c="c")
"""Per group: model calls, summed usage, and the cost (None when a call had no price)."""

_FORK_ROWS = 5000


@attrs.frozen
class SessionInfo:
    """One session: its id, its agent's name (``Sessions.name``), the times of its first
    and latest entries (ms), how many entries, turns (prompts) and model calls it holds,
    their summed usage and cost in USD (``None`` when a call had no price)."""

    session_id: str
    agent_name: str | None
    created_ms: int | None
    last_ms: int | None
    entries: int
    turns: int
    calls: int
    usage: Usage
    cost: float | None


@attrs.frozen
class UsageRow:
    """The model calls of one group (a session, an agent name, a model or a UTC day
    ``YYYY-MM-DD``; ``key`` is None for sessions without an agent name): how many,
    their summed usage, and their cost in USD (``None`` when a call had no price)."""

    key: str | None
    calls: int
    usage: Usage
    cost: float | None


def _usage_of(values: tuple[Any, ...]) -> tuple[int, Usage, float | None]:
    calls, *counts, cost = values  # the counts in Usage's field order
    usage = Usage(*(int(count) for count in counts))
    return int(calls), usage, None if cost is None else float(cost)


class Sessions:
    """The sessions of ``journal`` (a ``SqliteJournal`` or ``PostgresJournal``), read
    with ``snapshots`` (optional) to fold fast. Every read first writes the appends
    waiting in the journal's batch. Raises ``JournalError`` for a database failure or an
    unknown session where one is needed."""

    def __init__(self, journal: SqlJournal, snapshots: SnapshotStore | None = None) -> None:
        if not isinstance(journal, SqlJournal):
            raise TypeError(f"Sessions needs a SqliteJournal or PostgresJournal, got {journal!r}")
        self.journal = journal
        self.snapshots = snapshots

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if not self.journal.closed:
            self.journal.flush()
        return self.journal.database.query(sql, params)

    def session(self, session_id: str, *, agent_name: str | None = None) -> Session:
        """The ``Session`` to pass to ``Agent(session=...)``; ``agent_name`` names its
        agent in listings and usage (``name``)."""
        if agent_name is not None:
            self.name(session_id, agent_name)
        return Session(self.journal, session_id, self.snapshots)

    def name(self, session_id: str, agent_name: str) -> None:
        """Record which agent a session belongs to (its ``agent_name``); a session not yet
        started is listed from now on, with no entries."""
        with self.journal.database.transaction() as tx:
            tx.run(
                "INSERT INTO agentcore_sessions (agent_id, agent_name) VALUES (?, ?) "
                "ON CONFLICT (agent_id) DO UPDATE SET agent_name = excluded.agent_name",
                (session_id, agent_name),
            )

    def list(self, *, agent_name: str | None = None, limit: int | None = None) -> list[SessionInfo]:
        """The sessions, the most recently active first; only ``agent_name``'s when given,
        at most ``limit``."""
        sql = (
            "SELECT s.agent_id, s.agent_name, s.created_ms, s.last_ms, s.entries, s.turns, "
            f"{_SUMS} FROM agentcore_sessions s "
            "LEFT JOIN agentcore_calls c ON c.agent_id = s.agent_id "
            + ("WHERE s.agent_name = ? " if agent_name is not None else "")
            + "GROUP BY s.agent_id, s.agent_name, s.created_ms, s.last_ms, s.entries, s.turns "
            "ORDER BY s.last_ms IS NULL, s.last_ms DESC, s.agent_id"
            + (" LIMIT ?" if limit is not None else "")
        )
        params = tuple(p for p in (agent_name, limit) if p is not None)
        return [self._info(row) for row in self._query(sql, params)]

    def get(self, session_id: str) -> SessionInfo | None:
        """One session's ``SessionInfo`` (None when the database has no such session)."""
        rows = self._query(
            "SELECT s.agent_id, s.agent_name, s.created_ms, s.last_ms, s.entries, s.turns, "
            f"{_SUMS} FROM agentcore_sessions s "
            "LEFT JOIN agentcore_calls c ON c.agent_id = s.agent_id WHERE s.agent_id = ? "
            "GROUP BY s.agent_id, s.agent_name, s.created_ms, s.last_ms, s.entries, s.turns",
            (session_id,),
        )
        return self._info(rows[0]) if rows else None

    @staticmethod
    def _info(row: tuple[Any, ...]) -> SessionInfo:
        session_id, name, created, last, entries, turns = row[:6]
        calls, usage, cost = _usage_of(row[6:])
        return SessionInfo(
            session_id, name, created, last, int(entries), int(turns), calls, usage, cost
        )

    def state(self, session_id: str) -> ConversationState:
        """The session's conversation state after its last entry (the default conversation
        processor's; a fold from the newest snapshot)."""
        if not self.journal.last_seq(session_id):
            raise JournalError(f"{self.journal!r} holds no session {session_id!r}")
        return load_conversation(
            self.journal,
            session_id,
            conversation_processor,
            create_initial_conversation_state(),
            self.snapshots,
        )

    def messages(self, session_id: str) -> tuple[Any, ...]:
        """The session's history: the messages an agent continuing it would send."""
        return tuple(self.state(session_id).loop.messages)

    def delete(self, session_id: str) -> bool:
        """Erase a session: its entries, snapshots, calls and row. Returns whether there
        was anything to erase."""
        journal = self.journal
        if not journal.closed:
            journal.flush()
        with journal.database.transaction(durable=True) as tx:
            found = tx.run(
                "SELECT count(*) FROM agentcore_sessions WHERE agent_id = ?", (session_id,)
            )
            for table in ("entries", "snapshots", "calls", "sessions"):
                tx.run(f"DELETE FROM agentcore_{table} WHERE agent_id = ?", (session_id,))
        journal.forget(session_id)
        return bool(found[0][0])

    def fork(self, session_id: str, new_session_id: str, *, at: int | None = None) -> SessionInfo:
        """A new session ``new_session_id`` holding ``session_id``'s entries up to ``seq``
        ``at`` (all of them when None), its snapshots up to there and its agent name.
        Continue it with ``Agent(session=sessions.session(new_session_id))``. Raises
        ``JournalError`` for an unknown session, an ``at`` outside ``1..last seq``, or a
        ``new_session_id`` already in use."""
        journal = self.journal
        last = journal.last_seq(session_id)
        if not last:
            raise JournalError(f"{journal!r} holds no session {session_id!r} to fork")
        at = last if at is None else at
        if type(at) is not int or not 1 <= at <= last:
            raise JournalError(f"cannot fork {session_id!r} at {at!r}: its seqs run 1..{last}")
        if journal.last_seq(new_session_id) or self.get(new_session_id) is not None:
            raise JournalError(f"session {new_session_id!r} exists already: fork into a new id")
        journal.flush()
        with journal.database.transaction(durable=True) as tx:
            tx.copy_entries(session_id, new_session_id, at)
            tx.run(
                "INSERT INTO agentcore_snapshots (agent_id, seq, state) SELECT ?, seq, state "
                "FROM agentcore_snapshots WHERE agent_id = ? AND seq <= ?",
                (new_session_id, session_id, at),
            )
            tally = Tally(lambda _agent: None, lambda _agent: None)
            batch: list[tuple[str, int, Any]] = []
            for entry in _entries_in(tx, new_session_id, journal.database.name):
                batch.append(entry)
                if len(batch) >= _FORK_ROWS:
                    counted = tally.count(batch)
                    write_counted(tx, counted)
                    tally.commit(counted)
                    batch = []
            write_counted(tx, tally.count(batch))
            tx.run(
                "UPDATE agentcore_sessions SET agent_name = (SELECT agent_name FROM "
                "agentcore_sessions WHERE agent_id = ?) WHERE agent_id = ?",
                (session_id, new_session_id),
            )
        journal.forget(new_session_id)
        info = self.get(new_session_id)
        assert info is not None
        return info

    def usage(
        self,
        by: UsageBy = "session",
        *,
        since_ms: int | None = None,
        until_ms: int | None = None,
    ) -> builtins.list[UsageRow]:
        """Model calls, tokens and cost grouped ``by`` session, agent (name), model or UTC
        day, of the calls that started in ``[since_ms, until_ms)`` (all when None), sorted
        by key. Costs are at the price each agent was configured with (as ``max_cost``
        counts them)."""
        keys = {
            "session": "c.agent_id",
            "agent": "s.agent_name",
            "model": "c.model",
            "day": self.journal.database.day("c.ts"),
        }
        if by not in keys:
            raise ValueError(f"usage(by=...) takes one of {sorted(keys)}, got {by!r}")
        where, params = [], []
        if since_ms is not None:
            where.append("c.ts >= ?")
            params.append(since_ms)
        if until_ms is not None:
            where.append("c.ts < ?")
            params.append(until_ms)
        join = "JOIN agentcore_sessions s ON s.agent_id = c.agent_id " if by == "agent" else ""
        sql = (
            f"SELECT {keys[by]}, {_SUMS} FROM agentcore_calls c {join}"
            + (f"WHERE {' AND '.join(where)} " if where else "")
            + f"GROUP BY {keys[by]} ORDER BY {keys[by]} IS NULL, {keys[by]}"
        )
        return [UsageRow(row[0], *_usage_of(row[1:])) for row in self._query(sql, tuple(params))]


def _entries_in(tx: Tx, agent_id: str, where: str) -> Iterator[tuple[str, int, Any]]:
    last = 0
    while True:
        rows = tx.run(
            "SELECT agent_id, seq, event FROM agentcore_entries WHERE agent_id = ? AND seq > ? "
            "ORDER BY seq LIMIT ?",
            (agent_id, last, _FORK_ROWS),
        )
        if not rows:
            return
        yield from decode_rows(rows, where, blob_reader(tx))
        last = rows[-1][1]
