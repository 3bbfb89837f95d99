"""Reading JSONL journal files, in two stages: lines to records, records to entries.

The file is read in chunks of ``CHUNK_BYTES`` (``line_chunks``), so reading holds about
one chunk of text at a time, whatever the file's size. A *record* is a journal line
parsed and checked, but not yet an event object: ``(agent_id, seq, kind, timestamp,
values)`` where ``values`` are the event's data fields in the class's field order, or
``(agent_id, seq, None, 0, wire)`` for a line the fast path does not cover (``wire`` is
the event's wire dict, already accepted by ``from_dict``). *Portable* records hold only
JSON types, so the first stage can run in another process and send them over a pipe
(``fork``); the second stage, building the events, runs where the events are used. Both
stages are shared by the in-process and the forked reader, so the two read every file the
same way. (In one process, an event whose class has converters or validators is built
while its line is checked, and its record carries it: ``(agent_id, seq, BUILT, 0,
event)``.)
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import groupby, repeat
from operator import itemgetter
from types import MemberDescriptorType
from typing import TYPE_CHECKING, Any, TypeAlias

import attrs

from .._core.events import EVENT_TYPES
from .._core.wire import from_dict
from .errors import JournalError, MissingBlobError

if TYPE_CHECKING:
    from typing import NamedTuple
else:  # the class typing makes, at a fifth of its cost (records.py)
    from .._core.records import NamedTuple

__all__ = [
    "BLOCK_LINES",
    "BUILDERS",
    "BUILT",
    "CHUNK_BYTES",
    "DELTA_KINDS",
    "DELTA_OF",
    "DELTA_REST",
    "FILLED",
    "RUN_OF",
    "VALUES",
    "Builder",
    "Failure",
    "JournalEntry",
    "JournalError",
    "MissingBlobError",
    "Record",
    "SeqCheck",
    "build_entries",
    "corrupt_line",
    "dumps",
    "entry_problem",
    "in_process_records",
    "line_chunks",
    "lines_before",
    "lines_records",
    "load_line",
    "parse_lines",
    "seq_problem",
]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _escaped_dumps(obj: Any) -> bytes:
    """One compact JSON document as ASCII bytes, every other character escaped: what
    orjson refuses but JSON can carry (a lone surrogate such as ``"\\ud83d"``).
    Raises ``TypeError`` or ``ValueError`` for what JSON cannot hold."""
    return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()


def _escaped_loads(data: bytes) -> Any:
    """Parse what ``_escaped_dumps`` writes and orjson refuses (lone surrogates in
    escapes, integers beyond 64 bits). Raises ``ValueError`` for anything that is not
    JSON (``NaN`` and ``Infinity`` included)."""
    try:
        return json.loads(data.decode(), parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _codec_dumps(obj: Any) -> bytes:
    """The first ``_fast_dumps``: imports the codec (``_load_codec``), then writes."""
    _load_codec()
    return _fast_dumps(obj)


def _codec_loads(data: bytes) -> Any:
    """The first ``_fast_loads``: imports the codec (``_load_codec``), then parses."""
    _load_codec()
    return _fast_loads(data)


_fast_dumps: Callable[[Any], bytes] = _codec_dumps
_fast_loads: Callable[[bytes], Any] = _codec_loads
_ENCODE_ERROR: type[Exception] | tuple[type[Exception], ...] = ()
"""What ``_fast_dumps`` raises for what only ``_escaped_dumps`` writes."""


def _load_codec() -> None:
    """Bind orjson's ``dumps`` and ``loads`` (~5x the stdlib's on journal lines), or the
    stdlib's without orjson. Done at the first line written or read, not at import:
    orjson brings ``datetime`` and ``dataclasses``, which a run without a JSONL journal
    never needs (``tests/test_import_cost.py``)."""
    global _fast_dumps, _fast_loads, _ENCODE_ERROR
    try:
        import orjson
    except ImportError:  # pragma: no cover - exercised only without orjson

        def std_dumps(obj: Any) -> bytes:
            return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()

        _ENCODE_ERROR = UnicodeEncodeError
        _fast_dumps, _fast_loads = std_dumps, _escaped_loads
        return
    _ENCODE_ERROR = orjson.JSONEncodeError
    _fast_dumps, _fast_loads = orjson.dumps, orjson.loads


def dumps(obj: Any) -> bytes:
    """One compact JSON document as bytes (``_escaped_dumps`` for what orjson refuses)."""
    try:
        return _fast_dumps(obj)
    except _ENCODE_ERROR:
        return _escaped_dumps(obj)


_DIGITS = bytes.maketrans(b"-0123456789", b"0" * 11)
"""Every digit and minus sign -> ``0``: after it, an integer that may not fit 64 bits
(20 digits or more, or a minus and 19) is a run of 20 zeros (``_LONG_RUN``)."""
_LONG_RUN = b"0" * 20


def load_line(data: bytes) -> Any:
    """One JSON document, every value as written: orjson's parser when installed, the
    stdlib's (``_escaped_loads``) for what orjson refuses (a lone surrogate's escape) and
    for a document holding a run of 20 digits (or a minus and 19), as orjson reads an
    integer beyond 64 bits as a float. Looking for such a run costs about 0.25 µs a line
    of 170 bytes; a string holding one costs the slower parse, never a changed value.
    Raises ``ValueError`` for anything that is not JSON."""
    if _LONG_RUN in data.translate(_DIGITS):
        return _escaped_loads(data)
    try:
        return _fast_loads(data)
    except ValueError:
        return _escaped_loads(data)


BLOCK_LINES = 128
"""Lines parsed per call of ``parse_lines``: the loop runs with no generator layer per
line, and a block's objects die young (measured: blocks of 512 or more lines survive into
older garbage-collector generations and make reading 30-70% slower; 128 against 64 cuts
the calls, and the run records of a fold over runs, by half: about 5% less CPU to read or
resume from the ``bench agent`` journal)."""

CHUNK_BYTES = 1 << 20
"""Bytes read from the file at a time: reading holds about this much text (plus one
line, when a line is longer)."""

Record: TypeAlias = tuple[str, int, str | None, int, Any]
Failure: TypeAlias = tuple[int, Exception]
"""A line that could not be read: its number in the file, and what it raised."""


class JournalEntry(NamedTuple):
    """One journaled input event: which agent, its sequence number, the event."""

    agent_id: str
    seq: int
    event: Any


Builder: TypeAlias = Callable[[Any, int], Any]


def entry_problem(agent_id: Any, seq: Any) -> str | None:
    """What is wrong with a line's ``agent_id`` and ``seq`` (None when both are right: a
    ``str`` and an ``int`` of at least 1)."""
    if type(agent_id) is not str:
        return f"agent_id must be a string, got {agent_id!r}"
    if type(seq) is not int or seq < 1:
        return f"seq must be an integer of at least 1, got {seq!r}"
    return None


def seq_problem(agent_id: str, seq: int, last: int) -> str:
    """What is wrong with agent ``agent_id``'s ``seq`` coming after its ``last``."""
    if seq <= last:
        return (
            f"agent {agent_id!r} has seq {seq} after seq {last}: a duplicate or decreasing "
            "seq (two writers wrote this agent at once)"
        )
    missing = f"seq {last + 1}" if seq == last + 2 else f"seqs {last + 1} to {seq - 1}"
    return f"agent {agent_id!r} has seq {seq} after seq {last}: {missing} missing"


