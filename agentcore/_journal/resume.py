"""Rebuilding a conversation state from a journal: the fold, and snapshots of its result.

``fold_state(processor, state, events)`` folds a journal's events (``journal_events``)
into a state through a ``Conversation`` (``catch_up``: outputs dropped, since the live
agent delivered them already; runs of appending deltas in one call).

``load_conversation`` is the fold ``Agent.resume``, a session and ``Sessions`` use: the
newest usable snapshot, then the entries after it. A snapshot that cannot be loaded
(damaged, or made by an agent with other processors) is passed over for a full fold:
snapshots change how long a load takes, never what it gives.

``dump_state``/``load_state`` turn a conversation state into bytes for a
``SnapshotStore`` and back. The loop's configuration is kept as its wire form (its
hooks are code: the agent that loads the snapshot supplies them), the rest with
``pickle``. Load only snapshots your own process wrote: unpickling runs code. Snapshots
are an optimisation; the journal stays the truth, and folding without them gives the
same state.
"""

from __future__ import annotations

import gc
import io
import pickle
from collections.abc import Iterable, Iterator
from typing import Any

from .._core import assembler, state_events
from .._core.content import ZERO_USAGE
from .._core.processor import AnyProcessor
from .conversation import Conversation
from .journal import Journal, JsonlJournal, record_blocks
from .read import BUILDERS
from .snapshots import SnapshotStore

__all__ = [
    "dump_state",
    "fold_state",
    "journal_events",
    "load_conversation",
    "load_state",
]

_FORMAT = 4  # 4: the loop state holds the last cached request (3: the context view, usage)

_SHARED: tuple[Any, ...] = tuple(
    {
        id(obj): obj
        for obj in (
            assembler.TEXT,
            assembler.THINKING,
            assembler.TOOL,
            assembler.DONE,
            state_events.THINKING,
            state_events.RESPONDING,
            ZERO_USAGE,
        )
    }.values()
)
"""Objects the processors compare by identity (``kind is TEXT``). Unpickling would make
copies of them (equal, not identical, and the processor would take another path), so a
snapshot refers to them instead of holding them: the pickler's memo starts with them,
and loading puts these very objects in the unpickler's memo first (format 2; format 1
snapshots held copies and are refused)."""

_PREFIX = b"\x80\x05" + b"".join(b"K" + bytes([i]) + b"Q\x94" + b"0" for i in range(len(_SHARED)))
"""Pickle opcodes that put ``_SHARED`` in the unpickler's memo: per object, its index
(``BININT1``), ``BINPERSID`` (``persistent_load`` gives the object), ``MEMOIZE``, ``POP``."""


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        return _SHARED[pid]


def journal_events(journal: Journal, agent_id: str, after: int = 0) -> Iterator[Any]:
    """The events of ``agent_id`` after ``seq`` ``after``: a JSONL file's built straight from
    its records (no ``JournalEntry`` per event), any other journal's from its entries."""
    if isinstance(journal, JsonlJournal):
        build = BUILDERS
        for records in record_blocks(journal.path, agent_id=agent_id, after=after):
            for _agent, _seq, kind, timestamp, values in records:
                yield build[kind](values, timestamp)
        return
    for entry in journal.entries(agent_id, after=after):
        yield entry.event


def fold_state(processor: AnyProcessor, state: Any, events: Iterable[Any]) -> Any:
    """``state`` after every journaled event, outputs dropped (``Conversation.catch_up``)."""
    conversation = Conversation(processor, state, agent_id="")
    conversation.catch_up(events)
    return conversation.state


def dump_state(state: Any) -> bytes:
    """A conversation state as bytes (format version, loop config as data, the rest)."""
    loop = state.loop
    parts = {name: getattr(state, name) for name in state._fields}
    parts["loop"] = loop.replace(config=None)
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=5)
    pickler.memo = {id(obj): (i, obj) for i, obj in enumerate(_SHARED)}
    pickler.dump((_FORMAT, loop.config.to_wire(), parts))
    return buffer.getvalue()


def load_state(data: bytes, template: Any) -> Any:
    """The state ``dump_state`` wrote, shaped like ``template`` (a fresh state of the same
    processor, whose loop config supplies the hooks). Raises ``ValueError`` for bytes of
    another format or another shape of state."""
    if not data.startswith(b"\x80\x05"):
        raise ValueError("a snapshot is a protocol 5 pickle of dump_state")
    collecting = gc.isenabled()
    gc.disable()  # every object loaded is kept: collections meanwhile would find nothing
    try:
        version, config, parts = _Unpickler(io.BytesIO(_PREFIX + data[2:])).load()
    finally:
        if collecting:
            gc.enable()
    if version != _FORMAT or set(parts) != set(template._fields):
        raise ValueError(
            f"snapshot of format {version} with parts {sorted(parts)} does not fit a state "
            f"of parts {sorted(template._fields)}"
        )
    parts["loop"] = parts["loop"].replace(config=template.loop.config.from_wire(config))
    return template._replace(**parts)


def load_conversation(
    journal: Journal,
    agent_id: str,
    processor: AnyProcessor,
    template: Any,
    snapshots: SnapshotStore | None = None,
) -> Any:
    """The conversation state of ``agent_id`` after its last entry: ``template`` (a fresh
    state of ``processor``) with the newest usable snapshot loaded, then the entries after
    it folded (module docstring)."""
    state, after = template, 0
    if snapshots is not None:
        found = snapshots.latest(agent_id, at_most=journal.last_seq(agent_id))
        if found is not None:
            try:
                state, after = load_state(found[1], template), found[0]
            except Exception:  # unusable: fold it all (the journal is the truth)
                state, after = template, 0
    return fold_state(processor, state, journal_events(journal, agent_id, after))
