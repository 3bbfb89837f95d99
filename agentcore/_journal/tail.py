"""The end of a JSONL journal file, read backwards: cutting an interrupted last write,
finding each agent's last ``seq``, and where an agent's latest entries begin.

Reopening a journal for append needs two facts, both at the end of the file: whether the
last write was cut short by a crash (``repair_tail``), and, per agent, the ``seq`` of its
latest entry (``LastSeqs``). Resuming from a snapshot needs the agent's entries after a
``seq``, near the end too (``entries_start``). All read backwards from the end in blocks
of ``SCAN_BYTES``, so they cost what the tail costs, not what the file costs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import BinaryIO

from .read import JournalError, dumps, entry_problem, lines_before, load_line

__all__ = ["SCAN_BYTES", "LastSeqs", "entries_start", "repair_tail"]

_PREFIX = re.compile(rb'\n\{"agent_id":"([^"\\\n]*)","seq":([1-9][0-9]*),')
"""The start of a line as ``JsonlJournal`` writes it, after the newline before it: the
agent id (no escape in it) and the seq."""
_FEW = 8
"""How many agents' line starts a scan counts before it runs the expression."""

SCAN_BYTES = 1 << 16
"""Bytes read per step when reading a file backwards (about 500 typical lines)."""


def repair_tail(path: Path) -> int:
    """Make the file end with a newline, ready for appending; return its size afterwards.

    An unterminated last line that parses as JSON is kept (a newline is added); one that
    does not (a write a crash interrupted, never acknowledged) is cut off. Only the last
    line is read. A missing file has size 0 and is not created.
    """
    try:
        f = path.open("rb+")
    except FileNotFoundError:
        return 0
    with f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return size
        start = _line_start(f, size)
        f.seek(start)
        tail = f.read(size - start)
        try:
            load_line(tail)
        except ValueError:
            f.truncate(start)
            return start
        f.write(b"\n")
        return size + 1


def _line_start(f: BinaryIO, end: int) -> int:
    """The position just after the last newline before ``end`` (0 when there is none)."""
    pos = end
    while pos > 0:
        step = min(SCAN_BYTES, pos)
        f.seek(pos - step)
        found = f.read(step).rfind(b"\n")
        if found >= 0:
            return pos - step + found + 1
        pos -= step
    return 0


def _block_before(f: BinaryIO, pos: int, head: bytes) -> tuple[int, int, bytes, bytes]:
    """Read the ``SCAN_BYTES`` before ``pos``; ``head`` is the start of the line that
    began before ``pos``, read by the step before. Returns ``(new pos, where the whole
    lines start, the whole lines, new head)``."""
    step = min(SCAN_BYTES, pos)
    start = pos - step
    f.seek(start)
    data = f.read(step) + head
    if start == 0:
        return 0, 0, data, b""
    cut = data.find(b"\n")
    if cut < 0:  # no line ends in this block
        return start, start, b"", data
    return start, start + cut + 1, data[cut + 1 :], data[:cut]


def _canonical_pairs(data: bytes) -> list[tuple[bytes, bytes]] | None:
    """``(agent id, seq)`` of every line, as bytes, when every line of ``data`` is written
    as ``JsonlJournal`` writes it (None otherwise)."""
    if data.endswith(b"\n"):
        data = data[:-1]
    pairs = _PREFIX.findall(b"\n" + data)
    return pairs if len(pairs) == data.count(b"\n") + 1 else None


def entries_start(path: Path, agent_id: str, after: int) -> tuple[int, bool]:
    """A byte position (the start of a line) from which reading the file forward meets
    every entry of ``agent_id`` with a ``seq`` above ``after``, found reading backwards
    from the end, and whether it is *exact*: just after the agent's line of ``seq``
    ``after`` (met written as ``JsonlJournal`` writes it), so that the agent's next entry
    must be ``after + 1``. Otherwise it is the start of the block that holds the agent's
    last line with a ``seq`` of at most ``after`` (0 when there is none). Seqs grow along
    the file, as ``JsonlJournal`` writes them. Lines that do not parse are passed over:
    reading forward reports them."""
    raw = agent_id.encode("utf-8", "surrogatepass")
    line = b'\n{"agent_id":' + dumps(agent_id) + b',"seq":%d,' % after
    with path.open("rb") as f:
        pos, head = f.seek(0, os.SEEK_END), b""
        while pos > 0:
            pos, start, data, head = _block_before(f, pos, head)
            found = (b"\n" + data).find(line)
            end = data.find(b"\n", found) if found >= 0 else -1
            if end >= 0:
                return start + end + 1, True
            if data and _holds_at_most(data, raw, agent_id, after):
                return start, False
    return 0, False