class SeqCheck:
    """Each agent's ``seq`` grows by one along a journal, from ``after + 1`` (from
    wherever it is first met when ``after`` is None: a read that starts mid-file);
    ``check(agent_id, seq)`` or ``check_records`` raise ``JournalError`` naming
    ``where`` at the first entry that breaks it: a duplicate, decreasing or missing seq
    is never read as if the journal were whole."""

    __slots__ = ("_after", "_last", "_where")

    def __init__(self, where: object, after: int | None = 0) -> None:
        self._where = where
        self._after = after
        self._last: dict[str, int] = {}

    def check(self, agent_id: str, seq: int) -> None:
        last = self._last.get(agent_id)
        if last is None:
            if self._after is None:
                self._last[agent_id] = seq
                return
            last = self._after
        if seq != last + 1:
            raise JournalError(f"{self._where}: {seq_problem(agent_id, seq, last)}")
        self._last[agent_id] = seq

    def check_records(self, records: list[Record]) -> list[Record]:
        last, after = self._last, self._after
        for record in records:
            agent, seq = record[0], record[1]
            previous = last.get(agent, after)
            if previous is not None and seq != previous + 1:
                self.check(agent, seq)  # raises, with the message
            last[agent] = seq
        return records

    def check_runs(self, records: list[Record]) -> list[Record]:
        """``check_records`` of records that may be runs (``RUN_OF``): a run's seqs go
        from its own (checked against the agent's last) to ``run_end``'s."""
        last, after, runs = self._last, self._after, DELTA_OF
        for record in records:
            agent, seq = record[0], record[1]
            previous = last.get(agent, after)
            if previous is not None and seq != previous + 1:
                self.check(agent, seq)  # raises, with the message
            last[agent] = run_end(record) if record[2] in runs else seq
        return records


