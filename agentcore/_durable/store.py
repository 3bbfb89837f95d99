"""agentcore's own tables beside DBOS's: the inbox, the agents, the workers' heartbeats.

- ``agentcore_inbox``: every command sent to a durable agent (prompt, steer, follow-up,
  approval, elicitation answer, abort, continue), in arrival order (``n``). A running
  workflow *claims* rows inside a DBOS step: ``taken`` is set to the step's key
  (workflow id and step id), and a claim run again under the same key (the step was cut
  off before DBOS recorded it) gets the rows it had taken back, plus any new ones. So a
  command is folded by exactly one workflow, once, and a command sent between two runs
  waits for the next one. An elicitation's answer is claimed by the tool step that
  waits for it (``claim_answers``), never by a running agent's claim (which could only
  fold it once that step ended).
  (A DBOS message would do for a running workflow, but one sent to a workflow that has
  just finished is never read: the inbox has no such gap.)
- ``agentcore_agents``: the definition each agent runs with (set by its first command).
- ``agentcore_workers``: one row per live worker (its DBOS executor id), its heartbeat
  stamped with the database's clock, so workers on several machines agree on who is dead.

A trigger on DBOS's ``workflow_status`` (``notify_endings``) sends the id of every
``agentcore_advance`` workflow that ends on channel ``ENDED``, in the transaction that
ends it, so a client waiting for a run wakes at once instead of polling
(``notices.Notices``).

The journal (``agentcore_entries``, ``PostgresJournal``) lives in the same database.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._core.errors import ConfigurationError
from .._journal.sql.postgres import PostgresDatabase

__all__ = ["ENDED", "STARTS", "Store"]

STARTS = frozenset({"agent_prompt", "agent_continue"})
"""Commands that start a run: claimed only when the agent is at rest, one at a time."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS agentcore_inbox (n BIGINT GENERATED ALWAYS AS IDENTITY "
    "PRIMARY KEY, agent_id TEXT NOT NULL, kind TEXT NOT NULL, command TEXT NOT NULL, "
    "taken TEXT)",
    "CREATE INDEX IF NOT EXISTS agentcore_inbox_open ON agentcore_inbox (agent_id, n)",
    "CREATE TABLE IF NOT EXISTS agentcore_agents (agent_id TEXT PRIMARY KEY, "
    "definition TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS agentcore_workers (executor_id TEXT PRIMARY KEY, "
    "seen_ms BIGINT NOT NULL)",
    "ALTER TABLE agentcore_workers ADD COLUMN IF NOT EXISTS taken_ms BIGINT",
)
ENDED = "agentcore_ended"
"""The channel a workflow's id is sent on when it ends (module docstring)."""

_NOTIFY_ENDINGS = (
    "CREATE OR REPLACE FUNCTION agentcore_notify_ended() RETURNS trigger LANGUAGE plpgsql "
    f"AS $$ BEGIN PERFORM pg_notify('{ENDED}', NEW.workflow_uuid); RETURN NULL; END $$",
    "CREATE OR REPLACE TRIGGER agentcore_ended AFTER INSERT OR UPDATE OF status "
    "ON dbos.workflow_status FOR EACH ROW WHEN (NEW.name = 'agentcore_advance' AND "
    "NEW.status IN ('SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED')) "
    "EXECUTE FUNCTION agentcore_notify_ended()",
)
_LOCK_KEY = 0x61C0D0AB1E
_NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

_CLAIM = """
UPDATE agentcore_inbox SET taken = ?
WHERE n IN (
    SELECT n FROM agentcore_inbox
    WHERE agent_id = ? AND (taken IS NULL OR taken = ?)
      AND CASE WHEN ? THEN n <= coalesce(
            (SELECT min(n) FROM agentcore_inbox WHERE agent_id = ?
               AND (taken IS NULL OR taken = ?) AND kind = ANY(?)),
            9223372036854775807)
          ELSE NOT (kind = ANY(?)) AND kind <> 'elicitation_answer' END
)
RETURNING n, command
"""

_CLAIM_ANSWERS = """
UPDATE agentcore_inbox SET taken = ?
WHERE agent_id = ? AND (taken IS NULL OR taken = ?) AND kind = 'elicitation_answer'
  AND command::jsonb -> 'data' ->> 'elicitation_id' = ?
RETURNING n, command
"""


