"""Reading a large journal file on two cores: a forked child parses, this process folds.

Parsing JSON is about half the cost of replaying a journal file. When the caller asks
for it (``parallel=True``) and it is safe, the reader forks a child that runs
``parse_lines`` over the file and sends the records (plain JSON values) through a pipe as
``marshal`` frames, while this process builds the events and folds them. The two stages
are the same functions the in-process reader uses, so both read every file alike (a
property test holds them to it).

The work is balanced as it goes: when the pipe holds less than ``_LOW_WATER`` bytes,
this process is about to wait for the child, so the child sends the next frame's lines
unparsed and this process parses them itself (with the same ``parse_lines``). A fold
that is slower than parsing keeps the pipe full and never gets a raw frame; a fast one
(``replay``'s bulk fold) takes on part of the parsing. The last frame (the file's
unterminated tail, often empty) is always parsed by the child.

A replay forks only when its caller asks; a resume (``resume.load_conversation``) forks
on its own for a file of ``FORK_BYTES`` or more in a process with a spare CPU
(``worth_forking``): its fold drops every output, so reading and folding take about as
long, and on two cores they overlap. Either way forking is safe only in a process that
runs a single thread (a fork copies one thread, and a lock another thread held stays
locked in the child), and ``threading`` cannot see the threads a native library starts.
So ``can_fork`` also counts the process's threads in ``/proc/self/task`` (Linux only;
where that cannot be read, no fork). Both processes read the file in chunks; the child
runs with the garbage collector off (a finaliser of the parent's garbage, such as a
buffered file's flush, never runs there) and leaves with ``os._exit``.

A child that dies early is not an error: the parent reads the rest itself, from the line
after the last frame it received. A consumer that stops iterating early closes the pipe
and the child is killed and reaped.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import struct
import sys
import threading
from collections.abc import Iterator
from typing import Any

from .read import (
    BLOCK_LINES,
    JournalError,
    Record,
    corrupt_line,
    in_process_records,
    line_chunks,
    lines_records,
    parse_lines,
)

__all__ = ["FORK_BYTES", "can_fork", "forked_records", "worth_forking"]

_BLOCKS_PER_FRAME = 2
"""256 lines a frame."""
_HEADER = struct.Struct("<I")
_SET_PIPE_SIZE = 1031  # fcntl.F_SETPIPE_SZ (Linux), named in the fcntl module from 3.10
_LOW_WATER = 32_000
"""Below this many bytes waiting in the pipe (about three parsed frames), the reader is
about to starve: the next frame goes unparsed."""


def can_fork() -> bool:
    """Whether this process may fork a reader child now: on Linux, with one thread, as
    both ``threading`` and the kernel (``/proc/self/task``, native threads included) see
    it."""
    if not (sys.platform.startswith("linux") and threading.active_count() == 1):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # no /proc (some sandboxes): a thread may hide, so do not fork
        return False


FORK_BYTES = 4 << 20
"""From this size on, a resume reads a JSONL journal with a forked child (``worth_forking``):
below it, the fold of the whole file takes a few tens of milliseconds at most."""


def worth_forking(path: str | os.PathLike[str]) -> bool:
    """Whether a fold that drops its outputs (a resume) should read the file at ``path``
    with a forked child, where that is safe (``can_fork``, checked when reading): a file
    of ``FORK_BYTES`` or more, in a process allowed to run on two CPUs or more, one of
    them idle as the last minute's load average tells. The child's work is added to the
    parent's (about a fifth more CPU in all), so on busy CPUs it only slows the resume."""
    try:
        size = os.stat(path).st_size
    except OSError:  # no file yet: nothing to read
        return False
    if size < FORK_BYTES or not hasattr(os, "sched_getaffinity"):
        return False
    try:
        cpus, load = len(os.sched_getaffinity(0)), os.getloadavg()[0]
    except OSError:  # no load average (no /proc/loadavg): no telling whether a CPU is idle
        return False
    return cpus > 1 and load <= cpus - 1


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _child(
    fd: int, path: str | os.PathLike[str], agent_id: str | None, decode: bool, runs: bool
) -> None:
    """Send frames ``(next line, records or raw lines, error message or None, whether this
    is the last frame)`` until the file is parsed or a line is corrupt."""
    frame_lines = BLOCK_LINES * _BLOCKS_PER_FRAME
    for offset, lines, final in line_chunks(path):
        for start in range(0, len(lines), frame_lines):
            stop = min(start + frame_lines, len(lines))
            error: str | None = None
            body: Any
            if not final and _waiting(fd) < _LOW_WATER:
                body = b"\n".join(lines[start:stop])
            else:
                body = []
                for block in range(start, stop, BLOCK_LINES):
                    more, failure = parse_lines(
                        path, lines, block, agent_id, decode, offset, final, True, runs
                    )
                    body += more
                    if failure is not None:
                        error = str(corrupt_line(path, *failure))
                        break
            payload = marshal.dumps((offset + stop, body, error, final))
            _write_all(fd, _HEADER.pack(len(payload)) + payload)
            if error is not None:
                return


def _waiting(fd: int) -> int:
    """How many bytes the pipe holds, not yet read."""
    import fcntl  # Unix only, as is forking (see can_fork)
    import termios

    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, bytes(4)), sys.byteorder)


def forked_records(
    path: str | os.PathLike[str], agent_id: str | None, decode_events: bool, runs: bool = False
) -> Iterator[list[Record]]:
    """The records of the file in blocks, parsed by a forked child (see the module doc);
    ``runs`` as for ``parse_lines``."""
    read_fd, write_fd = os.pipe()
    _widen(write_fd)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which never returns
        code = 1
        try:
            gc.disable()  # the parent's garbage is the parent's to finalise
            os.close(read_fd)
            _child(write_fd, path, agent_id, decode_events, runs)
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
                    yield from lines_records(
                        path, lines, next_line, False, agent_id, decode_events, runs=runs
                    )
                elif body:
                    yield body
                next_line = stop
                if error is not None:
                    raise JournalError(error)
    finally:
        _reap(pid)
    if not done:  # the child stopped early (killed, out of memory): read the rest here
        yield from in_process_records(path, agent_id, decode_events, skip=next_line, runs=runs)


def _widen(fd: int) -> None:
    """Let the pipe hold 1 MiB, so neither side waits on the other's every frame."""
    import fcntl  # Unix only, and this runs only on Linux (see can_fork)

    with contextlib.suppress(OSError):  # a lower limit in /proc/sys/fs/pipe-max-size
        fcntl.fcntl(fd, _SET_PIPE_SIZE, 1 << 20)


def _reap(pid: int) -> None:
    import signal  # only a forked read gets here

    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # pragma: no cover - already reaped by someone else
        return
    os.waitpid(pid, 0)