def _values_getter(names: tuple[str, ...]) -> Callable[[Any], Any]:
    """``data -> tuple of the named values``; ``KeyError`` when one is missing."""
    if len(names) > 1:
        return itemgetter(*names)  # a tuple, gathered in C
    if names:
        (name,) = names
        return lambda data: (data[name],)
    return lambda data: ()


def _data_fields(cls: type[Any]) -> tuple[str, ...]:
    return tuple(f.name for f in attrs.fields(cls) if f.name != "timestamp")


def _fillable(cls: type[Any]) -> bool:
    """Whether ``cls`` can be built by filling its slots, then running its
    ``__attrs_post_init__`` if it has one: no pre-init hook, converter or validator."""
    if hasattr(cls, "__attrs_pre_init__"):
        return False
    return all(
        f.converter is None
        and f.validator is None
        and isinstance(cls.__dict__.get(f.name), MemberDescriptorType)
        for f in attrs.fields(cls)
    )


def _direct(cls: type[Any]) -> bool:
    """Whether ``cls``'s ``__init__`` checks nothing, so any values build."""
    return _fillable(cls) and not hasattr(cls, "__attrs_post_init__")


def _builder(cls: type[Any], checked: bool = True) -> Builder:
    """``build(values, timestamp)``, equal to ``cls(*values, timestamp=timestamp)``.

    For a class ``_fillable`` it fills the slots directly, then runs the class's check
    (all attrs' ``__init__`` would do, minus its argument parsing: half the cost);
    ``checked=False`` skips the check, for values the class accepts by construction.
    """
    if not _fillable(cls):

        def build_with_init(values: Any, timestamp: int) -> Any:
            return cls(*values, timestamp=timestamp)

        return build_with_init
    setters = tuple(cls.__dict__[name].__set__ for name in _data_fields(cls))
    set_timestamp = cls.__dict__["timestamp"].__set__
    check: Callable[[Any], None] = getattr(cls, "__attrs_post_init__", _accept)
    if not checked:
        check = _accept
    new = object.__new__
    if len(setters) == 2:  # the shape of the deltas, most of any journal
        set_first, set_second = setters
        if not checked:

            def fill_pair(values: Any, timestamp: int) -> Any:
                event = new(cls)
                set_first(event, values[0])
                set_second(event, values[1])
                set_timestamp(event, timestamp)
                return event

            return fill_pair

        def build_pair(values: Any, timestamp: int) -> Any:
            event = new(cls)
            set_first(event, values[0])
            set_second(event, values[1])
            set_timestamp(event, timestamp)
            check(event)
            return event

        return build_pair

    def build(values: Any, timestamp: int) -> Any:
        event = new(cls)
        for set_field, value in zip(setters, values, strict=True):
            set_field(event, value)
        set_timestamp(event, timestamp)
        check(event)
        return event

    return build


