"""Folding a journal back through a machine: replay and time travel.

Both functions need only the journal and a machine factory; they do no I/O beyond reading
the journal, so a recorded conversation can be re-run on any machine, offline.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from .._core.agent_processor import appended_chunk, appending, with_appended
from .._core.machine import MealyMachine
from .._loop.conversation import create_conversation_machine
from .._loop.events import EFFECTS
from .conversation import Lens, delta_lens
from .journal import Journal, JournalEntry, read_jsonl, record_blocks
from .read import BUILDERS, DELTA_KINDS, DELTA_OF, DELTA_REST, FILLED, RUN_OF, Record

__all__ = [
    "JournalSource",
    "ReplayMachine",
    "entries_of",
    "fold_blocks",
    "fold_steps",
    "replay",
    "replay_steps",
    "state_at",
]


class ReplayMachine(Protocol):
    """What replay needs of a machine: ``process`` per agent and ``state_of``."""

    def process(self, agent_id: str, event: Any) -> tuple[Any, ...]: ...

    def state_of(self, agent_id: str) -> Any: ...


JournalSource = Journal | Iterable[JournalEntry] | str | os.PathLike[str]
"""A journal object, any iterable of entries, or the path of a JSONL journal file."""


def _default_factory() -> ReplayMachine:
    """The conversation processor (core and loop); each agent's journaled configuration
    prices its turns."""
    machine: ReplayMachine = create_conversation_machine()
    return machine


def entries_of(source: JournalSource, agent_id: str | None = None) -> Iterator[JournalEntry]:
    """Iterate the entries of ``source`` (optionally one agent's), in append order."""
    if isinstance(source, str | os.PathLike):
        return read_jsonl(source, agent_id=agent_id)
    if isinstance(source, Journal):
        return source.entries(agent_id)
    entries = iter(source)
    if agent_id is None:
        return entries
    return (e for e in entries if e.agent_id == agent_id)


def replay(
    source: JournalSource,
    machine_factory: Callable[[], ReplayMachine] = _default_factory,
    *,
    agent_id: str | None = None,
    parallel: bool = False,
) -> Iterator[tuple[str, Any]]:
    """Fold the journal through a fresh machine; yield ``(agent_id, output)`` pairs.

    The pairs are exactly the outputs the live agent delivered, in the same order (the
    processor is pure and the journal holds every input); effect requests, which the
    live runtime performed rather than delivered, are left out. The default machine runs
    the conversation processor, whose turns are priced by the journaled configuration
    (``agent_configured``), as the live agent's were. Outputs changed
    or blocked by an agent's interceptors are the processor's, not what the interceptors
    made of them. ``parallel`` is ``read_jsonl``'s, for a journal file.
    """
    machine = machine_factory()
    if isinstance(source, str | os.PathLike):
        # the hot path: a file's records a block at a time, each built just before use
        if isinstance(machine, MealyMachine) and not machine.observed:
            lens = delta_lens(machine.processor)
            if lens is not None:
                store = machine.store
                blocks = record_blocks(source, agent_id=agent_id, parallel=parallel, runs=True)
                yield from fold_blocks(blocks, machine.process, store.get, store.set, lens)
                return
        blocks = record_blocks(source, agent_id=agent_id, parallel=parallel)
        build, process = BUILDERS, machine.process
        for records in blocks:
            for entry_agent, _seq, kind, timestamp, values in records:
                for output in process(entry_agent, build[kind](values, timestamp)):
                    if type(output) not in EFFECTS:
                        yield entry_agent, output
        return
    process = machine.process
    for entry_agent, _seq, event in entries_of(source, agent_id):
        for output in process(entry_agent, event):
            if type(output) not in EFFECTS:
                yield entry_agent, output


_HOT_KINDS = {kind: kind for kind in DELTA_KINDS.values()}
"""A delta class's wire type -> the very string the reader gives its records' kind."""

_HOT_RUNS = {kind: RUN_OF[kind] for kind in DELTA_KINDS.values()}
"""A delta class's wire type -> the very string the reader gives its run records' kind."""

_NO_KIND = object()
"""The hot kind while no delta would only append (no record's kind is this object)."""


def fold_blocks(
    blocks: Iterable[list[Record]],
    process: Callable[[str, Any], tuple[Any, ...]],
    get: Callable[[str], Any],
    set_: Callable[[str, Any], None],
    lens: Lens,
    *,
    echo: bool = True,
) -> Iterator[tuple[str, Any]]:
    """Fold a journal file's records (several agents' lanes, ``read``; runs of deltas
    too, ``read.RUN_OF``) through ``process``, runs of deltas in bulk, yielding
    ``(agent_id, output)`` for every output but effects; ``echo=False`` leaves out the
    deltas a conversation echoes, and then builds no event for them (resuming drops the
    outputs).

    After each event, ``appending`` tells which deltas would now only append a chunk to
    the agent's streaming block; while the next records are such deltas, their chunks
    are collected (a delta line's record carries its chunk, a run's record all of
    them: no event is needed to see them), and appended at once (``with_appended``, on
    the state ``get``/``set_`` reach) before the next other event is folded. A run
    whose deltas do not append (its first delta opens the block) has its first delta
    folded as an event, then the rest looked at again. Outputs and states are those of
    folding every event (property tests hold them equal); as appends give no output,
    every yield happens with the state exact.
    """
    core_of, with_core, echoes = lens
    echoes = echoes and echo
    build, kinds, run_kinds, delta_of = BUILDERS, _HOT_KINDS, _HOT_RUNS, DELTA_OF
    fill: dict[Any, Any] = FILLED
    run_agent = ""
    hot: tuple[type[Any], int] | None = None
    hot_kind: object = _NO_KIND
    hot_run: object = _NO_KIND
    hot_index = -1
    hot_rest: tuple[None, ...] = ()  # the values of a hot delta after its chunk and index
    make: Callable[[Any, int], Any] = fill["text_delta"]  # set with each hot kind
    chunks: list[str] = []
    try:
        for records in blocks:
            for record in records:
                while True:  # once per record; again for the rest of a run split
                    agent, seq, kind, timestamp, values = record
                    if kind is hot_kind and values[1] == hot_index and agent == run_agent:
                        chunks.append(values[0])
                        if echoes:
                            yield agent, make(values, timestamp)
                        break
                    if kind is hot_run and values[1] == hot_index and agent == run_agent:
                        texts = values[0]
                        chunks += texts
                        if echoes and hot_rest:
                            for text, stamp in zip(texts, values[2], strict=True):
                                yield agent, make((text, hot_index, *hot_rest), int(stamp))
                        elif echoes:
                            for text, stamp in zip(texts, values[2], strict=True):
                                yield agent, make((text, hot_index), int(stamp))
                        break
                    rest = None
                    if kind in delta_of:  # a run that does not append: its first delta
                        texts, index, stamps = values
                        if len(texts) > 1:
                            rest = (agent, seq + 1, kind, 0, (texts[1:], index, stamps[1:]))
                        kind, timestamp = delta_of[kind], int(stamps[0])
                        values = (texts[0], index, *DELTA_REST[kind])
                    event = build[kind](values, timestamp)
                    chunk = None
                    if hot is not None and agent == run_agent:  # a delta read the long way
                        chunk = appended_chunk(event, hot)
                    if chunk is not None:
                        chunks.append(chunk)
                        if echoes:
                            yield agent, event
                    else:
                        if chunks:
                            state = get(run_agent)
                            set_(run_agent, with_core(state, with_appended(core_of(state), chunks)))
                            chunks = []
                        for output in process(agent, event):
                            if type(output) not in EFFECTS:
                                yield agent, output
                        hot, run_agent = appending(core_of(get(agent))), agent
                        if hot is None:
                            hot_kind = hot_run = _NO_KIND
                        else:
                            hot_kind, hot_index = kinds.get(hot[0].type, _NO_KIND), hot[1]
                            hot_run = run_kinds.get(hot[0].type, _NO_KIND)
                            if hot_kind is not _NO_KIND:
                                make, hot_rest = fill[hot_kind], DELTA_REST[hot[0].type]
                    if rest is None:
                        break
                    record = rest
    finally:
        if chunks:
            state = get(run_agent)
            set_(run_agent, with_core(state, with_appended(core_of(state), chunks)))


def state_at(
    source: JournalSource,
    agent_id: str,
    seq: int,
    machine_factory: Callable[[], ReplayMachine] = _default_factory,
) -> Any:
    """The machine state of ``agent_id`` after its event number ``seq`` (1-based).

    Raises ``ValueError`` when ``seq < 1`` or the journal has fewer than ``seq`` events
    for that agent.
    """
    if seq < 1:
        raise ValueError(f"seq numbers start at 1, got {seq}")
    machine = machine_factory()
    last = 0
    for _agent, entry_seq, event in entries_of(source, agent_id):
        machine.process(agent_id, event)
        last = entry_seq
        if entry_seq >= seq:
            break
    if last < seq:
        raise ValueError(
            f"agent {agent_id!r} has {last} journaled event(s); cannot give the state after "
            f"seq {seq}"
        )
    return machine.state_of(agent_id)


def replay_steps(
    source: JournalSource,
    machine_factory: Callable[[], ReplayMachine] = _default_factory,
    *,
    agent_id: str | None = None,
) -> Iterator[tuple[JournalEntry, tuple[Any, ...]]]:
    """Like ``replay``, but yield each journal entry with the outputs it caused.

    This is what a viewer needs to show the stream layer (the input events) interleaved
    with the layers the machine produced.
    """
    for entry, outputs in fold_steps(entries_of(source, agent_id), machine_factory()):
        yield entry, tuple(o for o in outputs if type(o) not in EFFECTS)


def fold_steps(
    entries: Iterable[JournalEntry], machine: ReplayMachine, *, fast: bool = True
) -> Iterator[tuple[JournalEntry, tuple[Any, ...]]]:
    """Fold ``entries`` through ``machine``; yield each entry with every output it
    caused, effect requests included (what ``replay_steps`` and an eval's trace show).

    ``fast``: through a machine of the conversation (or agent) processor that nobody
    observes, a run of deltas that only append to the block being streamed is applied
    at once (``delta_lens``: exact, such a delta changes nothing but the core's hot
    block); each such delta's outputs are what folding it gives: itself when the
    processor echoes its stream inputs, nothing otherwise. While a run is open the
    machine's state lags behind the yields; it is exact again before the next other
    event is folded and when the iteration ends.
    """
    process = machine.process
    lens = None
    if fast and isinstance(machine, MealyMachine) and not machine.observed:
        lens = delta_lens(machine.processor)
    if lens is None:
        for entry in entries:
            yield entry, process(entry.agent_id, entry.event)
        return
    assert isinstance(machine, MealyMachine)
    core_of, with_core, echoes = lens
    get, set_ = machine.store.get, machine.store.set
    run_agent = ""
    hot: tuple[type[Any], int] | None = None
    chunks: list[str] = []
    try:
        for entry in entries:
            agent, event = entry.agent_id, entry.event
            if hot is not None and agent == run_agent:
                chunk = appended_chunk(event, hot)
                if chunk is not None:
                    chunks.append(chunk)
                    yield entry, (event,) if echoes else ()
                    continue
            if chunks:
                state = get(run_agent)
                set_(run_agent, with_core(state, with_appended(core_of(state), chunks)))
                chunks = []
            yield entry, process(agent, event)
            hot, run_agent = appending(core_of(get(agent))), agent
    finally:
        if chunks:
            state = get(run_agent)
            set_(run_agent, with_core(state, with_appended(core_of(state), chunks)))
