"""What the SQL journals add to the protocol: batches that wait until full, a sync or a
read; a write that fails leaves the sequence as it was and keeps the batch; a corrupt row
is named; the schema is versioned, a database of schema v1 is upgraded (the session
tables filled from its entries) and a newer one refused; no password in any message.

Tests the private module ``agentcore._journal.sql``: the SQL journals' rows, schema and
databases."""

from __future__ import annotations

import asyncio
import pathlib
import sqlite3
from typing import Any

import psycopg
import pytest

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.errors import ConfigurationError
from agentcore.events import TextDelta, Usage
from agentcore.journal import (
    SCHEMA_VERSION,
    JournalError,
    MemoryJournal,
    PostgresJournal,
    SqliteJournal,
    SqlJournal,
)
from agentcore.pricing import ModelPrice
from agentcore.sessions import Session, Sessions
from tests.sessions.conftest import Backend


def _rows(backend: Backend, journal: SqlJournal) -> int:
    """The entries another connection sees."""
    if backend.name == "sqlite":
        assert isinstance(journal, SqliteJournal)
        with sqlite3.connect(journal.path) as conn:
            return int(conn.execute("SELECT count(*) FROM agentcore_entries").fetchone()[0])
    return int(journal.database.query("SELECT count(*) FROM agentcore_entries")[0][0])


def _open(backend: Backend, **options: Any) -> SqlJournal:
    journal, _snapshots = backend.open()
    assert isinstance(journal, SqlJournal)
    journal.close()
    database = journal.database
    if backend.name == "sqlite":
        assert isinstance(journal, SqliteJournal)
        return SqliteJournal(journal.path, **options)
    return PostgresJournal(database._conninfo, **options)  # type: ignore[attr-defined]


def test_a_batch_waits_until_full_a_sync_or_a_read(sql_backend: Backend) -> None:
    journal = _open(sql_backend, batch=3)
    journal.append("a", TextDelta("1", 0, timestamp=1))
    journal.append("b", TextDelta("2", 0, timestamp=2))
    assert _rows(sql_backend, journal) == 0
    journal.append("a", TextDelta("3", 0, timestamp=3))
    assert _rows(sql_backend, journal) == 3
    journal.append("a", TextDelta("4", 0, timestamp=4))
    journal.sync()
    assert _rows(sql_backend, journal) == 4
    journal.append("a", TextDelta("5", 0, timestamp=5))
    assert [e.seq for e in journal.entries("a")] == [1, 2, 3, 4]
    assert _rows(sql_backend, journal) == 5
    journal.append("a", TextDelta("6", 0, timestamp=6))
    journal.close()
    assert _rows(sql_backend, journal) == 6
    assert [e.event.text for e in journal.entries()] == ["1", "2", "3", "4", "5", "6"]


def test_options_are_checked(tmp_path: pathlib.Path) -> None:
    for options, problem in [
        ({"batch": 0}, "batch must be an int >= 1"),
        ({"batch": True}, "batch must be an int >= 1"),
        ({"fsync": "sometimes"}, "fsync must be one of"),
        ({"fsync": "always", "batch": 8}, "cannot wait in a batch"),
    ]:
        with pytest.raises(ConfigurationError, match=problem):
            SqliteJournal(tmp_path / "x.db", **options)
    with pytest.raises(JournalError, match="agent_id must be a string"):
        SqliteJournal(tmp_path / "y.db").append(5, TextDelta("x", 0))  # type: ignore[arg-type]


def _refuse(backend: Backend, journal: SqlJournal, refuse: bool) -> None:
    """Make the database refuse (or accept again) entries of agent 'bad'."""
    if backend.name == "sqlite":
        with journal.database.transaction() as tx:
            if refuse:
                tx.run(
                    "CREATE TRIGGER refuse BEFORE INSERT ON agentcore_entries "
                    "WHEN NEW.agent_id = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END"
                )
            else:
                tx.run("DROP TRIGGER refuse")
        return
    with journal.database.transaction() as tx:
        if refuse:
            tx.run("ALTER TABLE agentcore_entries ADD CONSTRAINT refuse CHECK (agent_id <> 'bad')")
        else:
            tx.run("ALTER TABLE agentcore_entries DROP CONSTRAINT refuse")


def test_a_failed_write_moves_no_sequence_and_keeps_the_batch(sql_backend: Backend) -> None:
    journal = _open(sql_backend, batch=3)
    _refuse(sql_backend, journal, True)
    journal.append("a", TextDelta("1", 0, timestamp=1))
    journal.append("a", TextDelta("2", 0, timestamp=2))
    with pytest.raises(JournalError, match="cannot write 3 journal entries"):
        journal.append("bad", TextDelta("x", 0, timestamp=3))
    assert journal.last_seq("bad") == 0 and journal.last_seq("a") == 2
    _refuse(sql_backend, journal, False)
    journal.sync()
    assert [(e.agent_id, e.seq) for e in journal.entries()] == [("a", 1), ("a", 2)]
    assert journal.append("bad", TextDelta("y", 0, timestamp=4)) == 1
    journal.close()


def test_a_corrupt_row_is_named(sql_backend: Backend) -> None:
    journal = _open(sql_backend)
    journal.append("a", TextDelta("fine", 0, timestamp=1))
    journal.append("a", TextDelta("soon broken", 0, timestamp=2))
    with journal.database.transaction() as tx:
        tx.run("UPDATE agentcore_entries SET event = ? WHERE seq = 2", ('{"type": "nope"}',))
    read: list[Any] = []
    with pytest.raises(JournalError, match="corrupt journal entry 2 of agent 'a'"):
        read.extend(journal.entries("a"))
    assert [e.seq for e in read] == [1]
    journal.close()


