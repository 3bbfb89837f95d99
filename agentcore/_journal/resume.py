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

import functools
import gc
import io
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from types import FunctionType
from typing import Any

import attrs

from .._core import assembler, state_events
from .._core.content import ZERO_USAGE
from .._core.processor import AnyProcessor
from .conversation import Conversation, delta_lens
from .fork import worth_forking
from .journal import Journal, JsonlJournal, record_blocks
from .read import BUILDERS
from .replay import fold_blocks
from .snapshots import SnapshotStore

__all__ = [
    "dump_state",
    "fold_state",
    "journal_events",
    "load_conversation",
    "load_state",
]

_FORMAT = 7
"""7: attrs instances rebuilt by their class's maker, written once per class with its
fields (6: through ``_restore``, with a table of the classes' fields at the end); 6:
attrs instances rebuilt by ``_restore`` (5: through ``__setstate__``); 5: attrs
instances as a tuple of field values, and the layout of their classes (4: the loop state
holds the last cached request; 3: the context view, usage)."""

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


_FIELDS: dict[type[Any], tuple[str, ...]] = {}


def _fields_of(cls: type[Any]) -> tuple[str, ...]:
    """The field names of an attrs class whose slots are exactly its fields (attrs' own
    slotted classes, ``records.frozen``'s), which a maker (``_maker``) fills; ``()`` for any
    other class (an extra slot, such as attrs' cached hash, would be left unset)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = ()
        if attrs.has(cls) and "__slots__" in cls.__dict__:
            names = tuple(f.name for f in attrs.fields(cls))
            slots = {
                slot
                for klass in cls.__mro__
                for slot in klass.__dict__.get("__slots__", ())
                if slot != "__weakref__"
            }
            if slots == set(names):
                fields = names
        _FIELDS[cls] = fields
    return fields


_MAKERS: dict[type[Any], Callable[..., Any]] = {}


def _maker(cls: type[Any]) -> Callable[..., Any]:
    """``make(*values)``: a ``cls`` with its slots set straight through their descriptors,
    in field order, checking nothing (the values were a ``cls``'s); written out per
    class, so a load costs one call per object and no loop."""
    names = [f.name for f in attrs.fields(cls)]
    params = ", ".join(f"v{i}" for i in range(len(names)))
    sets = "".join(f"    s{i}(o, v{i})\n" for i in range(len(names)))
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    for i, name in enumerate(names):
        slot = next(k.__dict__[name] for k in cls.__mro__ if name in k.__dict__)
        namespace[f"s{i}"] = slot.__set__
    exec(f"def make({params}):\n    o = new(cls)\n{sets}    return o\n", namespace)
    make: Callable[..., Any] = namespace["make"]
    return make


_CLASS_OF: dict[Callable[..., Any], type[Any]] = {}
"""A maker (``_MAKERS``) -> its class: how ``_Pickler`` writes a maker."""


def _maker_of(cls: type[Any], fields: tuple[str, ...]) -> Callable[..., Any]:
    """The maker of ``cls``, for a snapshot written when its fields were ``fields``:
    what a snapshot calls to rebuild each ``cls`` (one call per object); ``ValueError``
    when ``cls`` has other fields now."""
    if _fields_of(cls) != fields:
        raise ValueError(
            f"a snapshot of {cls.__qualname__} with fields {fields}; it has {_fields_of(cls)} now"
        )
    make = _MAKERS.get(cls)
    if make is None:
        make = _MAKERS[cls] = _maker(cls)
        _CLASS_OF[make] = cls
    return make


@functools.cache
def _picklers() -> tuple[Any, Any]:
    """``_Pickler`` and ``_Unpickler``, defined when a state is first dumped or loaded:
    ``pickle`` is imported then, not by ``from agentcore import Agent``
    (``tests/test_import_cost.py``)."""
    import pickle

    class _Pickler(pickle.Pickler):
        """Writes an attrs instance whose slots are its fields as a call of its class's
        maker with its values: one Python call per object to load (attrs'
        ``__setstate__`` loops over a dict), and far less than the dict pickle writes
        otherwise. The maker itself is written once, as ``_maker_of`` its class and the
        fields it has, so that a process whose class has other fields refuses the
        snapshot."""

        def __init__(self, file: io.BytesIO) -> None:
            super().__init__(file, protocol=5)
            self.memo = {id(obj): (i, obj) for i, obj in enumerate(_SHARED)}

        def reducer_override(self, obj: Any) -> Any:
            cls = type(obj)
            fields = _fields_of(cls)
            if fields:
                return _maker_of(cls, fields), tuple(map(obj.__getattribute__, fields))
            made = _CLASS_OF.get(obj) if cls is FunctionType else None
            if made is None:
                return NotImplemented
            return _maker_of, (made, _fields_of(made))

    class _Unpickler(pickle.Unpickler):
        def persistent_load(self, pid: Any) -> Any:
            return _SHARED[pid]

    return _Pickler, _Unpickler


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
    pickler = _picklers()[0](buffer)
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
        loaded = _picklers()[1](io.BytesIO(_PREFIX + data[2:])).load()
    except (AttributeError, ImportError, TypeError) as exc:  # names of another version
        raise ValueError(f"a snapshot this version cannot read ({exc})") from None
    finally:
        if collecting:
            gc.enable()
    if loaded[0] != _FORMAT:
        raise ValueError(f"a snapshot of format {loaded[0]}; this version reads format {_FORMAT}")
    _version, config, parts = loaded
    if set(parts) != set(template._fields):
        raise ValueError(
            f"a snapshot with parts {sorted(parts)} does not fit a state of parts "
            f"{sorted(template._fields)}"
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
        last = journal.last_seq(agent_id)
        found = snapshots.latest(agent_id, at_most=last)
        if found is not None:
            try:
                state, after = load_state(found[1], template), found[0]
            except Exception:  # unusable: fold it all (the journal is the truth)
                state, after = template, 0
            if after == last:
                return state  # nothing was journaled after it: nothing to read
    if isinstance(journal, JsonlJournal) and delta_lens(processor) is not None:
        return _fold_file(processor, state, journal, agent_id, after)
    return fold_state(processor, state, journal_events(journal, agent_id, after))


def _fold_file(
    processor: AnyProcessor, state: Any, journal: JsonlJournal, agent_id: str, after: int
) -> Any:
    """``fold_state`` of a JSONL file's entries after ``after``, from their records: a
    run of deltas that only append is applied at once, with no event built for them
    (``fold_blocks``), the other events folded by a ``Conversation``, their outputs
    dropped as they come (none is delivered: the state is all a resume needs). The file
    is read by a forked child meanwhile as the journal's ``parallel`` says (None: where
    ``fork.worth_forking``), where that is safe (``record_blocks`` checks ``can_fork``)."""
    lens = delta_lens(processor)
    assert lens is not None
    conversation = Conversation(processor, state, agent_id=agent_id)

    def fold(_agent: str, event: Any) -> tuple[Any, ...]:
        conversation.replayed(event)
        return ()

    def get(_agent: str) -> Any:
        return conversation.state

    def set_(_agent: str, folded: Any) -> None:
        conversation.state = folded

    path = journal.path
    parallel = journal.parallel
    if parallel is None:
        parallel = worth_forking(path)
    blocks = record_blocks(path, agent_id=agent_id, after=after, runs=True, parallel=parallel)
    deque(fold_blocks(blocks, fold, get, set_, lens, echo=False), maxlen=0)
    return conversation.state
