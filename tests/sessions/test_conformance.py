"""Every journal and snapshot store agentcore ships passes the conformance checks anyone
can run on their own (``agentcore.testing.check_journal``, ``check_snapshot_store``):
memory, JSONL, SQLite and PostgreSQL (a real server, see tests/conftest.py)."""

from __future__ import annotations

import itertools
import pathlib
from collections.abc import Callable

import pytest

from agentcore.journal import (
    FileSnapshots,
    Journal,
    JsonlJournal,
    MemoryJournal,
    MemorySnapshots,
    PostgresJournal,
    SqliteJournal,
    SqlSnapshots,
)
from agentcore.testing import PostgresServer, check_journal, check_snapshot_store
from tests.conftest import fresh_schema

_names = itertools.count()


def test_memory_journal_conforms() -> None:
    check_journal(MemoryJournal, second=lambda journal: journal)


def test_jsonl_journal_conforms(tmp_path: pathlib.Path) -> None:
    def reopen(journal: Journal) -> Journal:
        assert isinstance(journal, JsonlJournal)
        journal.close()
        return JsonlJournal(journal.path)

    def second(journal: Journal) -> Journal:
        assert isinstance(journal, JsonlJournal)
        return JsonlJournal(journal.path)

    check_journal(
        lambda: JsonlJournal(tmp_path / f"{next(_names)}.jsonl"), reopen=reopen, second=second
    )


@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("fsync", ["never", "turn"])
def test_sqlite_journal_conforms(tmp_path: pathlib.Path, batch: int, fsync: str) -> None:
    def make() -> Journal:
        return SqliteJournal(tmp_path / f"{next(_names)}.db", fsync=fsync, batch=batch)  # type: ignore[arg-type]

    def reopen(journal: Journal) -> Journal:
        assert isinstance(journal, SqliteJournal)
        journal.close()
        return SqliteJournal(journal.path, fsync=fsync, batch=batch)  # type: ignore[arg-type]

    def second(journal: Journal) -> Journal:
        assert isinstance(journal, SqliteJournal)
        return SqliteJournal(journal.path, fsync=fsync, batch=batch)  # type: ignore[arg-type]

    check_journal(make, reopen=reopen, second=second)


def test_sqlite_journal_conforms_always(tmp_path: pathlib.Path) -> None:
    check_journal(
        lambda: SqliteJournal(tmp_path / f"{next(_names)}.db", fsync="always"), examples=10
    )


@pytest.mark.parametrize(("fsync", "batch"), [("never", 1), ("turn", 40), ("always", 1)])
def test_postgres_journal_conforms(postgres_server: PostgresServer, fsync: str, batch: int) -> None:
    made: dict[int, str] = {}

    def make() -> Journal:
        conninfo = fresh_schema(postgres_server)
        journal = PostgresJournal(conninfo, fsync=fsync, batch=batch)  # type: ignore[arg-type]
        made[id(journal)] = conninfo
        return journal

    def reopen(journal: Journal) -> Journal:
        journal.close()
        return PostgresJournal(made[id(journal)], fsync=fsync, batch=batch)  # type: ignore[arg-type]

    def second(journal: Journal) -> Journal:
        return PostgresJournal(made[id(journal)], fsync=fsync, batch=batch)  # type: ignore[arg-type]

    check_journal(make, reopen=reopen, second=second, examples=15)


STORES: dict[str, Callable[[pathlib.Path, int], object]] = {
    "memory": lambda _path, keep: MemorySnapshots(keep=keep),
    "file": lambda path, keep: FileSnapshots(path / f"{next(_names)}", keep=keep),
    "sqlite": lambda path, keep: SqlSnapshots(
        SqliteJournal(path / f"{next(_names)}.db"), keep=keep
    ),
}


@pytest.mark.parametrize("kind", list(STORES))
def test_snapshot_stores_conform(tmp_path: pathlib.Path, kind: str) -> None:
    check_snapshot_store(lambda keep: STORES[kind](tmp_path, keep))  # type: ignore[arg-type,return-value]


def test_postgres_snapshots_conform(postgres_db: str) -> None:
    journal = PostgresJournal(postgres_db)
    check_snapshot_store(lambda keep: SqlSnapshots(journal, keep=keep))
    journal.close()
