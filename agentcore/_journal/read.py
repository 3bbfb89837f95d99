"""Reading JSONL journal files, in two stages: lines to records, records to entries.

A *record* is a journal line parsed and checked, but not yet an event object:
``(agent_id, seq, kind, timestamp, values)`` where ``values`` are the event's data fields
in the class's field order, or ``(agent_id, seq, None, 0, wire)`` for a line the fast
path does not cover (``wire`` is the event's wire dict, already accepted by
``from_dict``). Records hold only JSON types, so the first stage can run in another
process and send them over a pipe (``_journal_fork``); the second stage, building the
events, runs where the events are used. Both stages are shared by the in-process and
the forked reader, so the two read every file the same way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from operator import itemgetter
from types import MemberDescriptorType
from typing import Any, NamedTuple, TypeAlias

import attrs

from .._core.errors import AgentError, ErrorCode, InvalidEventError
from .._core.events import EVENT_TYPES
from .._core.wire import from_dict

try:  # orjson parses and writes lines ~5x faster; the stdlib is the fallback.
    import orjson

    def dumps(obj: Any) -> bytes:
        """One compact JSON document as bytes."""
        return orjson.dumps(obj)

    loads: Callable[[bytes], Any] = orjson.loads
    DecodeError: type[Exception] = orjson.JSONDecodeError
except ImportError:  # pragma: no cover - exercised only without orjson
    import json

    def dumps(obj: Any) -> bytes:
        """One compact JSON document as bytes."""
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()

    loads = json.loads
    DecodeError = ValueError

__all__ = [
    "BLOCK_LINES",
    "BUILDERS",
    "VALUES",
    "Builder",
    "DecodeError",
    "JournalEntry",
    "JournalError",
    "Record",
    "build_entries",
    "dumps",
    "in_process_records",
    "loads",
    "parse_lines",
    "read_lines",
]

BLOCK_LINES = 64
"""Lines parsed per call of ``parse_lines``: the loop runs with no generator layer per
line, and a block's objects die young (measured: blocks of 512 or more lines survive into
older garbage-collector generations and make reading 30-70% slower)."""

Record: TypeAlias = tuple[str, Any, str | None, int, Any]


class JournalError(AgentError, ValueError):
    """A journal line is malformed, or a journal is used after ``close()``."""

    default_code = ErrorCode.INVALID_EVENT


class JournalEntry(NamedTuple):
    """One journaled input event: which agent, its sequence number, the event."""

    agent_id: str
    seq: int
    event: Any


Builder: TypeAlias = Callable[[Any, int], Any]


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


def _builder(cls: type[Any]) -> Builder:
    """``build(values, timestamp)``, equal to ``cls(*values, timestamp=timestamp)``.

    For classes whose fields have no converter or validator it fills the slots directly
    (all attrs' ``__init__`` would do, minus its argument parsing: half the cost); value
    types are trusted, as the line was written by ``JsonlJournal`` or already checked.
    """
    direct = not any(hasattr(cls, hook) for hook in ("__attrs_pre_init__", "__attrs_post_init__"))
    direct = direct and all(
        f.converter is None
        and f.validator is None
        and isinstance(cls.__dict__.get(f.name), MemberDescriptorType)
        for f in attrs.fields(cls)
    )
    if not direct:

        def build_with_init(values: Any, timestamp: int) -> Any:
            return cls(*values, timestamp=timestamp)

        return build_with_init
    setters = tuple(cls.__dict__[name].__set__ for name in _data_fields(cls))
    set_timestamp = cls.__dict__["timestamp"].__set__
    new = object.__new__
    if len(setters) == 2:  # the shape of the deltas, most of any journal
        set_first, set_second = setters

        def build_pair(values: Any, timestamp: int) -> Any:
            event = new(cls)
            set_first(event, values[0])
            set_second(event, values[1])
            set_timestamp(event, timestamp)
            return event

        return build_pair

    def build(values: Any, timestamp: int) -> Any:
        event = new(cls)
        for set_field, value in zip(setters, values, strict=True):
            set_field(event, value)
        set_timestamp(event, timestamp)
        return event

    return build


class _ByKind(dict[Any, Any]):
    """Wire type -> what ``make`` gives for its class, made on first use (later layers
    register event types late)."""

    def __init__(self, make: Callable[[type[Any]], Any]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, kind: str) -> Any:
        made = self[kind] = self._make(EVENT_TYPES[kind])
        return made


def _values_of(cls: type[Any]) -> tuple[int, Callable[[Any], Any]]:
    names = _data_fields(cls)
    return len(names), _values_getter(names)


VALUES: dict[str, tuple[int, Callable[[Any], Any]]] = _ByKind(_values_of)
"""Wire type -> (field count, ``data -> values``): the parsing side of a record."""

BUILDERS: dict[str | None, Builder] = _ByKind(_builder)
"""Wire type -> ``build(values, timestamp)``: the building side. ``None`` (a line off the
fast path) builds with ``from_dict``."""
BUILDERS[None] = lambda wire, _timestamp: from_dict(wire)


def read_lines(path: str | os.PathLike[str]) -> list[bytes]:
    """The file's lines; the last item is the text after the final newline."""
    with open(path, "rb") as f:
        return f.read().split(b"\n")


def parse_lines(
    path: str | os.PathLike[str],
    lines: list[bytes],
    start: int,
    agent_id: str | None,
    decode_events: bool,
    offset: int = 0,
) -> tuple[list[Record], JournalError | None]:
    """Parse ``lines[start:start + BLOCK_LINES]`` into records: the records, and the error
    that stopped the block early (None when it did not).

    Empty lines are skipped. A line that does not parse or whose event ``from_dict``
    rejects is an error naming the file and line (``offset`` lines of the file come
    before ``lines[0]``), unless it is the unterminated last line (a write a crash
    interrupted), which is dropped. ``decode_events=False`` keeps every event as its wire
    dict, unchecked.
    """
    getters, records = VALUES, list[Record]()
    append = records.append
    last = len(lines)  # the text after the final newline ("" for a complete file)
    for number in range(start + 1, min(start + BLOCK_LINES, last) + 1):
        line = lines[number - 1]
        if not line:
            continue
        try:
            record = loads(line)
            entry_agent = record["agent_id"]
            if agent_id is not None and entry_agent != agent_id:
                continue
            wire, seq = record["event"], record["seq"]
            if decode_events:
                # fast path for well-formed lines, as JsonlJournal writes them; anything
                # else is checked by from_dict and its clear errors
                try:
                    kind, timestamp, data = wire["type"], wire["timestamp"], wire["data"]
                    count, values = getters[kind]
                    if type(timestamp) is not int or len(data) != count:
                        raise TypeError
                    append((entry_agent, seq, kind, timestamp, values(data)))
                    continue
                except (KeyError, TypeError):
                    from_dict(wire)
            append((entry_agent, seq, None, 0, wire))
        except (DecodeError, KeyError, TypeError, InvalidEventError) as exc:
            if number == last:
                break  # the unterminated tail of an interrupted write
            return records, JournalError(
                f"{path}:{offset + number}: corrupt journal line ({type(exc).__name__}: {exc}); "
                "fix or delete the line to read the rest"
            )
    return records, None


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


def in_process_records(
    path: str | os.PathLike[str],
    lines: list[bytes],
    start: int,
    agent_id: str | None,
    decode_events: bool,
    offset: int = 0,
) -> Iterator[list[Record]]:
    """The records of ``lines[start:]`` in blocks, parsed in this process (``offset`` as
    for ``parse_lines``)."""
    for block in range(start, len(lines), BLOCK_LINES):
        records, error = parse_lines(path, lines, block, agent_id, decode_events, offset)
        if records:
            yield records
        if error is not None:
            raise error
