"""One live session with one MCP server, owned by one task.

Why a task owns it: the SDK's client is a stack of anyio task groups and cancel scopes,
which must be entered and exited by the same task. Tying that lifetime to whichever task
happens to call a tool is what makes other clients fail with "attempted to exit cancel
scope in a different task", stale sessions and hangs after a server dies. Here the owner
task enters the client, runs each submitted request in a child task of its own (each
under its own cancel scope and deadline), and exits the client, all by itself. Callers
only put an ``Op`` on a queue and await its future.

Failures, and what callers see:

- the server dies (stdio end of file, HTTP transport error): the owner stops; requests
  in flight fail with ``kind="lost"``; requests it had not started fail with ``Stale``,
  which the caller answers by retrying once on a fresh connection (they were never sent);
- a request exceeds its deadline: it fails with ``kind="timeout"`` (the SDK tells the
  server to cancel it), and the owner probes the server (``tools/list`` within
  ``probe_timeout``); a server that does not answer the probe is hung, and the owner
  stops as if it had died;
- a caller is cancelled (abort, its own timeout): its request's scope is cancelled, so
  the server is told to cancel it; other requests are untouched.

A server's elicitation is answered by the request that caused it: its ``Op.elicit`` (an
agent's tool call asks through its run's pause), found through a context variable set
in the request's task. 2026-07-28 servers ask inside the request; on a 2025 HTTP session
the SDK handles the question in the context of the request whose response carried it;
a 2025 stdio session does not say which request asked, so the one request in flight that
can ask is taken (none or several: nobody). Without one, the server's ``on_elicitation``
answers. The request's deadline stops while the user answers.

Teardown (stopping the subprocess, ``stdio.py``, or the SDK's end of the HTTP session)
runs in the owner task, never in a caller's; ``closed`` bounds the wait for it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import attrs
import httpx2
import mcp_types as mt
from mcp import Client
from mcp.client.session import IncomingMessage, SamplingFnT
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._loop.events import ElicitationRequest
from .callbacks import ElicitationHandler, elicitation_callback
from .config import HttpParams, ServerParams, StdioParams
from .errors import MCPServerError, Redactor
from .stdio import REAP_TIMEOUT, ServerProcess, stdio_transport

__all__ = ["Aborted", "Connection", "Op", "Settings", "Stale"]

log = logging.getLogger("agentcore.mcp")

Run = Callable[[Client], Awaitable[Any]]


class Stale(Exception):
    """The request was never sent: its connection died first. Retry on a new one."""


class Aborted(Exception):
    """The caller's abort signal fired before the answer came."""


@attrs.frozen(slots=True)
class Settings:
    """What a connection needs besides the transport (built once by ``MCPServer``)."""

    name: str
    protocol: str
    connect_timeout: float
    probe_timeout: float
    redact: Redactor
    on_tools_changed: Callable[[], None]
    sampling: SamplingFnT | None = None
    asks: bool = False
    """Whether to declare the elicitation capability (someone can answer)."""
    on_elicitation: ElicitationHandler | None = None
    close_timeout: float = 5.0
    """Seconds a stdio server gets to exit after its stdin closes."""


class Op:
    """One request: ``run(client)`` with a deadline; its outcome lands in ``future``.
    ``elicit`` answers the elicitations it causes (``None``: the server's handler)."""

    __slots__ = (
        "asking",
        "cancelled",
        "deadline",
        "elicit",
        "future",
        "left",
        "run",
        "task",
        "timeout",
        "what",
    )

    def __init__(
        self,
        run: Run,
        timeout: float | None,
        what: str,
        elicit: ElicitationHandler | None = None,
    ) -> None:
        self.run = run
        self.timeout = timeout
        self.what = what
        self.elicit = elicit
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task[None] | None = None
        self.deadline: asyncio.Timeout | None = None
        self.asking = 0
        self.left: float | None = None
        self.cancelled = False

    def cancel(self) -> None:
        """The caller gave up: stop the request (the server is told) or never start it."""
        self.cancelled = True
        self.future.cancel()
        if self.task is not None:
            self.task.cancel()

    def abort(self) -> None:
        """The caller's abort signal fired: answer ``Aborted`` and stop the request."""
        if not self.future.done():
            self.future.set_exception(Aborted())
        self.cancelled = True
        if self.task is not None:
            self.task.cancel()

    async def ask(self, handler: ElicitationHandler, request: ElicitationRequest) -> Any:
        """``handler(request)`` with this request's deadline stopped meanwhile (a person
        may take longer than a server should)."""
        deadline = self.deadline
        loop = asyncio.get_running_loop()
        when = None if deadline is None or self.asking else deadline.when()
        if deadline is not None and when is not None:
            self.left = when - loop.time()
            deadline.reschedule(None)
        self.asking += 1
        try:
            return await handler(request)
        finally:
            self.asking -= 1
            if self.asking == 0 and self.left is not None and deadline is not None:
                deadline.reschedule(loop.time() + max(self.left, 0.0))
                self.left = None

    def settle(self, result: Any = None, error: BaseException | None = None) -> None:
        if self.future.done():  # the caller gave up and cancelled its future
            return
        if error is None:
            self.future.set_result(result)
        else:
            self.future.set_exception(error)


