"""The statements that write what ``Tally.count`` worked out, in the caller's transaction."""

from __future__ import annotations

from .database import Tx
from .tally import CallRow, Counted

__all__ = ["write_calls", "write_counted", "write_sessions"]

_UPSERT_SESSION = (
    "INSERT INTO agentcore_sessions (agent_id, created_ms, last_ms, entries, turns, price) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (agent_id) DO UPDATE SET "
    "created_ms = coalesce(agentcore_sessions.created_ms, excluded.created_ms), "
    "last_ms = excluded.last_ms, entries = excluded.entries, "
    "turns = agentcore_sessions.turns + excluded.turns, "
    "price = coalesce(excluded.price, agentcore_sessions.price)"
)
_UPSERT_CALL = (
    "INSERT INTO agentcore_calls (agent_id, seq, ts, model, input_tokens, output_tokens, "
    "cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, image_tokens, "
    "audio_tokens, document_tokens, cache_write_1h_tokens) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (agent_id, seq) DO UPDATE SET "
    "input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, "
    "cache_read_tokens = excluded.cache_read_tokens, "
    "cache_write_tokens = excluded.cache_write_tokens, "
    "reasoning_tokens = excluded.reasoning_tokens, cost = excluded.cost, "
    "image_tokens = excluded.image_tokens, audio_tokens = excluded.audio_tokens, "
    "document_tokens = excluded.document_tokens, "
    "cache_write_1h_tokens = excluded.cache_write_1h_tokens"
)


def write_counted(tx: Tx, counted: Counted) -> None:
    """Upsert the session rows and the model calls ``counted`` holds."""
    write_sessions(tx, counted)
    write_calls(tx, counted)


def write_sessions(tx: Tx, counted: Counted) -> None:
    """Upsert the session rows ``counted`` holds."""
    if counted.sessions:
        tx.many(_UPSERT_SESSION, counted.sessions)


def write_calls(tx: Tx, counted: Counted) -> None:
    """Upsert the model calls ``counted`` holds (every column of ``CallRow``)."""
    if counted.calls:
        tx.many(_UPSERT_CALL, [_storable(call) for call in counted.calls])


def _storable(call: CallRow) -> CallRow:
    """PostgreSQL's ``TEXT`` refuses NUL: a model name holding one is indexed with U+FFFD in
    its place (the journal's entry keeps the name exact)."""
    if "\x00" not in call.model:
        return call
    return call._replace(model=call.model.replace("\x00", "\ufffd"))
