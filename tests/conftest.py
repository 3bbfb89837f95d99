"""Fixtures shared by every test folder: a real PostgreSQL server.

``postgres_server`` starts one server for the whole test session (``PostgresServer``:
Debian's binaries, 127.0.0.1, a free port, a temporary data directory, never mocked);
``postgres_db`` gives each test a fresh, empty schema on it, as a connection string whose
``search_path`` is that schema.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from agentcore.testing import PostgresServer

_schemas = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    with PostgresServer() as server:
        yield server


def fresh_schema(server: PostgresServer) -> str:
    """A new empty schema on ``server``: its connection string (``search_path`` set)."""
    import psycopg

    name = f"t{next(_schemas)}"
    with psycopg.connect(server.conninfo, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    return f"{server.conninfo} options=-csearch_path={name}"


@pytest.fixture
def postgres_db(postgres_server: PostgresServer) -> str:
    return fresh_schema(postgres_server)