class Connection:
    """A session with one server, owned by one task (see the module docstring).

    ``started()`` waits for the handshake; ``submit(op)`` queues a request (``Stale``
    once the connection is dead); ``stop(failure)`` ends it from any task, idempotently;
    ``closed()`` waits for the owner to finish its teardown.
    """

    def __init__(self, params: ServerParams, settings: Settings) -> None:
        self.loop = asyncio.get_running_loop()
        self._up = False
        self.protocol_version: str | None = None
        self.instructions: str | None = None
        self._params = params
        self._settings = settings
        self._queue: asyncio.Queue[Op | None] = asyncio.Queue()
        self._connected: asyncio.Future[None] = self.loop.create_future()
        self._inflight: set[Op] = set()
        self._children: set[asyncio.Task[None]] = set()
        self._failure: MCPServerError | None = None
        self._probing = False
        self._process: ServerProcess | None = None
        self._task = self.loop.create_task(self._own(), name=f"mcp-session:{settings.name}")

    @property
    def closing(self) -> asyncio.Task[None]:
        """The owner task: done once the session is torn down."""
        return self._task

    @property
    def ready(self) -> bool:
        """Initialized and not stopped: requests may be submitted without waiting."""
        return self._up and self._failure is None

    @property
    def alive(self) -> bool:
        return self._failure is None and not self._task.done()

    async def started(self) -> None:
        """Wait until the session is initialized; raises ``MCPServerError(kind="connect")``."""
        await asyncio.shield(self._connected)

    def submit(self, op: Op) -> None:
        if not self.alive:
            raise Stale
        self._queue.put_nowait(op)

    def stop(self, failure: MCPServerError) -> None:
        """End the session: requests in flight fail with ``failure``. Idempotent."""
        if self._failure is None:
            self._failure = failure
            self._queue.put_nowait(None)

    async def closed(self, grace: float) -> None:
        """Wait for the owner's teardown, bounded whatever the server does: after
        ``grace`` seconds a stdio server's process group is terminated, then killed
        (``stdio.ServerProcess.terminate``), which ends the owner's reads; an owner
        still running after that is cancelled, and then abandoned with a warning."""
        task = self._task
        if task.done():
            return
        done, _ = await asyncio.wait({task}, timeout=grace)
        if not done and self._process is not None:
            await self._process.terminate()
            done, _ = await asyncio.wait({task}, timeout=REAP_TIMEOUT)
        if not done:
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=REAP_TIMEOUT)
        if not done:
            log.warning(
                "MCP server %r: its session did not end; abandoning it", self._settings.name
            )

    # -- the owner task -----------------------------------------------------------------

    async def _own(self) -> None:
        settings = self._settings
        try:
            await self._serve()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # the owner reports every other ending; never raises
            leaf = _leaf(exc)
            detail = "cancelled" if leaf is None else f"{type(leaf).__name__}: {leaf}"
            self.stop(self._failed(settings.redact(detail)))
        finally:
            self._finish()

    async def _serve(self) -> None:
        settings = self._settings
        deadline = anyio.current_time() + settings.connect_timeout
        with anyio.CancelScope(deadline=deadline) as connecting:
            elicitation = None
            if settings.asks:
                elicitation = elicitation_callback(self._asker, settings.name, settings.redact)
            client = Client(
                self._transport(),
                mode=settings.protocol,
                cache=None,
                client_info=mt.Implementation(name="agentcore", version="0.1.0"),
                sampling_callback=settings.sampling,
                elicitation_callback=elicitation,
                message_handler=self._on_message,
            )
            async with client:
                connecting.deadline = math.inf
                self.protocol_version = client.protocol_version
                self.instructions = client.instructions
                self._up = True
                self._connected.set_result(None)
                log.debug("MCP server %r: connected (%s)", settings.name, client.protocol_version)
                async with anyio.create_task_group() as tasks:
                    if _announces_tool_changes(client):
                        tasks.start_soon(self._listen, client)
                    try:
                        await self._dispatch(client)
                    finally:
                        await self._cancel_children()
                    tasks.cancel_scope.cancel()
        if connecting.cancelled_caught:
            raise TimeoutError(f"no handshake within {settings.connect_timeout:g} s")

    def _finish(self) -> None:
        """Settle everything still waiting: nothing submitted to this session may hang."""
        settings = self._settings
        failure = self._failure or MCPServerError(
            f"MCP server {settings.name!r}: connection ended", server=settings.name, kind="lost"
        )
        self._failure = failure
        self._up = False
        if failure.kind == "lost":
            log.warning("%s; reconnecting on next use", failure.message)
        if not self._connected.done():
            self._connected.set_exception(failure)
            self._connected.exception()  # retrieved: a connect nobody awaited is no error
        for op in self._inflight:
            op.settle(error=failure)
        self._inflight.clear()
        while not self._queue.empty():
            queued = self._queue.get_nowait()
            if queued is not None:
                queued.settle(error=Stale())

    async def _dispatch(self, client: Client) -> None:
        """Start each queued request in a child task until ``stop``."""
        loop = self.loop
        children = self._children
        while (op := await self._queue.get()) is not None:
            if op.cancelled:
                continue
            if self._failure is not None:
                op.settle(error=Stale())
                continue
            self._inflight.add(op)
            child = op.task = loop.create_task(self._perform(client, op))
            children.add(child)
            child.add_done_callback(children.discard)

    async def _cancel_children(self) -> None:
        """Cancel the requests still running and wait for them (they end inside the
        client's context, before it closes)."""
        children = list(self._children)
        for child in children:
            child.cancel()
        if children:
            await asyncio.wait(children)

    def _asker(self) -> ElicitationHandler | None:
        """Who answers the elicitation being received (module docstring), or ``None``."""
        op = CURRENT_OP.get()
        if op is None:  # a 2025 session: the question came apart from its request
            askers = [o for o in self._inflight if o.elicit is not None]
            op = askers[0] if len(askers) == 1 else None
        handler = self._settings.on_elicitation if op is None or op.elicit is None else op.elicit
        if handler is None or op is None:
            return handler
        return lambda request: op.ask(handler, request)

    async def _perform(self, client: Client, op: Op) -> None:
        """Run one request under its deadline and settle its future, whatever happens."""
        settings = self._settings
        CURRENT_OP.set(op)  # this task's own context: the elicitations it causes see it
        try:
            async with asyncio.timeout(op.timeout) as deadline:
                op.deadline = deadline
                op.settle(await op.run(client))
        except asyncio.CancelledError:
            if not op.cancelled:  # the session is ending, not the caller giving up
                op.settle(error=self._failure or self._failed("cancelled"))
            raise
        except TimeoutError as exc:
            if not deadline.expired():  # raised by the SDK itself, not our deadline
                self._unusable(op, exc)
                return
            message = (
                f"MCP server {settings.name!r} did not answer {op.what} within "
                f"{op.timeout:g} s; the request was cancelled"
            )
            op.settle(error=MCPServerError(message, server=settings.name, kind="timeout"))
            if not self._probing:
                self._probing = True
                await self._probe(client)
        except MCPError as exc:
            if exc.code == mt.CONNECTION_CLOSED:
                lost = MCPServerError(
                    f"MCP server {settings.name!r}: connection lost during {op.what}",
                    server=settings.name,
                    kind="lost",
                )
                self.stop(lost)
                op.settle(error=lost)
            else:
                message = settings.redact(
                    f"MCP server {settings.name!r} rejected {op.what}: {exc.message}"
                )
                op.settle(error=MCPServerError(message, server=settings.name, kind="rejected"))
        except Exception as exc:  # a malformed answer fails this request only
            self._unusable(op, exc)
        finally:
            self._inflight.discard(op)

    def _unusable(self, op: Op, exc: Exception) -> None:
        name = self._settings.name
        message = self._settings.redact(
            f"MCP server {name!r}: unusable answer to {op.what}: {type(exc).__name__}: {exc}"
        )
        op.settle(error=MCPServerError(message, server=name, kind="protocol"))

    async def _probe(self, client: Client) -> None:
        """After a timeout: is the server still answering? If not, it is hung; stop."""
        settings = self._settings
        try:
            with anyio.fail_after(settings.probe_timeout):
                await client.list_tools()
        except MCPError as exc:
            if exc.code == mt.CONNECTION_CLOSED:
                self._hung()
        except Exception:
            self._hung()
        finally:
            self._probing = False

    def _hung(self) -> None:
        settings = self._settings
        message = (
            f"MCP server {settings.name!r} stopped answering "
            f"(no answer to a probe within {settings.probe_timeout:g} s)"
        )
        self.stop(MCPServerError(message, server=settings.name, kind="lost"))

    async def _listen(self, client: Client) -> None:
        """2026-07-28 servers announce list changes only to a ``subscriptions/listen``
        stream; keep one open (its events also reach ``_on_message``)."""
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _ in subscription:
                    self._settings.on_tools_changed()
        except Exception as exc:  # no subscription: tools are re-listed on reconnect only
            log.debug("MCP server %r: no list_changed stream (%s)", self._settings.name, exc)

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, mt.ToolListChangedNotification):
            self._settings.on_tools_changed()

    # -- transports ---------------------------------------------------------------------

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[tuple[Any, Any]]:
        """The SDK transport for the params, its read stream watched for end of file."""
        params, settings = self._params, self._settings
        if isinstance(params, StdioParams):
            opened = stdio_transport(params, settings.close_timeout, self._spawned)
        else:
            opened = _http(params, settings.connect_timeout)
        async with opened as (read, write):
            yield _Watched(read, self._eof), write

    def _spawned(self, process: ServerProcess) -> None:
        self._process = process

    def _eof(self) -> None:
        self.stop(self._failed("the server closed the connection"))

    def _failed(self, detail: str) -> MCPServerError:
        """The failure of this session, as a connect error before the handshake ended."""
        name = self._settings.name
        if self._connected.done():
            return MCPServerError(
                f"MCP server {name!r}: connection lost ({detail})", server=name, kind="lost"
            )
        return MCPServerError(
            f"MCP server {name!r}: could not connect ({detail})", server=name, kind="connect"
        )