def test_no_password_in_names_or_errors(postgres_db: str) -> None:
    journal = PostgresJournal(postgres_db)
    password = postgres_db.split("password=")[1].split()[0]
    assert password not in repr(journal)
    journal.close()
    wrong = postgres_db.replace(f"password={password}", "password=wrong-secret")
    with pytest.raises(JournalError) as caught:
        PostgresJournal(wrong)
    assert "wrong-secret" not in str(caught.value)
    with pytest.raises(ConfigurationError, match="connection string or a psycopg_pool"):
        PostgresJournal(42)  # type: ignore[arg-type]


# -- the schema ------------------------------------------------------------------------------


def _conversation() -> MemoryJournal:
    """A real conversation of two runs with usage, priced."""

    async def talk() -> MemoryJournal:
        journal = MemoryJournal()
        heard = Usage(100, 20, image_tokens=10, audio_tokens=5, document_tokens=3)
        turns = [text_turn(t, usage=heard) for t in ("one", "two")]
        agent = Agent(
            ScriptedDriver(turns), journal=journal, session_id="old", price=ModelPrice(3, 15)
        )
        await agent.run("first")
        await agent.run("second")
        await agent.aclose()
        return journal

    return asyncio.run(talk())


def _v1_database(backend: Backend, journal: MemoryJournal) -> Any:
    """A database as schema v1 made it, holding ``journal``'s entries and a snapshot."""
    from agentcore._journal.sql.rows import encode_event
    from agentcore._journal.sql.schema import migrate

    sql_journal, _snapshots = backend.open()
    assert isinstance(sql_journal, SqlJournal)
    sql_journal.close()
    if backend.name == "sqlite":
        assert isinstance(sql_journal, SqliteJournal)
        sql_journal.path.unlink()
        for suffix in ("-wal", "-shm"):
            pathlib.Path(f"{sql_journal.path}{suffix}").unlink(missing_ok=True)
        from agentcore._journal.sql.sqlite import SqliteDatabase

        database: Any = SqliteDatabase(sql_journal.path)
    else:
        conninfo = sql_journal.database._conninfo  # type: ignore[attr-defined]
        with psycopg.connect(conninfo, autocommit=True) as conn:
            for table in ("schema", "entries", "snapshots", "sessions", "calls", "blobs"):
                conn.execute(f"DROP TABLE agentcore_{table}")
        from agentcore._journal.sql.postgres import PostgresDatabase

        database = PostgresDatabase(conninfo)
    assert migrate(database, target=1) == 1
    with database.transaction() as tx:
        for pos, (agent, seq, event) in enumerate(journal.entries(), 1):
            if backend.name == "sqlite":
                tx.run(
                    "INSERT INTO agentcore_entries VALUES (?, ?, ?, ?)",
                    (agent, seq, pos, encode_event(agent, event, {})),
                )
            else:
                tx.run(
                    "INSERT INTO agentcore_entries (agent_id, seq, event) VALUES (?, ?, ?)",
                    (agent, seq, encode_event(agent, event, {})),
                )
        tx.run("INSERT INTO agentcore_snapshots VALUES (?, ?, ?)", ("old", 3, b"old format"))
    database.close()
    return sql_journal


def test_a_database_of_schema_v1_is_upgraded(sql_backend: Backend) -> None:
    conversation = _conversation()
    _v1_database(sql_backend, conversation)
    journal = _open(sql_backend)
    applied = journal.database.query("SELECT version, name FROM agentcore_schema ORDER BY version")
    assert [tuple(r) for r in applied] == [
        (1, "entries and snapshots"),
        (2, "sessions and model calls"),
        (3, "media blobs"),
        (4, "usage breakdown"),
    ]
    assert SCHEMA_VERSION == 4
    assert list(journal.entries()) == list(conversation.entries())
    sessions = Sessions(journal)
    (info,) = sessions.list()
    assert (info.session_id, info.entries, info.turns, info.calls) == (
        "old",
        conversation.last_seq("old"),
        2,
        2,
    )
    # v4 recounted the calls with their breakdown (v2 filled only the sessions)
    assert info.usage == Usage(200, 40, image_tokens=20, audio_tokens=10, document_tokens=6)
    assert info.cost == pytest.approx((200 * 3 + 40 * 15) / 1e6)

    async def go_on() -> None:
        from agentcore.journal import SqlSnapshots

        agent = Agent(
            ScriptedDriver([text_turn("three", usage=Usage(100, 20))]),
            session=Session(journal, "old", SqlSnapshots(journal)),  # its v1 snapshot: unusable
            price=ModelPrice(3, 15),
        )
        assert [m.type for m in agent.state.messages].count("assistant_message") == 2
        await agent.run("third")
        await agent.aclose()

    asyncio.run(go_on())
    assert sessions.get("old").calls == 3  # type: ignore[union-attr]
    journal.close()
    reopened = _open(sql_backend)  # migrating again does nothing
    assert len(reopened.database.query("SELECT * FROM agentcore_schema")) == 4
    reopened.close()


def test_a_newer_schema_is_refused(sql_backend: Backend) -> None:
    journal = _open(sql_backend)
    with journal.database.transaction() as tx:
        tx.run("INSERT INTO agentcore_schema VALUES (?, ?, ?)", (99, "from the future", 0))
    journal.close()
    with pytest.raises(JournalError, match="schema v99; this agentcore knows up to v4"):
        _open(sql_backend)
