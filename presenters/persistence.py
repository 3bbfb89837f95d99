"""A persistence presenter: messages and turns as rows of a database, for analytics.

``encode(agent_id, output)`` is pure: a ``MessageRow`` for each whole message (the user's,
the model's with its usage, a tool result, an error), a ``TurnRow`` for each finished turn
(duration, usage, cost, model), ``None`` for everything else (deltas, state events).
``PersistencePresenter`` buffers the rows and writes them in one transaction when a turn
ends (``turn_response`` or ``conversation_end``), when ``max_buffered`` wait, on
``flush()`` and on ``close()``; inside a running event loop the write runs in a worker
thread, so the agent never waits for the database. Like every presenter it runs on its
own lane: a database that fails is reported (``Agent.on_error``) and the agent goes on.
A crash loses at most the rows of the turn in progress; the journal still holds its
inputs, and ``agentcore.journal.replay`` gives every output again.

The database is SQLite (``SqliteRows(path)``, the standard library) or PostgreSQL
(``PostgresRows(conninfo or pool)``, the ``postgres`` extra). Tables (created if missing):

- ``agentcore_messages``: ``agent_id, ts, type, message_id, text, model``, the usage
  columns, ``stop_reason, wire`` (the whole message, JSON, each media part's bytes
  replaced by a reference: ``"blob": "sha256:..."``);
- ``agentcore_blobs``: ``hash, data``, the bytes of each image, document or audio part
  once (the table a SQL journal in the same database uses, so they are shared);
- ``agentcore_turns``: ``agent_id, turn_id, ts, duration_ms``, the usage columns,
  ``cost, model, stop_reason``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from agentcore import to_dict
from agentcore.errors import EngineClosedError
from agentcore.events import (
    AssistantMessage,
    ConversationEnd,
    ErrorMessage,
    TextContent,
    ToolCallMessage,
    ToolResultMessage,
    TurnResponse,
    Usage,
    UserMessage,
)
from agentcore.journal import extract_blobs

from ._base import Filter

__all__ = [
    "KEPT",
    "MessageRow",
    "PersistencePresenter",
    "PostgresRows",
    "RowSink",
    "SqliteRows",
    "TurnRow",
    "encode",
    "rows_of",
]

KEPT = Filter(
    types={
        "user_message",
        "assistant_message",
        "tool_result_message",
        "error_message",
        "turn_response",
    }
)
"""What a ``PersistencePresenter`` keeps by default: the history and the turns (a tool
call is in its ``assistant_message`` already)."""

_USAGE = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


class MessageRow(NamedTuple):
    agent_id: str
    ts: int
    type: str
    message_id: str | None
    text: str
    model: str | None
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    stop_reason: str | None
    wire: str


class TurnRow(NamedTuple):
    agent_id: str
    turn_id: str
    ts: int
    duration_ms: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost: float | None
    model: str | None
    stop_reason: str | None


def _usage(usage: Usage) -> tuple[int, int, int, int]:
    return (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


def encode(
    agent_id: str, output: Any, blobs: dict[str, bytes] | None = None
) -> MessageRow | TurnRow | None:
    """The row for ``output`` (module docstring), or None when it is not kept; with
    ``blobs``, the bytes of its media go there (digest -> bytes) and ``wire`` refers to
    them."""
    cls = type(output)
    if cls is TurnResponse:
        return TurnRow(
            agent_id,
            output.turn_id,
            output.timestamp,
            output.duration_ms,
            *_usage(output.usage),
            output.cost,
            output.model,
            output.stop_reason,
        )
    zero = (0, 0, 0, 0)
    if cls is AssistantMessage:
        row = (output.message_id, output.text, output.model, *_usage(output.usage))
        stop = output.stop_reason
    elif cls is UserMessage:
        row, stop = (output.message_id, _text(output.content), None, *zero), None
    elif cls is ToolResultMessage:
        row, stop = (output.tool_call_id, _text(output.result), None, *zero), None
    elif cls is ErrorMessage:
        row, stop = (None, output.message, None, *zero), None
    elif cls is ToolCallMessage:  # kept only when a filter asks for it (the seed's example)
        call = output.tool_call
        row, stop = (call.tool_call_id, call.raw_input, None, *zero), None
    else:
        return None
    event = to_dict(output)
    if blobs is not None:
        event = extract_blobs(event, blobs.__setitem__)
    wire = json.dumps(event, separators=(",", ":"))
    return MessageRow(agent_id, output.timestamp, output.type, *row, stop, wire)


class RowSink(Protocol):
    """Where the rows go: ``write`` puts them in one transaction; ``close`` is idempotent.

    Optional: ``write_blobs(blobs)`` stores media bytes by digest (idempotent per
    digest); a sink that has it gets rows whose ``wire`` refers to them, one without it
    gets the media inline."""

    def write(self, messages: Sequence[MessageRow], turns: Sequence[TurnRow]) -> None: ...

    def close(self) -> None: ...


_BLOBS = "CREATE TABLE IF NOT EXISTS agentcore_blobs (hash TEXT PRIMARY KEY, data {} NOT NULL)"
_INSERT_BLOB = (
    "INSERT INTO agentcore_blobs (hash, data) VALUES ({0}, {0}) ON CONFLICT (hash) DO NOTHING"
)


_COLUMNS = {
    "messages": MessageRow._fields,
    "turns": TurnRow._fields,
}


def _create(real: str) -> list[str]:
    usage = ", ".join(f"{c} BIGINT NOT NULL" for c in _USAGE)
    return [
        "CREATE TABLE IF NOT EXISTS agentcore_messages (agent_id TEXT NOT NULL, "
        "ts BIGINT NOT NULL, type TEXT NOT NULL, message_id TEXT, text TEXT NOT NULL, "
        f"model TEXT, {usage}, stop_reason TEXT, wire TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS agentcore_messages_agent ON agentcore_messages (agent_id, ts)",
        "CREATE TABLE IF NOT EXISTS agentcore_turns (agent_id TEXT NOT NULL, "
        f"turn_id TEXT NOT NULL, ts BIGINT NOT NULL, duration_ms BIGINT NOT NULL, {usage}, "
        f"cost {real}, model TEXT, stop_reason TEXT)",
        "CREATE INDEX IF NOT EXISTS agentcore_turns_agent ON agentcore_turns (agent_id, ts)",
        _BLOBS.format("BLOB" if real == "REAL" else "BYTEA"),
    ]


def _insert(table: str, mark: str) -> str:
    columns = _COLUMNS[table]
    return (
        f"INSERT INTO agentcore_{table} ({', '.join(columns)}) "
        f"VALUES ({', '.join(mark for _ in columns)})"
    )


class SqliteRows:
    """Rows in a SQLite file (WAL mode; its own connection, usable from one thread at a
    time: the presenter's lane)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._conn: sqlite3.Connection | None = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False
        )
        self._conn.execute("PRAGMA busy_timeout=10000")
        self._conn.execute("PRAGMA journal_mode=WAL")
        for statement in _create("REAL"):
            self._conn.execute(statement)

    def write(self, messages: Sequence[MessageRow], turns: Sequence[TurnRow]) -> None:
        conn = self._conn
        if conn is None:
            raise EngineClosedError("this SqliteRows is closed")
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(_insert("messages", "?"), messages)
            conn.executemany(_insert("turns", "?"), turns)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def write_blobs(self, blobs: Mapping[str, bytes]) -> None:
        conn = self._conn
        if conn is None:
            raise EngineClosedError("this SqliteRows is closed")
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(_INSERT_BLOB.format("?"), blobs.items())
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


