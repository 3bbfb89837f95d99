"""``SqlSnapshots``: the ``SnapshotStore`` protocol in a SQL journal's own database.

Rows of ``agentcore_snapshots`` ``(agent_id, seq, state)``. A save is one durable
transaction (the snapshot, then the pruning ``SnapshotStore`` asks for), so a crash
leaves the previous snapshots as they were. The database checks its own pages; a
snapshot whose state cannot be loaded costs a full fold, never a wrong state (see
``load_session``).
"""

from __future__ import annotations

from ..read import JournalError
from ..snapshots import _check_agent, _check_at_most, _check_keep, _checked
from .journal import SqlJournal

__all__ = ["SqlSnapshots"]


class SqlSnapshots:
    """Snapshots in the database of ``journal`` (a ``SqliteJournal`` or a
    ``PostgresJournal``), its newest ``keep`` per agent. Closing the store does not close
    the journal; closing the journal closes its database, after which the store raises
    ``JournalError`` too."""

    __slots__ = ("_closed", "_journal", "_keep")

    def __init__(self, journal: SqlJournal, *, keep: int = 2) -> None:
        if not isinstance(journal, SqlJournal):
            raise TypeError(
                f"SqlSnapshots needs a SqliteJournal or PostgresJournal, got {journal!r}"
            )
        self._keep = _check_keep(keep)
        self._journal = journal
        self._closed = False

    def __repr__(self) -> str:
        return f"SqlSnapshots({self._journal.database.name!r})"

    def _open(self, agent_id: str) -> None:
        if self._closed or self._journal.closed:
            raise JournalError(f"{self!r} is closed; open a new one")
        _check_agent(agent_id)

    def save(self, agent_id: str, seq: int, state: bytes) -> None:
        self._open(agent_id)
        _checked(agent_id, seq, state)
        database = self._journal.database
        upsert = (
            "INSERT INTO agentcore_snapshots (agent_id, seq, state) VALUES (?, ?, ?) "
            "ON CONFLICT (agent_id, seq) DO UPDATE SET state = excluded.state"
        )
        with database.transaction(durable=True) as tx:
            tx.run(upsert, (agent_id, seq, state))
            tx.run(
                "DELETE FROM agentcore_snapshots WHERE agent_id = ? AND seq > ?", (agent_id, seq)
            )
            kept = tx.run(
                "SELECT seq FROM agentcore_snapshots WHERE agent_id = ? "
                "ORDER BY seq DESC LIMIT 1 OFFSET ?",
                (agent_id, self._keep - 1),
            )
            if kept:
                tx.run(
                    "DELETE FROM agentcore_snapshots WHERE agent_id = ? AND seq < ?",
                    (agent_id, kept[0][0]),
                )

    def latest(self, agent_id: str, at_most: int | None = None) -> tuple[int, bytes] | None:
        self._open(agent_id)
        _check_at_most(at_most)
        rows = self._journal.database.query(
            "SELECT seq, state FROM agentcore_snapshots WHERE agent_id = ? AND seq <= ? "
            "ORDER BY seq DESC LIMIT 1",
            (agent_id, (1 << 62) if at_most is None else at_most),
        )
        return (int(rows[0][0]), bytes(rows[0][1])) if rows else None

    def delete(self, agent_id: str) -> None:
        self._open(agent_id)
        with self._journal.database.transaction() as tx:
            tx.run("DELETE FROM agentcore_snapshots WHERE agent_id = ?", (agent_id,))

    def close(self) -> None:
        self._closed = True