class Store:
    """The tables above in the PostgreSQL database ``conninfo`` (created when missing)."""

    def __init__(self, conninfo: str, *, max_connections: int = 4) -> None:
        self.database = PostgresDatabase(conninfo, max_connections=max_connections)
        with self.database.transaction() as tx:
            tx.run("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))
            for statement in _SCHEMA:
                tx.run(statement)

    def close(self) -> None:
        self.database.close()

    def notify_endings(self) -> None:
        """Install the trigger that announces ended workflows (module docstring); DBOS's
        tables must exist (a worker calls this once DBOS is launched). Idempotent."""
        with self.database.transaction() as tx:
            tx.run("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))
            for statement in _NOTIFY_ENDINGS:
                tx.run(statement)

    # -- agents and their inbox -----------------------------------------------------------

    def adopt(self, agent_id: str, definition: str) -> str:
        """Record that ``agent_id`` runs ``definition`` (its first command does); return the
        definition it runs. ``ConfigurationError`` when it already runs another one."""
        with self.database.transaction(durable=True) as tx:
            tx.run(
                "INSERT INTO agentcore_agents (agent_id, definition) VALUES (?, ?) "
                "ON CONFLICT (agent_id) DO NOTHING",
                (agent_id, definition),
            )
            ((stored,),) = tx.run(
                "SELECT definition FROM agentcore_agents WHERE agent_id = ?", (agent_id,)
            )
        if stored != definition:
            raise ConfigurationError(
                f"agent {agent_id!r} runs definition {stored!r}, not {definition!r}"
            )
        return str(stored)

    def definition_of(self, agent_id: str) -> str:
        """The definition ``agent_id`` runs; ``KeyError`` when it has never been sent one."""
        rows = self.database.query(
            "SELECT definition FROM agentcore_agents WHERE agent_id = ?", (agent_id,)
        )
        if not rows:
            raise KeyError(f"no durable agent {agent_id!r}: submit a prompt to it first")
        return str(rows[0][0])

    def agents(self) -> list[tuple[str, str]]:
        """Every agent that was sent a command, with its definition, by agent id."""
        rows = self.database.query("SELECT agent_id, definition FROM agentcore_agents")
        return sorted((str(a), str(d)) for a, d in rows)

    def journal_end(self, agent_id: str) -> int:
        """The ``seq`` of the agent's last journal entry (0 for none), read now."""
        rows = self.database.query(
            "SELECT coalesce(max(seq), 0) FROM agentcore_entries WHERE agent_id = ?", (agent_id,)
        )
        return int(rows[0][0])

    def post(self, agent_id: str, kind: str, command: str) -> int:
        """Append a command (its wire JSON) to the agent's inbox, durably; its number."""
        with self.database.transaction(durable=True) as tx:
            ((n,),) = tx.run(
                "INSERT INTO agentcore_inbox (agent_id, kind, command) VALUES (?, ?, ?) "
                "RETURNING n",
                (agent_id, kind, command),
            )
        return int(n)

    def claim(self, agent_id: str, key: str, at_rest: bool) -> list[str]:
        """Take the agent's waiting commands under ``key`` (module docstring), in order:
        at rest, those up to and including the first that starts a run; during a run,
        all but those that start one.

        The commit does not wait for the disk: a claim always runs inside a DBOS step,
        whose durable record commits after it (flushing this commit's WAL with its own);
        a claim lost with a crashed server is taken again by the step run again."""
        starts = sorted(STARTS)
        with self.database.transaction() as tx:
            rows: Sequence[Any] = tx.run(
                _CLAIM, (key, agent_id, key, at_rest, agent_id, key, starts, starts)
            )
        return [command for _, command in sorted(rows)]

    def claim_answers(self, agent_id: str, key: str, elicitation_id: str) -> list[str]:
        """Take the answers to elicitation ``elicitation_id`` under ``key``, in order (a
        claim run again under the same key gets them back, as ``claim``'s rows)."""
        with self.database.transaction() as tx:
            rows: Sequence[Any] = tx.run(_CLAIM_ANSWERS, (key, agent_id, key, elicitation_id))
        return [command for _, command in sorted(rows)]

    def has_open(self, agent_id: str, kinds: Sequence[str]) -> bool:
        """Whether a command of one of ``kinds`` waits for the agent (read only)."""
        rows = self.database.query(
            "SELECT 1 FROM agentcore_inbox WHERE agent_id = ? AND taken IS NULL "
            "AND kind = ANY(?) LIMIT 1",
            (agent_id, list(kinds)),
        )
        return bool(rows)

    # -- workers --------------------------------------------------------------------------

    def beat(self, executor_id: str) -> None:
        """Stamp ``executor_id``'s heartbeat with the database's clock."""
        with self.database.transaction() as tx:
            tx.run(
                "INSERT INTO agentcore_workers (executor_id, seen_ms) VALUES (?, "
                f"{_NOW_MS}) ON CONFLICT (executor_id) DO UPDATE SET seen_ms = excluded.seen_ms, "
                "taken_ms = NULL",
                (executor_id,),
            )

    def leave(self, executor_id: str) -> None:
        """Forget ``executor_id``: a worker that stops cleanly, or a dead one whose
        workflows its taker has handed back (``take_dead``)."""
        with self.database.transaction() as tx:
            tx.run("DELETE FROM agentcore_workers WHERE executor_id = ?", (executor_id,))

    def take_dead(self, dead_after_ms: int) -> list[str]:
        """The workers silent for ``dead_after_ms``, marked taken in the same statement, so
        one survivor takes each dead worker's workflows over. The row stays until its
        taker calls ``leave`` once they are handed back: a taker that dies (or fails)
        before that leaves a mark that goes stale after ``dead_after_ms``, and another
        survivor takes the same worker again (deleting the row first stranded what the
        taker had not handed back yet)."""
        with self.database.transaction(durable=True) as tx:
            rows = tx.run(
                f"UPDATE agentcore_workers SET taken_ms = {_NOW_MS} "
                f"WHERE seen_ms < {_NOW_MS} - ? "
                f"AND (taken_ms IS NULL OR taken_ms < {_NOW_MS} - ?) RETURNING executor_id",
                (dead_after_ms, dead_after_ms),
            )
        return sorted(str(r[0]) for r in rows)

    def workers(self) -> list[str]:
        """The executor ids of the workers with a heartbeat row."""
        return sorted(
            str(r[0]) for r in self.database.query("SELECT executor_id FROM agentcore_workers")
        )