def _accept(_event: Any) -> None:
    """The check of a class that checks nothing."""


class _ByKind(dict[Any, Any]):
    """Wire type -> what ``make`` gives for its class, made on first use (later layers
    register event types late)."""

    def __init__(self, make: Callable[[type[Any]], Any]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, kind: str) -> Any:
        made = self[kind] = self._make(EVENT_TYPES[kind])
        return made


def _values_of(cls: type[Any]) -> tuple[int, Callable[[Any], Any], Builder | None]:
    names = _data_fields(cls)
    return len(names), _values_getter(names), None if _direct(cls) else _builder(cls)


VALUES: dict[str, tuple[int, Callable[[Any], Any], Builder | None]] = _ByKind(_values_of)
"""Wire type -> (field count, ``data -> values``, check): the parsing side of a record.
``check(values, timestamp)`` builds the event to see that its converters and validators
accept the values (None for a class that checks nothing), so that a bad line is reported
with its line number, never while its record is built."""

BUILDERS: dict[str | None, Builder] = _ByKind(_builder)
"""Wire type -> ``build(values, timestamp)``: the building side. ``None`` (a line off the
fast path) builds with ``from_dict``."""
BUILDERS[None] = lambda wire, _timestamp: from_dict(wire)

BUILT = "<built>"
"""The kind of a record that carries its event, built while its line was checked."""
BUILDERS[BUILT] = lambda event, _timestamp: event


def line_chunks(
    path: str | os.PathLike[str], skip: int = 0, start: int = 0
) -> Iterator[tuple[int, list[bytes], bool]]:
    """The file's lines from byte ``start`` (the start of a line) on, about
    ``CHUNK_BYTES`` of them at a time: ``(how many lines come before, counted from
    start, lines, final)``, the first ``skip`` lines left out. Every chunk but the final
    one holds whole lines, without their newline; the final one holds the text after the
    last newline (``b""`` for a file that ends with one), the unterminated tail a crash
    may leave."""
    with open(path, "rb", buffering=0) as f:
        f.seek(start)
        read, before, tail = f.read, 0, list[bytes]()
        while data := read(CHUNK_BYTES):
            lines = data.split(b"\n")
            if len(lines) == 1:  # inside a line longer than a chunk
                tail.append(data)
                continue
            if tail:
                tail.append(lines[0])
                lines[0] = b"".join(tail)
            tail = [lines.pop()]
            if skip:
                skipped = min(skip, len(lines))
                del lines[:skipped]
                skip -= skipped
                before += skipped
            if lines:
                yield before, lines, False
                before += len(lines)
        if not skip:
            yield before, [b"".join(tail)], True


_STRING = rb'"([^"\\\x00-\x1f]*(?:\\.[^"\\\x00-\x1f]*)*)"'
"""A JSON string (its body captured): no raw quote, backslash or control character
outside an escape; the escapes are checked when it is decoded."""

_DELTA_LINES: re.Pattern[bytes] | None = None
"""Over lines joined by newlines, one match per line: for a line of a text, thinking or
tool-input delta exactly as ``JsonlJournal`` writes it (most of a journal), its parts;
for any other line, empty groups. ``findall`` reads a block of lines in one call, and a
run of such deltas is made into records column by column (``_delta_records``), without a
JSON parse or an event object per line. The parts: agent, seq, two type flags (``t``
and ``b""`` for a text delta; ``b""`` and ``t`` for a thinking one, whose ``signature``
and ``redacted_data`` the pattern then requires to be null, ``_THINKING_REST``; both
``b""`` for a tool-input one, whose data field must be ``partial_json``), timestamp,
chunk, index. A part of one
byte or none, as the flags and most agents' and indexes' are, costs no object (CPython
shares them). Compiled by ``_delta_lines`` when a file is first read (half a
millisecond an import that reads no file would pay)."""

