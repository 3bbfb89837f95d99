"""Running a child process the way the coding tools need: in its own process group, killed
as a group on timeout, abort or cancellation, and never waited on longer than it lives.

A command that starts a background job (``server &``) exits while the job still holds
the output pipe; reading to end-of-file would hang. ``run_process`` therefore stops at the
command's own exit, drains what is already buffered for ``drain_grace`` seconds, and closes
its end of the pipe (the job keeps running; if it writes to the closed pipe later it gets
SIGPIPE, so long-lived jobs should redirect their output).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence

import attrs

from .._runtime.tool_runner import AbortSignal
from .operations import ExecResult

__all__ = ["CommandError", "ProcessOutput", "run_process", "stream_lines"]

_LINE_LIMIT = 64 * 1024 * 1024  # ripgrep's JSON lines carry whole (possibly minified) lines


class CommandError(OSError):
    """A helper command (ripgrep, a backend's shell script) failed; ``stderr`` says why."""

    def __init__(self, exit_code: int | None, stderr: str) -> None:
        super().__init__(f"exit code {exit_code}: {stderr.strip() or '(no error output)'}")
        self.exit_code = exit_code
        self.stderr = stderr


@attrs.frozen(slots=True)
class ProcessOutput:
    """A finished process: how it ended, and its stderr when it was not merged."""

    result: ExecResult
    stderr: bytes = b""


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signals.SIGKILL)


async def run_process(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    on_data: Callable[[bytes], None],
    merge_stderr: bool = True,
    signal: AbortSignal | None = None,
    timeout: float | None = None,
    drain_grace: float = 0.2,
) -> ProcessOutput:
    """Run ``argv``; pass its stdout (and stderr if ``merge_stderr``) to ``on_data``.

    Timeout and abort kill the process group and are reported in the result; a
    cancellation kills it too and propagates. Raises ``OSError`` when ``argv[0]`` cannot
    be started.
    """
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    errors = bytearray()
    assert proc.stdout is not None
    readers = [asyncio.ensure_future(_pump(proc.stdout, on_data))]
    if not merge_stderr:
        assert proc.stderr is not None
        readers.append(asyncio.ensure_future(_pump(proc.stderr, errors.extend)))
    exited = asyncio.ensure_future(_feed_and_wait(proc, stdin))
    aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
    try:
        waiting = {exited} if aborted is None else {exited, aborted}
        await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        killed = not exited.done()
        if killed:
            _kill_group(proc)
            await exited
        await asyncio.wait(readers, timeout=drain_grace)
        code = None if killed else proc.returncode
        was_aborted = killed and aborted is not None and aborted.done()
        result = ExecResult(code, timed_out=killed and not was_aborted, aborted=was_aborted)
        return ProcessOutput(result, bytes(errors))
    finally:
        if proc.returncode is None:
            _kill_group(proc)
        for task in (*readers, exited, *([aborted] if aborted else [])):
            task.cancel()
        _close_pipes(proc)
        if proc.returncode is None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(_exit_code(proc))


async def _feed_and_wait(proc: asyncio.subprocess.Process, data: bytes | None) -> int:
    if data is not None:
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(data)
            await proc.stdin.drain()
        proc.stdin.close()
    return await _exit_code(proc)


async def _exit_code(proc: asyncio.subprocess.Process) -> int:
    """The exit code, as soon as the process has exited. ``proc.wait()`` is not used:
    before Python 3.12 it also waits for every pipe to close, which a background job
    holding the output can delay forever; ``returncode`` is set at the exit itself."""
    delay = 0.002
    while proc.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)
    return proc.returncode


async def _pump(stream: asyncio.StreamReader, sink: Callable[[bytes], object]) -> None:
    while chunk := await stream.read(65536):
        sink(chunk)


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def stream_lines(
    argv: Sequence[str], *, cwd: str | None = None, ok: Sequence[int] = (0,)
) -> AsyncGenerator[bytes, None]:
    """Yield the lines of ``argv``'s stdout (with their ``\\n``). Closing the generator
    early kills the process group. Raises ``CommandError`` with its stderr when it ends
    with an exit code outside ``ok``."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        limit=_LINE_LIMIT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    stderr = asyncio.ensure_future(proc.stderr.read())
    try:
        async for line in proc.stdout:
            yield line
        code = await _exit_code(proc)
        if code not in ok:
            raise CommandError(code, (await stderr).decode("utf-8", errors="replace"))
    finally:
        stderr.cancel()
        if proc.returncode is None:
            _kill_group(proc)
            _close_pipes(proc)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(_exit_code(proc))