def _holds_at_most(data: bytes, raw: bytes, agent_id: str, after: int) -> bool:
    """Whether the lines of ``data`` hold an entry of the agent with a ``seq`` of at most
    ``after``."""
    for match in _PREFIX.finditer(b"\n" + data):  # a hit ends the search (the usual case)
        agent, seq = match.groups()
        if agent == raw and int(seq) <= after:
            return True
    pairs = _canonical_pairs(data)
    if pairs is not None:
        return False  # every line was canonical, and none was a hit
    for line in data.split(b"\n"):
        try:
            record = load_line(line)
            seq = record["seq"]
            if record["agent_id"] == agent_id and type(seq) is int and seq <= after:
                return True
        except Exception:  # a bad line is for the forward read to report
            continue
    return False


class LastSeqs:
    """``last_seqs(agent_id)``: the ``seq`` of the agent's latest entry in the first
    ``end`` bytes of a journal file, 0 when it has none there.

    Found on demand, by reading backwards from ``end`` until the agent's latest line: the
    first line of an agent met going backwards is its last. Every agent met on the way is
    remembered, so however many agents are asked for, the file is read at most once; an
    agent the file does not hold costs reading what is still unread. Only ``agent_id``
    and ``seq`` of each line are checked: a line where they are wrong or missing raises
    ``JournalError`` naming the file and line.
    """

    __slots__ = ("_found", "_head", "_path", "_pos", "_prefixes")

    def __init__(self, path: Path, end: int) -> None:
        self._path = path
        self._pos = end  # the bytes before it are not read yet
        self._head = b""  # the start of the line that began before _pos, already read
        self._found: dict[str, int] = {}
        self._prefixes: list[bytes] = []  # line starts of (a few) agents already found

    def __call__(self, agent_id: str) -> int:
        found = self._found
        if agent_id not in found and self._pos > 0:
            with self._path.open("rb") as f:
                while agent_id not in found and self._pos > 0:
                    self._step(f)
        return found.get(agent_id, 0)

    def _step(self, f: BinaryIO) -> None:
        """Read the block before ``_pos`` and note the agents of its whole lines. A bad
        line raises, and leaves the scan where it was: asking again raises again."""
        pos, start, data, head = _block_before(f, self._pos, self._head)
        if data and not self._note_fast(data):
            self._note_lines(data, start)
        self._pos, self._head = pos, head

    def _note_fast(self, data: bytes) -> bool:
        """Note the agents of lines written as ``JsonlJournal`` writes them, read with one
        regular expression; False (nothing noted) when a line is written otherwise.

        Most blocks of a long scan hold only agents already found: when the line starts
        of those (a few) agents count every line, nothing is new and the block is done
        with a few ``count`` calls instead of the expression."""
        prefixes = self._prefixes
        if prefixes:
            text = b"\n" + data.removesuffix(b"\n")
            if sum(text.count(prefix) for prefix in prefixes) == text.count(b"\n"):
                return True
        pairs = _canonical_pairs(data)
        if pairs is None:
            return False
        try:
            last = {agent.decode(): (agent, int(seq)) for agent, seq in dict(pairs).items()}
        except UnicodeDecodeError:
            return False
        found = self._found
        for agent, (raw, seq) in last.items():
            if agent not in found:
                found[agent] = seq
                if len(prefixes) < _FEW:
                    prefixes.append(b'\n{"agent_id":"' + raw + b'","seq":')
        return True

    def _note_lines(self, data: bytes, start: int) -> None:
        """Note the agents of the lines in ``data`` (at byte ``start``), one by one, the
        last first."""
        found, line_end = self._found, start + len(data)
        for line in reversed(data.split(b"\n")):
            line_start = line_end - len(line)
            if line:
                agent, seq = self._agent_and_seq(line, line_start)
                found.setdefault(agent, seq)
            line_end = line_start - 1

    def _agent_and_seq(self, line: bytes, pos: int) -> tuple[str, int]:
        try:
            record = load_line(line)
            agent, seq = record["agent_id"], record["seq"]
            problem = entry_problem(agent, seq)
        except Exception as exc:  # whatever the line holds, it is reported as that line's
            problem = f"{type(exc).__name__}: {exc}"
        if problem is not None:
            number = lines_before(self._path, pos) + 1
            raise JournalError(
                f"{self._path}:{number}: corrupt journal line ({problem}); cannot continue "
                "its agent's sequence: fix or delete the line"
            )
        return agent, seq
