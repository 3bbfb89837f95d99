"""The versioned schema of agentcore's tables, and its forward migrations.

Every database records the migrations it ran in ``agentcore_schema`` (version, name, when,
in ms). Opening a journal runs the ones it lacks, in order, each in its own transaction
with its row, so a crash between two leaves a database at a known version; two processes
opening one database at once take turns (SQLite's write lock, a PostgreSQL advisory
lock). A database of a newer version than this agentcore knows is refused: nothing is
ever migrated backwards.

- v1, ``entries and snapshots``: ``agentcore_entries`` (one row per journal entry: the
  agent, its ``seq``, ``pos`` for the append order across agents, the event as JSON) and
  ``agentcore_snapshots``.
- v2, ``sessions and model calls``: ``agentcore_sessions`` and ``agentcore_calls`` (see
  ``tally``), filled from the entries already there.
- v3, ``media blobs``: ``agentcore_blobs`` (the bytes of each image, document or audio
  clip, once, by its sha256 ``"sha256:<hex>"``; entries refer to them, see ``blobs``).
- v4, ``usage breakdown``: ``agentcore_calls`` gains ``image_tokens``, ``audio_tokens``,
  ``document_tokens`` and ``cache_write_1h_tokens`` (``Usage``'s breakdown); every call
  is recounted from the entries already there (v2 fills only the sessions, since its
  table lacks these columns).

All tables are prefixed ``agentcore_``, so they can live in an application's database.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ..read import JournalError
from .database import Database, Dialect, Tx
from .rows import blob_reader, decode_rows
from .tally import Counted, Tally
from .writes import write_calls, write_sessions

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Migration", "migrate", "schema_version"]


class Migration(NamedTuple):
    version: int
    name: str
    statements: Callable[[Dialect], list[str]]
    backfill: Callable[[Tx], None] | None = None


def _v1(dialect: Dialect) -> list[str]:
    if dialect == "sqlite":
        entries = (
            "CREATE TABLE agentcore_entries (agent_id TEXT NOT NULL, seq INTEGER NOT NULL, "
            "pos INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (agent_id, seq)) "
            "WITHOUT ROWID"
        )
        blob = "BLOB"
    else:
        entries = (
            "CREATE TABLE agentcore_entries (agent_id TEXT NOT NULL, seq BIGINT NOT NULL, "
            "pos BIGINT GENERATED ALWAYS AS IDENTITY, event TEXT NOT NULL, "
            "PRIMARY KEY (agent_id, seq))"
        )
        blob = "BYTEA"
    return [
        entries,
        "CREATE UNIQUE INDEX agentcore_entries_pos ON agentcore_entries (pos)",
        "CREATE TABLE agentcore_snapshots (agent_id TEXT NOT NULL, seq BIGINT NOT NULL, "
        f"state {blob} NOT NULL, PRIMARY KEY (agent_id, seq))",
    ]


def _v2(dialect: Dialect) -> list[str]:
    real = "REAL" if dialect == "sqlite" else "DOUBLE PRECISION"
    return [
        "CREATE TABLE agentcore_sessions (agent_id TEXT PRIMARY KEY, agent_name TEXT, "
        "created_ms BIGINT, last_ms BIGINT, entries BIGINT NOT NULL DEFAULT 0, "
        "turns BIGINT NOT NULL DEFAULT 0, price TEXT)",
        "CREATE INDEX agentcore_sessions_last ON agentcore_sessions (last_ms)",
        "CREATE TABLE agentcore_calls (agent_id TEXT NOT NULL, seq BIGINT NOT NULL, "
        "ts BIGINT, model TEXT NOT NULL, input_tokens BIGINT NOT NULL, "
        "output_tokens BIGINT NOT NULL, cache_read_tokens BIGINT NOT NULL, "
        "cache_write_tokens BIGINT NOT NULL, reasoning_tokens BIGINT NOT NULL, "
        f"cost {real}, PRIMARY KEY (agent_id, seq))",
        "CREATE INDEX agentcore_calls_ts ON agentcore_calls (ts)",
    ]


_BACKFILL_ROWS = 5000


def _all_entries(tx: Tx) -> Iterator[tuple[str, int, Any]]:
    last = -1
    while True:
        rows = tx.run(
            "SELECT agent_id, seq, event, pos FROM agentcore_entries WHERE pos > ? "
            "ORDER BY pos LIMIT ?",
            (last, _BACKFILL_ROWS),
        )
        if not rows:
            return
        yield from decode_rows(
            [row[:3] for row in rows], "the entries being migrated", blob_reader(tx)
        )
        last = rows[-1][3]


def _fill_sessions(tx: Tx) -> None:
    """Count the entries already there into the sessions (one pass, in append order)."""
    _backfill(tx, write_sessions)


def _fill_calls(tx: Tx) -> None:
    """Recount every model call from the entries already there."""
    _backfill(tx, write_calls)


def _backfill(tx: Tx, write: Callable[[Tx, Counted], None]) -> None:
    tally = Tally(lambda _agent: None, lambda _agent: None)
    batch: list[tuple[str, int, Any]] = []
    for entry in _all_entries(tx):
        batch.append(entry)
        if len(batch) >= _BACKFILL_ROWS:
            counted = tally.count(batch)
            write(tx, counted)
            tally.commit(counted)
            batch = []
    write(tx, tally.count(batch))


def _v4(_dialect: Dialect) -> list[str]:
    return [
        f"ALTER TABLE agentcore_calls ADD COLUMN {column} BIGINT NOT NULL DEFAULT 0"
        for column in ("image_tokens", "audio_tokens", "document_tokens", "cache_write_1h_tokens")
    ]


def _v3(dialect: Dialect) -> list[str]:
    blob = "BLOB" if dialect == "sqlite" else "BYTEA"
    # IF NOT EXISTS: a persistence presenter writing to this database may have made it
    return [
        f"CREATE TABLE IF NOT EXISTS agentcore_blobs (hash TEXT PRIMARY KEY, data {blob} NOT NULL)"
    ]


MIGRATIONS = (
    Migration(1, "entries and snapshots", _v1),
    Migration(2, "sessions and model calls", _v2, _fill_sessions),
    Migration(3, "media blobs", _v3),
    Migration(4, "usage breakdown", _v4, _fill_calls),
)
SCHEMA_VERSION = MIGRATIONS[-1].version

_SCHEMA_TABLE = (
    "CREATE TABLE IF NOT EXISTS agentcore_schema (version INTEGER PRIMARY KEY, "
    "name TEXT NOT NULL, applied_ms BIGINT NOT NULL)"
)
_LOCK_KEY = 0x61676E74  # the advisory lock PostgreSQL migrations take ("agnt")


def schema_version(database: Database) -> int:
    """The version of the schema in ``database`` (0 for one without agentcore's tables)."""
    (exists,) = database.query(_EXISTS[database.dialect])[0]
    if not exists:
        return 0
    (version,) = database.query("SELECT coalesce(max(version), 0) FROM agentcore_schema")[0]
    return int(version)


_EXISTS = {
    "sqlite": "SELECT count(*) FROM sqlite_master WHERE name = 'agentcore_schema'",
    "postgres": "SELECT to_regclass('agentcore_schema') IS NOT NULL",
}


def migrate(database: Database, target: int = SCHEMA_VERSION) -> int:
    """Run the migrations ``database`` lacks, up to ``target``; return its version.
    Raises ``JournalError`` for a database newer than this agentcore."""
    with database.transaction() as tx:
        if database.dialect == "postgres":
            tx.run("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))
        tx.run(_SCHEMA_TABLE)
    version = schema_version(database)
    if version > SCHEMA_VERSION:
        raise JournalError(
            f"{database.name} has agentcore schema v{version}; this agentcore knows up to "
            f"v{SCHEMA_VERSION}: upgrade agentcore to open it"
        )
    for migration in MIGRATIONS:
        if migration.version > target:
            break
        with database.transaction(durable=True) as tx:
            if database.dialect == "postgres":
                tx.run("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))
            (done,) = tx.run(
                "SELECT count(*) FROM agentcore_schema WHERE version = ?", (migration.version,)
            )[0]
            if done:
                continue
            for statement in migration.statements(database.dialect):
                tx.run(statement)
            if migration.backfill is not None:
                migration.backfill(tx)
            tx.run(
                "INSERT INTO agentcore_schema (version, name, applied_ms) VALUES (?, ?, ?)",
                (migration.version, migration.name, int(time.time() * 1000)),
            )
    return schema_version(database)
