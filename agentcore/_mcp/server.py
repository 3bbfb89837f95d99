"""``MCPServer``: one MCP server as a set of agentcore tools, plus its resources and prompts.

The server is a toolset: ``await server.tools()`` lists the server's tools (every page)
as agentcore ``Tool``s, renamed and filtered as asked, and keeps the list until the
server announces a change (``notifications/tools/list_changed``) or the session is
replaced. Each tool's ``execute`` calls the server through the session's owner task
(``connection.Connection``), honouring the abort signal and the per-request deadline.

Lifecycle: the session starts on first use (or on ``connect()``/``async with``);
``aclose()`` ends it and is idempotent; a dead or hung session is replaced on the next
request. After ``aclose()``, requests fail with ``kind="closed"`` until ``connect()`` or
``async with`` opens the server again. ``async with`` counts its users: the server
closes when the last one leaves, so agents (``Agent(toolsets=[server])``) and the
application can share it. Nothing here raises for a server's own failure inside a tool
call: the model gets an error result naming the server and what failed.

A server is a toolset (``agentcore.tools.Toolset``): ``tools()``, ``watch(on_change)``
to hear of list changes, and ``async with``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Self, TypeVar

import mcp_types as mt
from mcp import Client
from mcp.shared.dispatcher import ProgressFnT
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._core.content import Content, JSONValue
from .._core.errors import ConfigurationError, ErrorCode
from .._edges.driver import Driver, as_driver
from .._loop.tools import Tool, ToolOutput
from .._runtime.toolsets import Toolset
from .callbacks import ElicitationHandler, sampling_callback
from .config import HttpParams, ServerParams, StdioParams, Transport, read_mcp_config
from .connection import Aborted, Connection, Op, Settings, Stale
from .convert import (
    MCPPrompt,
    MCPResource,
    PromptMessage,
    error_output,
    prompt,
    prompt_messages,
    resource,
    resource_content,
    to_output,
)
from .errors import MCPServerError, Redactor, guard_transport_logs
from .toolset import build_tools

__all__ = ["MCPServer", "load_mcp_servers"]

log = logging.getLogger("agentcore.mcp")

T = TypeVar("T")

MAX_PAGES = 1000
"""A listing that has not ended after this many pages (or repeats a cursor) is an error,
so a faulty paginator cannot hang the client."""


class MCPServer(Toolset):
    """The tools, resources and prompts of one MCP server (see the module docstring).

    ``params`` says where the server is (``StdioParams``/``HttpParams``; or use
    ``MCPServer.stdio``/``MCPServer.http``). Tool names become ``prefix_name`` when
    ``prefix`` is set; ``include``/``exclude`` filter by the server's tool names;
    ``requires_approval`` is ``True`` (every tool), or the server's names of the tools
    that need approval. ``timeout`` bounds each request (``None``: unbounded),
    ``connect_timeout`` the start and handshake, ``probe_timeout`` the liveness check
    after a timeout, ``close_timeout`` a graceful close before teardown is forced.
    ``sampling`` is the driver that answers the server's sampling requests (``None``:
    refused, and not advertised). Elicitation requests are answered by the agent whose
    tool call caused them (its run pauses, see docs/mcp.md), else by ``on_elicitation``;
    the capability is declared when a session starts if either can answer (an agent
    watches the server, or ``on_elicitation`` is set). ``guard(name, args)`` sees each
    call the model makes (the server's tool name) and returns why to refuse it, or
    ``None``. ``resource_tools``/``prompt_tools`` add tools to list and read resources and
    to fill prompts. ``protocol`` is the SDK's connect mode: ``"auto"`` (the newest both
    sides speak), ``"legacy"`` (the 2025 handshake) or a version. Raises
    ``ConfigurationError`` for bad options.
    """

    def __init__(
        self,
        params: ServerParams,
        *,
        name: str | None = None,
        prefix: str | None = None,
        include: Iterable[str] | None = None,
        exclude: Iterable[str] = (),
        requires_approval: bool | Iterable[str] = False,
        timeout: float | None = 60.0,
        connect_timeout: float = 30.0,
        probe_timeout: float = 5.0,
        close_timeout: float = 5.0,
        sampling: Driver | None = None,
        on_elicitation: ElicitationHandler | None = None,
        guard: Callable[[str, Mapping[str, Any]], str | None] | None = None,
        resource_tools: bool = False,
        prompt_tools: bool = False,
        protocol: str = "auto",
    ) -> None:
        if not isinstance(params, StdioParams | HttpParams):
            raise ConfigurationError(
                f"MCPServer needs StdioParams or HttpParams, got {type(params).__name__}; "
                "or use MCPServer.stdio(...) / MCPServer.http(...)"
            )
        for option, value in (
            ("timeout", timeout),
            ("connect_timeout", connect_timeout),
            ("probe_timeout", probe_timeout),
            ("close_timeout", close_timeout),
        ):
            if value is not None and not value > 0:
                raise ConfigurationError(f"MCPServer {option} must be > 0 seconds, got {value}")
        if protocol not in ("auto", "legacy", *MODERN_PROTOCOL_VERSIONS):
            raise ConfigurationError(
                f"MCPServer protocol must be 'auto', 'legacy' or one of "
                f"{list(MODERN_PROTOCOL_VERSIONS)}, got {protocol!r}"
            )
        self.name = name or params.label
        self.params = params
        self.prefix = prefix
        self.include = None if include is None else frozenset(include)
        self.exclude = frozenset(exclude)
        self.requires_approval = (
            requires_approval
            if isinstance(requires_approval, bool)
            else frozenset(requires_approval)
        )
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.probe_timeout = probe_timeout
        self.close_timeout = close_timeout
        self.sampling = None if sampling is None else as_driver(sampling)
        self.on_elicitation = on_elicitation
        self.guard = guard
        self.resource_tools = resource_tools
        self.prompt_tools = prompt_tools
        self.protocol = protocol
        self._redact = Redactor(params.secrets())
        guard_transport_logs(params.secrets())
        self._conn: Connection | None = None
        self._retired: set[Connection] = set()
        self._closed = False
        self._generation = 0
        self._tools: list[Tool] | None = None
        self._tools_generation = -1
        self._users = 0
        self._watchers: tuple[Callable[[], None], ...] = ()

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        **options: Any,
    ) -> MCPServer:
        """A server started as ``command args...`` (options as for ``MCPServer``)."""
        return cls(StdioParams(command, tuple(args), dict(env or {}), cwd), **options)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        transport: Transport = "streamable-http",
        **options: Any,
    ) -> MCPServer:
        """A server at ``url`` (streamable HTTP, or ``transport="sse"``)."""
        return cls(HttpParams(url, dict(headers or {}), transport), **options)

    def __repr__(self) -> str:
        return f"MCPServer({self.name!r}, {self.params!r})"

    # -- lifecycle ------------------------------------------------------------------------

    async def connect(self) -> None:
        """Start the session now (it otherwise starts on first use); reopens a closed
        server. Raises ``MCPServerError(kind="connect")`` when the server cannot start."""
        self._closed = False
        await self._connection()

    async def aclose(self) -> None:
        """End the session and wait for its teardown (the subprocess is stopped, the HTTP
        session deleted), whoever else uses the server. Requests in flight fail with
        ``kind="closed"``. Idempotent."""
        self._closed = True
        self._users = 0
        loop = asyncio.get_running_loop()
        sessions = [c for c in (self._conn, *self._retired) if c is not None and c.loop is loop]
        self._conn = None
        closed = MCPServerError(
            f"MCP server {self.name!r} was closed", server=self.name, kind="closed"
        )
        for conn in sessions:
            conn.stop(closed)
        for conn in sessions:
            await conn.closed(self.close_timeout)

    async def __aenter__(self) -> Self:
        """Connect (raises ``MCPServerError(kind="connect")``) and count one more user."""
        await self.connect()
        self._users += 1
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """One user fewer; the last one closes the server."""
        self._users = max(self._users - 1, 0)
        if self._users == 0:
            await self.aclose()

    def watch(self, on_change: Callable[[], None]) -> Callable[[], None]:
        """Call ``on_change()`` when the tool list may have changed (the server announced
        it, or a new session replaced the old one); returns an idempotent unwatch. A
        watched server declares the elicitation capability in the sessions it starts
        from then on (a watching agent answers)."""
        self._watchers = (*self._watchers, on_change)

        def unwatch() -> None:
            self._watchers = tuple(w for w in self._watchers if w is not on_change)

        return unwatch

    @property
    def connected(self) -> bool:
        """Whether a session is up (in the running event loop's thread)."""
        return self._conn is not None and self._conn.ready

    @property
    def protocol_version(self) -> str | None:
        """The protocol version the session speaks (``None`` when not connected)."""
        return self._conn.protocol_version if self.connected and self._conn else None

    @property
    def instructions(self) -> str | None:
        """The server's instructions for the model, which an extension may put in the
        system prompt (``None`` when it gave none or is not connected)."""
        return self._conn.instructions if self.connected and self._conn else None

    async def _connection(self) -> Connection:
        if self._closed:
            raise MCPServerError(
                f"MCP server {self.name!r} was closed; use `async with server` or "
                "`await server.connect()` to open it again",
                server=self.name,
                kind="closed",
            )
        loop = asyncio.get_running_loop()
        conn = self._conn
        if conn is None or not conn.alive or conn.loop is not loop:
            if conn is not None:
                self._tools_changed()  # a new session may serve other tools
                if conn.loop is loop:  # (a session of a finished loop ended with it)
                    self._retire(conn)
            conn = self._conn = Connection(self.params, self._settings())
        await conn.started()
        return conn

    def _retire(self, conn: Connection) -> None:
        """Keep a dead session until its owner finished tearing it down (for ``aclose``)."""
        self._retired.add(conn)
        conn.closing.add_done_callback(lambda _: self._retired.discard(conn))

    def _settings(self) -> Settings:
        sampling = None
        if self.sampling is not None:
            sampling = sampling_callback(self.sampling, self.name, self._redact)
        return Settings(
            self.name,
            self.protocol,
            self.connect_timeout,
            self.probe_timeout,
            self._redact,
            self._tools_changed,
            sampling,
            asks=self.on_elicitation is not None or bool(self._watchers),
            on_elicitation=self.on_elicitation,
            close_timeout=self.close_timeout,
        )

    def _tools_changed(self) -> None:
        self._generation += 1
        for watcher in self._watchers:
            try:
                watcher()
            except Exception:  # a watcher's bug never reaches the session
                log.exception("MCP server %r: a tools watcher raised", self.name)

    # -- requests -------------------------------------------------------------------------

    async def _request(
        self,
        run: Callable[[Client], Awaitable[T]],
        what: str,
        signal: Any = None,
        elicit: ElicitationHandler | None = None,
    ) -> T:
        """Run ``run(client)`` in the session owner; retried once on a fresh session when
        the request was never sent. Raises ``MCPServerError`` or ``Aborted``."""
        for _ in range(2):
            conn = self._conn
            if conn is None or not conn.ready or conn.loop is not asyncio.get_running_loop():
                conn = await self._connection()
            op = Op(run, self.timeout, what, elicit)
            try:
                conn.submit(op)
                if signal is None:
                    result: T = await op.future
                else:
                    result = await _until_abort(op, signal)
                return result
            except Stale:
                continue
            except asyncio.CancelledError:
                op.cancel()
                raise
        raise MCPServerError(
            f"MCP server {self.name!r}: the session ended twice before {what} was sent",
            server=self.name,
            kind="lost",
        )

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        signal: Any = None,
        on_progress: Callable[[JSONValue], None] | None = None,
        elicit: ElicitationHandler | None = None,
    ) -> ToolOutput:
        """Call the server's tool ``name`` (its own name, not the prefixed one).

        Never raises for the server's failures: a tool error (``isError``), a lost
        connection, a timeout or an abort (``signal``, an ``AbortSignal``) all come back
        as an error ``ToolOutput``. ``on_progress`` receives the server's progress
        notifications as ``{"progress", "total", "message"}``; ``elicit`` answers the
        questions the call makes the server ask (``ToolContext.elicit``; ``None``: the
        server's ``on_elicitation``), the call's deadline stopped meanwhile.
        """
        if signal is not None and signal.aborted:
            return _aborted(name)

        callback = None if on_progress is None else _progress_callback(on_progress)

        async def run(client: Client) -> mt.CallToolResult:
            return await client.call_tool(name, dict(arguments or {}), progress_callback=callback)

        try:
            result = await self._request(run, f"tool {name!r}", signal, elicit)
        except MCPServerError as exc:
            return error_output(exc)
        except Aborted:
            return _aborted(name)
        return to_output(result, self.name)

    async def tools(self) -> list[Tool]:
        """The server's tools as agentcore tools, re-listed only after the server
        announced a change or the session was replaced (otherwise no I/O).

        Raises ``MCPServerError`` when the server cannot be reached or listed.
        """
        if self._tools is None or self._tools_generation != self._generation:

            async def run(client: Client) -> tuple[int, list[mt.Tool]]:
                generation = self._generation
                return generation, await _all_pages(client.list_tools, "tools")

            generation, listed = await self._request(run, "tools/list")
            self._tools = build_tools(self, listed)
            self._tools_generation = generation
        return list(self._tools)

    async def list_resources(self) -> list[MCPResource]:
        """Every resource the server lists (all pages). Raises ``MCPServerError``."""

        async def run(client: Client) -> list[mt.Resource]:
            return await _all_pages(client.list_resources, "resources")

        return [resource(r) for r in await self._request(run, "resources/list")]

    async def read_resource(self, uri: str) -> Content:
        """The contents of resource ``uri`` (text, or text and image blocks).
        Raises ``MCPServerError``."""

        async def run(client: Client) -> mt.ReadResourceResult:
            return await client.read_resource(uri)

        return resource_content(await self._request(run, f"resource {uri!r}"))

    async def list_prompts(self) -> list[MCPPrompt]:
        """Every prompt template the server lists (all pages). Raises ``MCPServerError``."""

        async def run(client: Client) -> list[mt.Prompt]:
            return await _all_pages(client.list_prompts, "prompts")

        return [prompt(p) for p in await self._request(run, "prompts/list")]

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> tuple[PromptMessage, ...]:
        """Prompt ``name`` filled with ``arguments``: messages an extension may put in a
        conversation. Raises ``MCPServerError``."""

        async def run(client: Client) -> mt.GetPromptResult:
            return await client.get_prompt(name, dict(arguments or {}))

        return prompt_messages(await self._request(run, f"prompt {name!r}"))


