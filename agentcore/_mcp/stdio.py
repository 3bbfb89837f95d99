"""The stdio transport: an MCP server as a child process that closing always ends.

The server starts in a session (and process group) of its own, so a signal reaches it and
everything it started, and a terminal's Ctrl-C does not. Closing follows the MCP spec's
order, every step bounded: stdin is closed and the server gets ``close_timeout`` seconds
to exit; then its process group is sent SIGTERM, and after ``TERM_GRACE`` seconds
SIGKILL. The SDK's own stdio client is not used because its teardown is fixed at 4.5 s
and a cancellation breaking into it left the process running; here the process is a
handle the session's owner can end from outside (``ServerProcess.stop``), and a teardown
interrupted anyhow still kills the group before it returns.

Only processes that leave the group on purpose (a daemon calling ``setsid``) escape.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import mcp_types as mt
from anyio.abc import Process
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from .config import StdioParams

__all__ = ["TERM_GRACE", "ServerProcess", "stdio_transport"]

log = logging.getLogger("agentcore.mcp")

TERM_GRACE = 1.0
"""Seconds between SIGTERM to the server's process group and SIGKILL."""

REAP_TIMEOUT = 1.0
"""Seconds for the event loop to see a killed process exit (only an unkillable one,
stuck in the kernel, runs this out)."""

FLUSH_TIMEOUT = 0.5
"""Seconds for messages already accepted to reach the server's stdin at close."""

_POLL = 0.01


class ServerProcess:
    """The child process of one stdio session, leader of its own process group."""

    __slots__ = ("_process",)

    def __init__(self, process: Process) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def exited(self) -> bool:
        return self._process.returncode is not None

    async def stop(self, grace: float) -> None:
        """Close stdin, wait up to ``grace`` seconds for the server to exit, then end
        its process group (``terminate``). Safe to call from several tasks."""
        stdin = self._process.stdin
        if stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stdin.aclose()
        if not await self._exit_within(grace):
            await self.terminate()

    async def terminate(self) -> None:
        """SIGTERM to the process group, SIGKILL ``TERM_GRACE`` seconds later if the
        leader still runs, then wait (bounded) for the event loop to see it exit."""
        self._signal(signal.SIGTERM)
        if not await self._exit_within(TERM_GRACE):
            self.kill()
        if not await self._exit_within(REAP_TIMEOUT):
            log.warning("MCP server process %d survived SIGKILL; abandoning it", self.pid)

    def kill(self) -> None:
        """SIGKILL the process group now (synchronous: usable in a ``finally`` that a
        cancellation reached)."""
        self._signal(signal.SIGKILL)

    def _signal(self, signum: int) -> None:
        # The leader's pid is the group id (start_new_session). The group outlives its
        # leader while members remain, so it is signalled even after the leader exited.
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signum)

    async def _exit_within(self, seconds: float) -> bool:
        # Polls returncode: process.wait() also waits for the pipes' end of file, which a
        # grandchild holding them delays forever.
        with anyio.move_on_after(seconds):
            while not self.exited:
                await anyio.sleep(_POLL)
        return self.exited


@asynccontextmanager
async def stdio_transport(
    params: StdioParams, close_timeout: float, on_spawn: Callable[[ServerProcess], None]
) -> AsyncIterator[tuple[Any, Any]]:
    """Start the server and yield the (read, write) message streams the SDK's ``Client``
    takes. ``on_spawn`` receives the process handle at once. On exit the server is
    stopped (module docstring); the process group is killed before this returns or
    raises, whatever interrupts it."""
    process = await anyio.open_process(
        [params.command, *params.args],
        env=get_default_environment() | dict(params.env),
        cwd=params.cwd,
        stderr=sys.stderr,
        start_new_session=True,
    )
    server = ServerProcess(process)
    on_spawn(server)
    incoming_send, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)
    flushed = anyio.Event()

    async def read() -> None:
        assert process.stdout is not None
        pieces: list[bytes] = []
        try:
            async with incoming_send:
                async for chunk in process.stdout:
                    *lines, rest = chunk.split(b"\n")
                    for line in lines:
                        await incoming_send.send(_parse(b"".join([*pieces, line])))
                        pieces.clear()
                    if rest:
                        pieces.append(rest)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # the session is gone, or the pipe is
        # Keep reading, unused, so a server writing at close is not stuck on a full pipe.
        with suppress(anyio.EndOfStream, anyio.ClosedResourceError, OSError):
            async for _ in process.stdout:
                pass

    async def write() -> None:
        assert process.stdin is not None
        try:
            async with outgoing_receive:
                async for message in outgoing_receive:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await incoming_send.aclose()  # the session sees the connection end
        finally:
            flushed.set()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write)
            try:
                yield incoming, outgoing
            finally:
                with anyio.CancelScope(shield=True):
                    outgoing.close()
                    incoming.close()
                    with anyio.move_on_after(FLUSH_TIMEOUT):
                        await flushed.wait()
                    await server.stop(close_timeout)
                tasks.cancel_scope.cancel()  # a grandchild may still hold stdout open
    finally:
        server.kill()  # what the server started and left behind in its group, too


def _parse(line: bytes) -> SessionMessage | Exception:
    """One line from the server: a message, or the parse error for the session to report."""
    try:
        return SessionMessage(mt.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc
