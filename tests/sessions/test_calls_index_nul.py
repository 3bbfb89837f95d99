"""A model name holding NUL (PostgreSQL's ``TEXT`` refuses it) is journaled exactly and
indexed in ``agentcore_calls`` with U+FFFD in its place, on every SQL journal alike (found
by the conformance test's Hypothesis draws)."""

from __future__ import annotations

import pathlib

import pytest

from agentcore.events import MessageStart
from agentcore.journal import Journal, PostgresJournal, SqliteJournal
from agentcore.testing import PostgresServer
from tests.conftest import fresh_schema


def _check(journal: Journal, model_column: list[tuple[object, ...]]) -> None:
    assert [entry.event.model for entry in journal.entries("a")] == ["gpt\x00x", "plain"]
    assert sorted(model_column) == [("gpt\ufffdx",), ("plain",)]


def test_postgres_indexes_a_nul_model(postgres_server: PostgresServer) -> None:
    journal = PostgresJournal(fresh_schema(postgres_server), fsync="always")
    journal.append("a", MessageStart("m1", "gpt\x00x"))
    journal.append("a", MessageStart("m2", "plain"))
    _check(journal, journal.database.query("SELECT model FROM agentcore_calls", ()))
    journal.close()


@pytest.mark.parametrize("fsync", ["always", "turn"])
def test_sqlite_indexes_a_nul_model(tmp_path: pathlib.Path, fsync: str) -> None:
    journal = SqliteJournal(tmp_path / "j.db", fsync=fsync)  # type: ignore[arg-type]
    journal.append("a", MessageStart("m1", "gpt\x00x"))
    journal.append("a", MessageStart("m2", "plain"))
    journal.sync()
    _check(journal, journal.database.query("SELECT model FROM agentcore_calls", ()))
    journal.close()