async def _until_abort(op: Op, signal: Any) -> Any:
    """``op``'s answer, unless ``signal`` fires first: then the request is stopped and
    ``Aborted`` raised."""
    waiter = asyncio.ensure_future(signal.wait())
    waiter.add_done_callback(lambda w: None if w.cancelled() else op.abort())
    try:
        return await op.future
    finally:
        waiter.cancel()


def _progress_callback(sink: Callable[[JSONValue], None]) -> ProgressFnT:
    async def report(progress: float, total: float | None, message: str | None) -> None:
        sink({"progress": progress, "total": total, "message": message})

    return report


def _aborted(name: str) -> ToolOutput:
    details = {"error_code": ErrorCode.ABORTED.value}
    return ToolOutput(f"Tool {name!r} was aborted before the MCP server answered.", details, True)


async def _all_pages(fetch: Callable[..., Awaitable[Any]], key: str) -> list[Any]:
    """Every item of a paginated listing; raises ``ValueError`` for a cursor that
    repeats or a listing longer than ``MAX_PAGES`` pages."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, key))
        cursor = page.next_cursor
        if cursor is None:
            return items
        if cursor in seen or len(seen) >= MAX_PAGES:
            raise ValueError(
                f"{key} listing does not end (cursor {cursor!r} after {len(seen)} pages)"
            )
        seen.add(cursor)


def load_mcp_servers(
    source: str | os.PathLike[str] | Mapping[str, Any],
    *,
    environ: Mapping[str, str] | None = None,
    prefix_with_name: bool = False,
    **options: Any,
) -> dict[str, MCPServer]:
    """An ``MCPServer`` per entry of an ``mcpServers`` configuration (see
    ``read_mcp_config``), named after its key; ``options`` apply to every server, and
    ``prefix_with_name`` prefixes each server's tools with its name. Nothing is started.
    """
    servers = {}
    for name, params in read_mcp_config(source, environ=environ).items():
        if prefix_with_name:
            options["prefix"] = name
        servers[name] = MCPServer(params, name=name, **options)
    return servers
