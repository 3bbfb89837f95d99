"""The end of a JSONL journal file, read backwards: cutting an interrupted last write, and
finding each agent's last ``seq`` without reading the whole file.

Reopening a journal for append needs two facts, both at the end of the file: whether the
last write was cut short by a crash (``repair_tail``), and, per agent, the ``seq`` of its
latest entry (``LastSeqs``). Both read backwards from the end in blocks of
``SCAN_BYTES``, so reopening costs what the tail costs, not what the file costs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import BinaryIO

from .read import JournalError, entry_problem, load_line

__all__ = ["SCAN_BYTES", "LastSeqs", "repair_tail"]

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


def _line_number(path: Path, pos: int) -> int:
    """The 1-based number of the line starting at byte ``pos``."""
    newlines = 0
    with path.open("rb") as f:
        while pos > 0:
            block = f.read(min(SCAN_BYTES, pos))
            newlines += block.count(b"\n")
            pos -= len(block)
    return newlines + 1


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
        step = min(SCAN_BYTES, self._pos)
        start = self._pos - step
        f.seek(start)
        data = f.read(step) + self._head
        head = b""
        if start > 0:  # the block's first line began before it: keep it for the next step
            cut = data.find(b"\n")
            if cut < 0:
                head, data = data, b""
            else:
                head, data, start = data[:cut], data[cut + 1 :], start + cut + 1
        if data and not self._note_fast(data):
            self._note_lines(data, start)
        self._pos -= step
        self._head = head

    def _note_fast(self, data: bytes) -> bool:
        """Note the agents of lines written as ``JsonlJournal`` writes them, read with one
        regular expression; False (nothing noted) when a line is written otherwise.

        Most blocks of a long scan hold only agents already found: when the line starts
        of those (a few) agents count every line, nothing is new and the block is done
        with a few ``count`` calls instead of the expression."""
        if data.endswith(b"\n"):
            data = data[:-1]
        text, lines = b"\n" + data, data.count(b"\n") + 1
        prefixes = self._prefixes
        if prefixes and sum(text.count(prefix) for prefix in prefixes) == lines:
            return True
        pairs = _PREFIX.findall(text)
        if len(pairs) != lines:
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
            number = _line_number(self._path, pos)
            raise JournalError(
                f"{self._path}:{number}: corrupt journal line ({problem}); cannot continue "
                "its agent's sequence: fix or delete the line"
            )
        return agent, seq
