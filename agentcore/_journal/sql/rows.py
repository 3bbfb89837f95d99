"""Journal entries to and from database rows: the event as one JSON text.

Writing is ``JsonlJournal``'s: the wire form as compact JSON, media moved to
``agentcore_blobs`` (``blobs``), secrets scrubbed. Reading
builds each event the way the JSONL reader's second stage does (``read.BUILDERS``: slots
filled directly for classes that check nothing, the class's own checks otherwise), with
``from_dict`` and its clear errors for anything else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import attrs

from ..._core.secrets import has_secret, scrub_wire
from ..._core.wire import from_dict, to_dict
from ..blobs import BLOB_MARKER, extract_blobs, resolve_blobs
from ..read import (
    BUILDERS,
    VALUES,
    JournalEntry,
    JournalError,
    MissingBlobError,
    dumps,
    load_line,
)
from .database import Database, Tx

__all__ = [
    "INSERT_BLOB",
    "SELECT_BLOB",
    "BlobGetter",
    "SqlBlobs",
    "blob_of",
    "blob_reader",
    "decode_rows",
    "encode_event",
]


def encode_event(agent_id: str, event: Any, blobs: dict[str, bytes]) -> str:
    """The event's wire form as JSON text, secrets scrubbed, the data of its media parts
    moved to ``blobs`` (digest -> bytes) and referred to by digest. Raises
    ``JournalError`` for an event JSON cannot hold."""
    try:
        wire = extract_blobs(to_dict(event), blobs.__setitem__)
        data = dumps(wire)
        if has_secret(data):  # rare: scrub the strings, never the media's bytes
            data = dumps(scrub_wire(wire))
    except (TypeError, ValueError) as exc:
        raise JournalError(
            f"cannot journal {type(event).__name__} for agent {agent_id!r}: "
            f"{type(exc).__name__}: {exc}; every field must be JSON data"
        ) from exc
    return data.decode()


def _wire(text: str) -> Any:
    """An event's JSON text as ``load_line`` reads it (integers beyond 64 bits kept)."""
    return load_line(text.encode("utf-8", "surrogatepass"))


BlobGetter = Callable[[str], bytes | None]

SELECT_BLOB = "SELECT data FROM agentcore_blobs WHERE hash = ?"
INSERT_BLOB = "INSERT INTO agentcore_blobs (hash, data) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING"


def blob_of(rows: list[tuple[Any, ...]]) -> bytes | None:
    return bytes(rows[0][0]) if rows else None  # PostgreSQL gives a memoryview


def blob_reader(tx: Tx) -> BlobGetter:
    """Read blobs inside the transaction ``tx``."""
    return lambda digest: blob_of(tx.run(SELECT_BLOB, (digest,)))


@attrs.define
class SqlBlobs:
    """The media of a database's entries: ``agentcore_blobs``, one row per blob
    (``blobs``). Shared by every session of the database, so a fork carries them."""

    database: Database

    def put(self, digest: str, data: bytes) -> None:
        with self.database.transaction() as tx:
            tx.run(INSERT_BLOB, (digest, data))

    def get(self, digest: str) -> bytes | None:
        return blob_of(self.database.query(SELECT_BLOB, (digest,)))

    def __iter__(self) -> Iterator[str]:
        rows = self.database.query("SELECT hash FROM agentcore_blobs ORDER BY hash")
        return iter([row[0] for row in rows])

    def __len__(self) -> int:
        return int(self.database.query("SELECT count(*) FROM agentcore_blobs")[0][0])


def decode_rows(
    rows: Iterable[tuple[str, int, str]], where: str, blobs: BlobGetter
) -> Iterator[JournalEntry]:
    """The entries of ``(agent_id, seq, event JSON)`` rows, their media read with
    ``blobs``. A row whose event cannot be read raises ``JournalError`` naming
    ``where``, the agent and the ``seq`` (``MissingBlobError`` for a blob not there),
    after the entries before it."""
    entries, error = _decoded(rows, where, blobs)
    yield from entries
    if error is not None:
        raise error


def _decoded(
    rows: Iterable[tuple[str, int, str]], where: str, blobs: BlobGetter
) -> tuple[list[JournalEntry], JournalError | None]:
    builders, getters = BUILDERS, VALUES
    entries: list[JournalEntry] = []
    append = entries.append
    texts: dict[str, str] = {}  # equal media share one string, as they did when appended
    for agent, seq, text in rows:
        try:
            wire = _wire(text)
            if BLOB_MARKER in text:
                wire = resolve_blobs(wire, blobs, texts)
            try:  # the fast path for events as the journal writes them
                kind, timestamp, data = wire["type"], wire["timestamp"], wire["data"]
                count, values, _check = getters[kind]
                if type(timestamp) is not int or len(data) != count:
                    raise TypeError
                event = builders[kind](values(data), timestamp)
            except Exception:
                event = from_dict(wire)
        except MissingBlobError as exc:
            return entries, MissingBlobError(f"{where}: entry {seq} of agent {agent!r}: {exc}")
        except Exception as exc:  # whatever the row holds, it is reported as that row's
            error = JournalError(
                f"{where}: corrupt journal entry {seq} of agent {agent!r} "
                f"({type(exc).__name__}: {exc})"
            )
            error.__cause__ = exc
            return entries, error
        append(JournalEntry(agent, seq, event))
    return entries, None
