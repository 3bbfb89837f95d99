"""Backends for the session tests: every journal agentcore ships, with a snapshot store
and a way to open the same storage again (as a new process would)."""

from __future__ import annotations

import itertools
import pathlib
from collections.abc import Callable
from typing import Any

import attrs
import pytest

from agentcore.journal import (
    FileSnapshots,
    Journal,
    JsonlJournal,
    MemoryJournal,
    MemorySnapshots,
    PostgresJournal,
    SnapshotStore,
    SqliteJournal,
    SqlJournal,
    SqlSnapshots,
)
from agentcore.testing import PostgresServer
from tests.conftest import fresh_schema

_names = itertools.count()


@attrs.define
class Backend:
    """``open()`` gives ``(journal, snapshots)`` over the same storage each time (the
    memory backend: a new journal holding the last one's entries, as a file reopened)."""

    name: str
    open: Callable[[], tuple[Journal, SnapshotStore]]

    @property
    def sql(self) -> bool:
        return self.name in ("sqlite", "postgres")


def make_backend(name: str, tmp_path: pathlib.Path, server: Any = None, **options: Any) -> Backend:
    n = next(_names)
    if name == "memory":
        last, snapshots = [MemoryJournal()], MemorySnapshots()

        def open_memory() -> tuple[Journal, SnapshotStore]:
            last[0] = MemoryJournal(last[0].entries())
            return last[0], snapshots

        return Backend(name, open_memory)
    if name == "jsonl":
        return Backend(
            name,
            lambda: (
                JsonlJournal(tmp_path / f"{n}.jsonl", **options),
                FileSnapshots(tmp_path / f"{n}-snapshots"),
            ),
        )
    if name == "sqlite":
        path = tmp_path / f"{n}.db"

        def open_sqlite() -> tuple[Journal, SnapshotStore]:
            journal = SqliteJournal(path, **options)
            return journal, SqlSnapshots(journal)

        return Backend(name, open_sqlite)
    conninfo = fresh_schema(server)

    def open_postgres() -> tuple[Journal, SnapshotStore]:
        journal = PostgresJournal(conninfo, **options)
        return journal, SqlSnapshots(journal)

    return Backend(name, open_postgres)


BACKENDS = ["memory", "jsonl", "sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> Backend:
    server = request.getfixturevalue("postgres_server") if request.param == "postgres" else None
    return make_backend(request.param, tmp_path, server)


@pytest.fixture(params=["sqlite", "postgres"])
def sql_backend(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> Backend:
    server = request.getfixturevalue("postgres_server") if request.param == "postgres" else None
    return make_backend(request.param, tmp_path, server)


def sql(journal: Journal) -> SqlJournal:
    assert isinstance(journal, SqlJournal)
    return journal


__all__ = ["BACKENDS", "Backend", "PostgresServer", "make_backend", "sql"]
