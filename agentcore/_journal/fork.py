"""Reading a large journal file on two cores: a forked child parses, this process folds.

Parsing JSON is about half the cost of replaying a journal file. For a large file, when
it is safe, the reader forks a child that runs ``parse_lines`` over the file and sends
the records (plain JSON values) through a pipe as ``marshal`` frames, while this process
builds the events and folds them. The two stages are the same functions the in-process
reader uses, so both read every file alike (a property test holds them to it).

The work is balanced as it goes: when the pipe holds less than ``_LOW_WATER`` bytes,
this process is about to wait for the child, so the child sends the next frame's lines
unparsed and this process parses them itself (with the same ``parse_lines``). A fold
that is slower than parsing keeps the pipe full and never gets a raw frame; a fast one
(``replay``'s bulk fold) takes on part of the parsing. The last frame is always parsed
by the child.

Forking is used only where it is safe and pays off: on Linux, when this process runs a
single thread (forking a multi-threaded process can deadlock the child), and for files
of at least ``FORK_MIN_BYTES`` (below that, starting the child costs more than it saves).
The child reads the file, parses it and writes to the pipe, then leaves with
``os._exit``; this process holds at most one frame of the file's text at a time.

A child that dies early is not an error: the parent reads the rest itself, from the line
after the last frame it received. A consumer that stops iterating early closes the pipe
and the child is killed and reaped.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import signal
import struct
import sys
import threading
from collections.abc import Iterator
from typing import Any

from .read import (
    BLOCK_LINES,
    JournalError,
    Record,
    in_process_records,
    parse_lines,
    read_lines,
)

__all__ = ["FORK_MIN_BYTES", "can_fork", "forked_records"]

FORK_MIN_BYTES = 8_000_000
"""Smaller files are read in one process: replaying one takes a fraction of a second
either way, so a fork is not worth it there (figures in docs/journal.md)."""

_BLOCKS_PER_FRAME = 4
_HEADER = struct.Struct("<I")
_SET_PIPE_SIZE = 1031  # fcntl.F_SETPIPE_SZ (Linux), named in the fcntl module from 3.10
_LOW_WATER = 32_000
"""Below this many bytes waiting in the pipe (about three parsed frames), the reader is
about to starve: the next frame goes unparsed."""


def can_fork() -> bool:
    """Whether this process may fork a reader child now."""
    return (
        sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _child(fd: int, path: str | os.PathLike[str], agent_id: str | None, decode: bool) -> None:
    """Send frames ``(next line, records or raw lines, error message or None, whether this
    is the last frame)`` until the file is parsed or a line is corrupt."""
    lines = read_lines(path)
    start, frame_lines = 0, BLOCK_LINES * _BLOCKS_PER_FRAME
    while start < len(lines):
        stop = min(start + frame_lines, len(lines))
        last = stop == len(lines)
        error: str | None = None
        body: Any
        if not last and _waiting(fd) < _LOW_WATER:
            body = b"\n".join(lines[start:stop]) + b"\n"
        else:
            body = []
            for block in range(start, stop, BLOCK_LINES):
                more, failure = parse_lines(path, lines, block, agent_id, decode)
                body += more
                if failure is not None:
                    error = str(failure)
                    break
        payload = marshal.dumps((stop, body, error, last))
        _write_all(fd, _HEADER.pack(len(payload)) + payload)
        if error is not None:
            return
        start = stop


def _waiting(fd: int) -> int:
    """How many bytes the pipe holds, not yet read."""
    import fcntl  # Unix only, as is forking (see can_fork)
    import termios

    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, bytes(4)), sys.byteorder)


def forked_records(
    path: str | os.PathLike[str], agent_id: str | None, decode_events: bool
) -> Iterator[list[Record]]:
    """The records of the file in blocks, parsed by a forked child (see the module doc)."""
    read_fd, write_fd = os.pipe()
    _widen(write_fd)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which never returns
        code = 1
        try:
            os.close(read_fd)
            _child(write_fd, path, agent_id, decode_events)
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    next_line, done = 0, False
    try:
        with open(read_fd, "rb", buffering=1 << 20) as pipe:
            while header := pipe.read(_HEADER.size):
                payload = pipe.read(_HEADER.unpack(header)[0])
                try:
                    stop, body, error, done = marshal.loads(payload)
                except (EOFError, ValueError, TypeError):
                    break  # a frame cut short: the child died while writing it
                if type(body) is bytes:  # lines left for this process to parse
                    lines = body.split(b"\n")
                    yield from in_process_records(
                        path, lines, 0, agent_id, decode_events, offset=next_line
                    )
                elif body:
                    yield body
                next_line = stop
                if error is not None:
                    raise JournalError(error)
    finally:
        _reap(pid)
    if not done:  # the child stopped early (killed, out of memory): read the rest here
        yield from in_process_records(path, read_lines(path), next_line, agent_id, decode_events)


def _widen(fd: int) -> None:
    """Let the pipe hold 1 MiB, so neither side waits on the other's every frame."""
    import fcntl  # Unix only, and this runs only on Linux (see can_fork)

    with contextlib.suppress(OSError):  # a lower limit in /proc/sys/fs/pipe-max-size
        fcntl.fcntl(fd, _SET_PIPE_SIZE, 1 << 20)


def _reap(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # pragma: no cover - already reaped by someone else
        return
    os.waitpid(pid, 0)