_THINKING_REST = b',"signature":null,"redacted_data":null'
"""The rest of a thinking delta's data, as ``JsonlJournal`` writes it: both None."""


def _delta_lines() -> re.Pattern[bytes]:
    global _DELTA_LINES
    if _DELTA_LINES is None:
        _DELTA_LINES = re.compile(
            rb'^(?:\{"agent_id":' + _STRING + rb',"seq":([1-9][0-9]*),"event":\{"type":"'
            rb'(?:(t)ext_delta|input_json_delta|(t)hinking_delta)",'
            rb'"timestamp":(-?(?:0|[1-9][0-9]*)),"data":\{"(?(3)text|(?(4)text|partial_json))":'
            + _STRING
            + rb',"index":(0|[1-9][0-9]*)(?(4)'
            + _THINKING_REST
            + rb")\}\}\}|.*)$",
            re.MULTILINE,
        )
    return _DELTA_LINES


_SEQ = itemgetter(1)
"""A line's seq as ``_DELTA_LINES`` reads it: ``b""`` for a line that is not a delta's."""

DELTA_KINDS = {
    (b"t", b""): "text_delta",
    (b"", b"t"): "thinking_delta",
    (b"", b""): "input_json_delta",
}
"""A delta line's two type flags, as ``_DELTA_LINES`` reads them -> its wire type: the
kinds of the records ``_delta_records`` makes, ``(agent_id, seq, kind, timestamp,
(chunk, index, *DELTA_REST[kind]))``, whose values their class accepts by construction
(a ``str``, an ``int`` of at least 0, the rest's None)."""

DELTA_REST: dict[str, tuple[None, ...]] = {
    "text_delta": (),
    "thinking_delta": (None, None),
    "input_json_delta": (),
}
"""A delta kind -> the values of its record after the chunk and the index (a thinking
delta's ``signature`` and ``redacted_data``, None as ``_THINKING_REST`` says)."""


RUN_OF = {kind: sys.intern(f"{kind} run") for kind in DELTA_KINDS.values()}
"""A delta kind -> the kind of a *run* record of such deltas, which ``parse_lines(...,
runs=True)`` makes of consecutive delta lines of one agent, kind and block index:
``(agent_id, first seq, run kind, 0, (chunks, index, timestamps))`` (a delta's values
``(chunk, index, *DELTA_REST[kind])``), its seqs growing by one (checked),
``timestamps`` the lines' digits as a tuple of ``bytes`` (``int`` gives each; a fold
that only appends the chunks never needs them). A fold takes a run in one
step where its deltas only append (``replay.fold_blocks``); nothing else reads runs. The
run kinds are interned, as the delta kinds are (literals), so that records a forked
reader sent through a pipe (``marshal`` interns them again) hold these very strings,
which ``fold_blocks`` compares by identity."""

DELTA_OF = {run: kind for kind, run in RUN_OF.items()}
"""A run record's kind -> the kind of its deltas."""


def run_end(record: Record) -> int:
    """The seq of the last delta of a run record."""
    seq: int = record[1] + len(record[4][0]) - 1
    return seq


def run_after(record: Record, after: int) -> Record:
    """The deltas of a run record with a seq above ``after`` (some must be)."""
    agent, seq, kind, _timestamp, (chunks, index, stamps) = record
    cut = after - seq + 1
    return agent, after + 1, kind, 0, (chunks[cut:], index, stamps[cut:])


FILLED: dict[str, Builder] = _ByKind(lambda cls: _builder(cls, checked=False))
"""The kinds of ``DELTA_KINDS`` -> ``build(values, timestamp)`` without the class's
check: what a fold builds a delta's record with (its values are the class's by
construction)."""


