"""Rebuilding a conversation state from a journal: the fold, and snapshots of its result.

``fold_state(processor, state, entries)`` folds journal entries into a state, keeping
nothing of the outputs (the live agent delivered them already). Runs of stream deltas
that only append to the block being streamed are applied in one call
(``appending``/``with_appended`` on the core state), which is exact because a delta
changes nothing but the core's hot block and gives the loop nothing to decide; user
processors (watchers) see every event, so a conversation with any is folded one event at
a time.

``dump_state``/``load_state`` turn a conversation state into bytes for a
``SnapshotStore`` and back. The loop's configuration is kept as its wire form (its
hooks are code: the agent that loads the snapshot supplies them), the rest with
``pickle``. Load only snapshots your own process wrote: unpickling runs code. Snapshots
are an optimisation; the journal stays the truth, and folding without them gives the
same state.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

from .._core.agent_processor import appended_chunk, appending, with_appended
from .._core.processor import AnyProcessor
from .journal import JournalEntry

__all__ = ["dump_state", "fold_state", "load_state"]

_FORMAT = 1


def fold_state(processor: AnyProcessor, state: Any, entries: Iterable[JournalEntry]) -> Any:
    """``state`` after every entry's event, outputs dropped (see the module docstring)."""
    bulk = getattr(state, "_fields", None) == ("core", "loop")
    hot: tuple[type[Any], int] | None = None
    chunks: list[str] = []
    for entry in entries:
        event = entry.event
        if hot is not None:
            chunk = appended_chunk(event, hot)
            if chunk is not None:
                chunks.append(chunk)
                continue
        if chunks:
            state = state._replace(core=with_appended(state.core, chunks))
            chunks = []
        state, _ = processor(state, event)
        hot = appending(state.core) if bulk else None
    if chunks:
        state = state._replace(core=with_appended(state.core, chunks))
    return state


def dump_state(state: Any) -> bytes:
    """A conversation state as bytes (format version, loop config as data, the rest)."""
    loop = state.loop
    parts = {name: getattr(state, name) for name in state._fields}
    parts["loop"] = loop.replace(config=None)
    return pickle.dumps((_FORMAT, loop.config.to_wire(), parts), protocol=5)


def load_state(data: bytes, template: Any) -> Any:
    """The state ``dump_state`` wrote, shaped like ``template`` (a fresh state of the same
    processor, whose loop config supplies the hooks). Raises ``ValueError`` for bytes of
    another format or another shape of state."""
    version, config, parts = pickle.loads(data)
    if version != _FORMAT or set(parts) != set(template._fields):
        raise ValueError(
            f"snapshot of format {version} with parts {sorted(parts)} does not fit a state "
            f"of parts {sorted(template._fields)}"
        )
    parts["loop"] = parts["loop"].replace(config=template.loop.config.from_wire(config))
    return template._replace(**parts)