class PostgresRows:
    """Rows in a PostgreSQL database: ``source`` is a connection string (a small pool is
    made, and closed with the sink) or a ``psycopg_pool.ConnectionPool`` (left open)."""

    def __init__(self, source: Any) -> None:
        from psycopg_pool import ConnectionPool  # the postgres extra

        self._own = isinstance(source, str)
        self._pool: Any = (
            ConnectionPool(source, min_size=1, max_size=2, open=True) if self._own else source
        )
        with self._pool.connection() as conn:
            for statement in _create("DOUBLE PRECISION"):
                conn.execute(statement)

    def write(self, messages: Sequence[MessageRow], turns: Sequence[TurnRow]) -> None:
        if self._pool is None:
            raise EngineClosedError("this PostgresRows is closed")
        with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            if messages:
                cur.executemany(_insert("messages", "%s"), messages)
            if turns:
                cur.executemany(_insert("turns", "%s"), turns)

    def write_blobs(self, blobs: Mapping[str, bytes]) -> None:
        if self._pool is None:
            raise EngineClosedError("this PostgresRows is closed")
        with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(_INSERT_BLOB.format("%s"), list(blobs.items()))

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None and self._own:
            pool.close()


_TURN_END = (TurnResponse, ConversationEnd)


class PersistencePresenter:
    """Writes messages and turns to ``sink`` (a ``SqliteRows``, a ``PostgresRows`` or
    your ``RowSink``), batched (module docstring). ``filter`` says what is kept (``KEPT``
    by default: messages and turns; the seed's example kept
    ``Filter(types={"assistant_message", "tool_call_message"})``). ``close()`` writes
    what waits and closes the sink; ``present`` afterwards raises ``EngineClosedError``.
    A failed write keeps the rows for the next one and raises (the agent reports it)."""

    def __init__(
        self, sink: RowSink, *, filter: Filter | None = None, max_buffered: int = 1000
    ) -> None:
        if max_buffered < 1:
            raise ValueError(f"max_buffered must be at least 1, got {max_buffered}")
        self._sink = sink
        self._filter = filter or KEPT
        self._max_buffered = max_buffered
        self._messages: list[MessageRow] = []
        self._turns: list[TurnRow] = []
        self._write_blobs = getattr(sink, "write_blobs", None)
        self._blobs: dict[str, bytes] | None = {} if self._write_blobs is not None else None
        self._closed = False

    def present(self, agent_id: str, output: Any) -> Any:
        """Keep the output's row; write the batch when a turn ends or it is full (in a
        worker thread inside an event loop: the returned awaitable)."""
        if self._closed:
            raise EngineClosedError("this PersistencePresenter is closed; make a new one")
        if self._filter(output):
            row = encode(agent_id, output, self._blobs)
            if isinstance(row, MessageRow):
                self._messages.append(row)
            elif isinstance(row, TurnRow):
                self._turns.append(row)
        waiting = len(self._messages) + len(self._turns)
        if waiting and (isinstance(output, _TURN_END) or waiting >= self._max_buffered):
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                self.flush()
                return None
            return asyncio.to_thread(self.flush)
        return None

    def flush(self) -> None:
        """Write the rows that wait, in one transaction."""
        messages, turns = self._messages, self._turns
        if not messages and not turns:
            return
        self._messages, self._turns = [], []
        try:
            if self._blobs and self._write_blobs is not None:  # before the rows
                self._write_blobs(self._blobs)
                self._blobs = {}
            self._sink.write(messages, turns)
        except BaseException:
            self._messages, self._turns = messages + self._messages, turns + self._turns
            raise

    def close(self) -> None:
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            self._sink.close()


def rows_of(
    outputs: Iterable[tuple[str, Any]], filter: Filter = KEPT
) -> tuple[list[MessageRow], list[TurnRow]]:
    """The rows a ``PersistencePresenter`` with ``filter`` keeps of ``(agent_id, output)``
    pairs (what a replay yields): to fill the tables again from a journal."""
    messages: list[MessageRow] = []
    turns: list[TurnRow] = []
    for agent_id, output in outputs:
        row = encode(agent_id, output) if filter(output) else None
        if isinstance(row, MessageRow):
            messages.append(row)
        elif isinstance(row, TurnRow):
            turns.append(row)
    return messages, turns