def _json_strings(bodies: Sequence[bytes]) -> list[str]:
    """The texts of a run's JSON string bodies: a plain decode each unless one escapes,
    else one parse of them all as a JSON array (a body is a whole JSON string's inside,
    by ``_STRING``: it cannot end a string early), each on its own where that fails (a
    bad escape, which ``_json_string`` names, or one only ``load_line`` reads)."""
    joined = b'","'.join(bodies)
    if b"\\" not in joined:
        return list(map(bytes.decode, bodies))
    try:
        texts: list[str] = _fast_loads(b'["' + joined + b'"]')
    except ValueError:
        return list(map(_json_string, bodies))
    return texts


def _json_string(body: bytes) -> str:
    """The text of a JSON string's ``body``; ``ValueError`` for a bad escape or UTF-8."""
    if b"\\" not in body:
        return body.decode()
    text = load_line(b'"' + body + b'"')
    if type(text) is not str:  # pragma: no cover - the pattern admits strings only
        raise ValueError("not a string")
    return text


def _delta_records(run: list[tuple[bytes, ...]], agent_id: str | None) -> list[Record] | None:
    """The records of ``run``, ``_DELTA_LINES``' parts of consecutive delta lines, made a
    column at a time (None when one holds a bad escape: such a line is read the long
    way, which says what is wrong)."""
    raw_agents, seqs, text_flags, thinking_flags, stamps, chunks, indices = zip(*run, strict=True)
    try:
        agents = {raw: _json_string(raw) for raw in set(raw_agents)}
        texts = _json_strings(chunks)
    except ValueError:
        return None
    raw_kinds: Sequence[Any] = text_flags  # the flags of a line that tell its kind
    thinking = set(thinking_flags)
    if len(thinking) == 1:  # no thinking delta, or only thinking ones (most runs)
        (flag,) = thinking
        kinds = {raw: DELTA_KINDS[raw, flag] for raw in set(text_flags)}
    else:
        raw_kinds = list(zip(text_flags, thinking_flags, strict=True))
        kinds = {raw: DELTA_KINDS[raw] for raw in set(raw_kinds)}
    if agent_id is not None and agent_id not in agents.values():
        return []
    values: Iterable[Any] = zip(texts, map(int, indices), strict=True)
    if len(kinds) == 1:
        (kind,) = kinds.values()
        kind_of: Iterable[str] = repeat(kind, len(run))
        if rest := DELTA_REST[kind]:
            values = [(text, index, *rest) for text, index in values]
    else:
        kind_of = list(map(kinds.__getitem__, raw_kinds))
        values = [(*pair, *DELTA_REST[kind]) for pair, kind in zip(values, kind_of, strict=True)]
    records: list[Record] = list(
        zip(
            map(agents.__getitem__, raw_agents),
            map(int, seqs),
            kind_of,
            map(int, stamps),
            values,
            strict=True,
        )
    )
    if agent_id is not None and len(agents) > 1:
        return [record for record in records if record[0] == agent_id]
    return records


_RUN_KEY = itemgetter(0, 2, 3, 6)
"""The parts of a delta line a run shares: agent, type flags, block index."""


def _delta_runs(run: list[tuple[bytes, ...]], agent_id: str | None) -> list[Record] | None:
    """The run records (``RUN_OF``) of ``run``, ``_DELTA_LINES``' parts of consecutive
    delta lines: one per stretch of one agent, kind and block index (None when a line
    holds a bad escape, or a seq does not follow the one before: such lines are read the
    long way, which says what is wrong)."""
    columns = tuple(zip(*run, strict=True))
    agents, _seqs, text_flags, thinking_flags, _stamps, _chunks, indices = columns
    n = len(run)
    if (
        agents.count(agents[0]) == n
        and indices.count(indices[0]) == n
        and text_flags.count(text_flags[0]) == n
        and thinking_flags.count(thinking_flags[0]) == n
    ):  # one stretch (most blocks): no grouping
        record = _run_record(columns, agent_id)
        if record is None:
            return None
        return [record] if record else []
    records: list[Record] = []
    for _key, group in groupby(run, _RUN_KEY):
        record = _run_record(tuple(zip(*group, strict=True)), agent_id)
        if record is None:
            return None
        if record:
            records.append(record)
    return records


