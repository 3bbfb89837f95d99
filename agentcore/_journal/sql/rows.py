"""Journal entries to and from database rows: the event as one JSON text.

Writing is ``JsonlJournal``'s: the wire form as compact JSON, secrets scrubbed. Reading
builds each event the way the JSONL reader's second stage does (``read.BUILDERS``: slots
filled directly for classes that check nothing, the class's own checks otherwise), with
``from_dict`` and its clear errors for anything else.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..._core.secrets import has_secret, scrub_bytes
from ..._core.wire import from_dict, to_dict
from ..read import BUILDERS, VALUES, JournalEntry, JournalError, dumps, loads
from ..read import load_line as _load_bytes

__all__ = ["decode_rows", "encode_event"]


def encode_event(agent_id: str, event: Any) -> str:
    """The event's wire form as JSON text, secrets scrubbed. Raises ``JournalError`` for
    an event JSON cannot hold."""
    try:
        data = dumps(to_dict(event))
    except (TypeError, ValueError) as exc:
        raise JournalError(
            f"cannot journal {type(event).__name__} for agent {agent_id!r}: "
            f"{type(exc).__name__}: {exc}; every field must be JSON data"
        ) from exc
    if has_secret(data):
        data = scrub_bytes(data)
    return data.decode()


def _wire(text: str) -> Any:
    try:
        return loads(text)  # type: ignore[arg-type]  # orjson reads str too
    except ValueError:  # what orjson refuses and the stdlib reads (lone surrogates)
        return _load_bytes(text.encode("utf-8", "surrogatepass"))


def decode_rows(rows: Iterable[tuple[str, int, str]], where: str) -> Iterator[JournalEntry]:
    """The entries of ``(agent_id, seq, event JSON)`` rows. A row whose event cannot be
    read raises ``JournalError`` naming ``where``, the agent and the ``seq``, after the
    entries before it."""
    entries, error = _decoded(rows, where)
    yield from entries
    if error is not None:
        raise error


def _decoded(
    rows: Iterable[tuple[str, int, str]], where: str
) -> tuple[list[JournalEntry], JournalError | None]:
    builders, getters = BUILDERS, VALUES
    entries: list[JournalEntry] = []
    append = entries.append
    for agent, seq, text in rows:
        try:
            wire = _wire(text)
            try:  # the fast path for events as the journal writes them
                kind, timestamp, data = wire["type"], wire["timestamp"], wire["data"]
                count, values, _check = getters[kind]
                if type(timestamp) is not int or len(data) != count:
                    raise TypeError
                event = builders[kind](values(data), timestamp)
            except Exception:
                event = from_dict(wire)
        except Exception as exc:  # whatever the row holds, it is reported as that row's
            error = JournalError(
                f"{where}: corrupt journal entry {seq} of agent {agent!r} "
                f"({type(exc).__name__}: {exc})"
            )
            error.__cause__ = exc
            return entries, error
        append(JournalEntry(agent, seq, event))
    return entries, None