CURRENT_OP: contextvars.ContextVar[Op | None] = contextvars.ContextVar(
    "agentcore_mcp_op", default=None
)
"""The request a session's child task performs (``None`` elsewhere)."""


def _announces_tool_changes(client: Client) -> bool:
    tools = client.server_capabilities.tools
    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    return modern and tools is not None and bool(tools.list_changed)


HTTP_READ_TIMEOUT = 300.0
"""How long an HTTP response stream may stay silent (the SDK's default); requests are
bounded by their own deadlines well before this."""


@asynccontextmanager
async def _http(params: HttpParams, connect_timeout: float) -> AsyncIterator[tuple[Any, Any]]:
    headers = dict(params.headers)
    if params.transport == "sse":
        async with sse_client(
            params.url, headers=headers, timeout=connect_timeout, sse_read_timeout=HTTP_READ_TIMEOUT
        ) as streams:
            yield streams
        return
    timeout = httpx2.Timeout(connect_timeout, read=HTTP_READ_TIMEOUT)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(params.url, http_client=http) as streams,
    ):
        yield streams


class _Watched:
    """The transport's read stream, calling ``on_eof`` once when it ends: a server that
    died while idle is noticed at once, not by the next request."""

    __slots__ = ("_inner", "_on_eof")

    def __init__(self, inner: Any, on_eof: Callable[[], None]) -> None:
        self._inner = inner
        self._on_eof = on_eof

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_eof()
            raise

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Watched:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _leaf(exc: BaseException) -> BaseException | None:
    """The first exception in a (nested) group that is not a cancellation."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _leaf(inner)
            if found is not None:
                return found
        return None
    if isinstance(exc, asyncio.CancelledError | anyio.get_cancelled_exc_class()):
        return None
    return exc