def _run_record(columns: tuple[tuple[bytes, ...], ...], agent_id: str | None) -> Any:
    """The run record of one stretch of delta lines (``columns``: their parts, as
    ``zip`` transposes them), ``()`` for another agent's than ``agent_id``, or None
    (``_delta_runs``)."""
    agents, seqs, text_flags, thinking_flags, stamps, chunks, indices = columns
    try:
        agent = _json_string(agents[0])
        if agent_id is not None and agent != agent_id:
            return ()
        texts = _json_strings(chunks)
    except ValueError:
        return None
    kind = DELTA_KINDS[text_flags[0], thinking_flags[0]]
    first = int(seqs[0])
    if len(seqs) > 1 and list(map(int, seqs)) != list(range(first, first + len(seqs))):
        return None
    return agent, first, RUN_OF[kind], 0, (texts, int(indices[0]), stamps)


def parse_lines(
    path: str | os.PathLike[str],
    lines: list[bytes],
    start: int,
    agent_id: str | None,
    decode_events: bool,
    offset: int = 0,
    final: bool = True,
    portable: bool = False,
    runs: bool = False,
) -> tuple[list[Record], Failure | None]:
    """Parse ``lines[start:start + BLOCK_LINES]`` into records: the records, and the
    failure that stopped the block early (None when it did not).

    Empty lines are skipped. A line that does not parse, whose ``agent_id`` or ``seq`` is
    wrong, or whose event ``from_dict`` rejects is a failure: its number (``offset``
    lines come before ``lines[0]``) and what was raised; unless it is the unterminated
    last line of the file (``lines[-1]`` when ``final``: a write a crash interrupted),
    which is dropped. ``decode_events=False`` keeps every event as its wire
    dict, unchecked, media parts as the line holds them (``blobs``: blob references).
    ``portable`` records hold JSON types only (no ``BUILT`` record). With ``runs``,
    consecutive delta lines are run records (``RUN_OF``), not a record each.
    """
    # imported here, not by ``from agentcore import Agent`` (tests/test_import_cost.py)
    from .blobs import BLOB_MARKER_BYTES, FolderBlobs, blob_folder, resolve_blobs

    getters, records = VALUES, list[Record]()
    append = records.append
    last = len(lines) if final else 0
    stop = min(start + BLOCK_LINES, len(lines))
    block = lines[start:stop]
    seqs: list[bytes] = []  # a delta line's seq, b"" for any other line
    if decode_events:
        found = _delta_lines().findall(b"\n".join(block))
        if len(found) == len(block):  # one match per line, as there should be
            seqs = list(map(_SEQ, found))
    at = 0
    while at < len(block):
        if seqs and seqs[at]:  # a run of deltas: the fast path
            try:
                end = seqs.index(b"", at)
            except ValueError:
                end = len(block)
            deltas = (_delta_runs if runs else _delta_records)(found[at:end], agent_id)
            if deltas is not None:
                records += deltas
                at = end
                continue
            seqs = []  # read the rest of the block the long way
        line = block[at]
        at += 1
        number = start + at
        if not line:
            continue
        try:
            record = load_line(line)
            entry_agent, seq = record["agent_id"], record["seq"]
            if type(entry_agent) is not str or type(seq) is not int or seq < 1:
                raise ValueError(entry_problem(entry_agent, seq))
            if agent_id is not None and entry_agent != agent_id:
                continue
            wire = record["event"]
            if decode_events:
                if BLOB_MARKER_BYTES in line:
                    wire = resolve_blobs(wire, FolderBlobs(blob_folder(path)).get)
                # fast path for well-formed lines, as JsonlJournal writes them; anything
                # else is checked by from_dict and its clear errors
                try:
                    kind, timestamp, data = wire["type"], wire["timestamp"], wire["data"]
                    count, values, check = getters[kind]
                    if type(timestamp) is not int or len(data) != count:
                        raise TypeError
                    fields = values(data)
                    if check is None:
                        append((entry_agent, seq, kind, timestamp, fields))
                    elif portable:
                        check(fields, timestamp)
                        append((entry_agent, seq, kind, timestamp, fields))
                    else:
                        append((entry_agent, seq, BUILT, 0, check(fields, timestamp)))
                    continue
                except Exception:
                    from_dict(wire)
            append((entry_agent, seq, None, 0, wire))
        except Exception as exc:  # whatever a line holds, it is reported as that line's
            if number == last and not isinstance(exc, MissingBlobError):
                break  # the unterminated tail of an interrupted write
            return records, (offset + number, exc)
    return records, None


def corrupt_line(path: str | os.PathLike[str], number: int, exc: Exception) -> JournalError:
    """The error for line ``number`` of the file, which raised ``exc`` when parsed."""
    if isinstance(exc, MissingBlobError):
        return MissingBlobError(f"{path}:{number}: {exc}")
    return JournalError(
        f"{path}:{number}: corrupt journal line ({type(exc).__name__}: {exc}); "
        "fix or delete the line to read the rest"
    )


def lines_before(path: str | os.PathLike[str], pos: int) -> int:
    """How many lines of the file end before byte ``pos``."""
    newlines = 0
    with open(path, "rb", buffering=0) as f:
        while pos > 0:
            block = f.read(min(CHUNK_BYTES, pos))
            if not block:
                break
            newlines += block.count(b"\n")
            pos -= len(block)
    return newlines


def lines_records(
    path: str | os.PathLike[str],
    lines: list[bytes],
    offset: int,
    final: bool,
    agent_id: str | None,
    decode_events: bool,
    start: int = 0,
    runs: bool = False,
) -> Iterator[list[Record]]:
    """The records of ``lines`` in blocks (``offset``, ``final`` and ``runs`` as for
    ``parse_lines``, ``offset`` counted from byte ``start`` of the file); a corrupt line
    raises ``JournalError`` after the blocks before it, naming its line in the file (the
    lines before ``start`` are counted then, and only then)."""
    for block in range(0, len(lines), BLOCK_LINES):
        records, failure = parse_lines(
            path, lines, block, agent_id, decode_events, offset, final, runs=runs
        )
        if records:
            yield records
        if failure is not None:
            number, exc = failure
            raise corrupt_line(path, number + (lines_before(path, start) if start else 0), exc)


def in_process_records(
    path: str | os.PathLike[str],
    agent_id: str | None,
    decode_events: bool,
    skip: int = 0,
    start: int = 0,
    runs: bool = False,
) -> Iterator[list[Record]]:
    """The records of the file from byte ``start`` (the start of a line) on, in blocks,
    parsed in this process as it is read, after the first ``skip`` lines (``runs``: see
    ``parse_lines``)."""
    for offset, lines, final in line_chunks(path, skip, start):
        yield from lines_records(
            path, lines, offset, final, agent_id, decode_events, start, runs=runs
        )


def build_entries(records: list[Record], decode_events: bool) -> list[JournalEntry]:
    """The entries of ``records``; ``decode_events=False`` leaves each event as its wire
    dict."""
    if not decode_events:
        return [JournalEntry(agent, seq, wire) for agent, seq, _kind, _ts, wire in records]
    builders = BUILDERS
    return [
        JournalEntry(agent, seq, builders[kind](values, timestamp))
        for agent, seq, kind, timestamp, values in records
    ]
