"""``AgentMCPServer``: an agent served to MCP clients, as one tool (and its tools, if asked).

Built on the ``mcp`` SDK's low-level ``Server``: the SDK speaks the protocol (stdio and
streamable HTTP, progress, cancellation, DNS-rebinding checks on loopback); this module
maps it to agents:

- **one tool**, ``ask`` by default: ``{"prompt": str}`` in, the agent's answer out (an
  error result for a run that failed, naming why). While the run streams, every text
  delta goes to the caller as a progress notification whose ``message`` is the text (its
  ``progress`` the characters streamed so far), when the caller asked for progress.
- **cancellation**: a call the client cancels aborts the agent's run (the journal
  records the abort); the conversation stays usable.
- **conversations**: each MCP client session is one conversation, one ``Agent`` made by
  ``agent_factory(conversation_id)``: over stdio, the process's (one client per
  process); over streamable HTTP, the ``Mcp-Session-Id`` session of the 2025 protocol.
  The 2026 protocol has no sessions: a call starts a new conversation unless it passes
  ``conversation``, the id every answer carries (``_meta["agentcore/conversation"]``,
  and the tool's ``structuredContent``). Give the agents a journal and each conversation
  is journaled in its own lane. A call while the same conversation answers another gets
  an error result (a conversation answers one call at a time).
- **tools** (``tools=``): ``Tool`` objects served as MCP tools too, run directly (no
  model), each call with a fresh ``ToolContext``.

``http_app(token=...)`` is the ASGI app of streamable HTTP at ``/mcp``; with a token,
every request must carry ``Authorization: Bearer <token>`` (``agentcore mcp-serve``
requires one off loopback, as ``agentcore serve`` does). ``aclose()`` closes every
conversation's agent.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import mcp_types as mt
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings

from .._core.content import (
    AudioContent,
    ContentPart,
    DocumentContent,
    ImageContent,
    TextContent,
)
from .._core.errors import AgentError, ConfigurationError
from .._edges.clock import new_id
from .._loop.tools import Tool
from .._runtime.agent import Agent
from .._runtime.tool_runner import AbortSignal, ToolContext, run_tool

__all__ = ["AgentMCPServer"]

AgentFactory = Callable[[str], Agent | Awaitable[Agent]]

CONVERSATION = "agentcore/conversation"
"""The ``_meta`` key of an answer's conversation id."""

_PROMPT_SCHEMA = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "description": "What to ask the agent."},
        "conversation": {
            "type": "string",
            "description": "To continue a conversation: the conversation id an answer gave.",
        },
    },
    "required": ["prompt"],
}


def _text(text: str, *, error: bool = False) -> mt.CallToolResult:
    return mt.CallToolResult(content=[mt.TextContent(type="text", text=text)], is_error=error)


class AgentMCPServer:
    """An agent as an MCP server (module docstring). ``name`` is the server's name,
    ``tool_name`` and ``description`` the agent tool's; ``tools`` more tools to serve."""

    def __init__(
        self,
        agent_factory: AgentFactory,
        *,
        name: str = "agentcore",
        tool_name: str = "ask",
        description: str = "Ask the agent; returns its answer.",
        tools: Sequence[Tool] = (),
    ) -> None:
        self._factory = agent_factory
        self.tool_name = tool_name
        self.description = description
        self.tools = {t.name: t for t in tools}
        if tool_name in self.tools:
            raise ConfigurationError(f"a served tool is named {tool_name!r} like the agent tool")
        self._process_id = new_id()
        self._agents: dict[str, Agent] = {}
        self._opening: dict[str, asyncio.Future[Agent]] = {}
        self.server: Server[Any] = Server(
            name, on_list_tools=self._list_tools, on_call_tool=self._call_tool
        )

    # -- the protocol ----------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: Any) -> mt.ListToolsResult:
        listed = [
            mt.Tool(name=self.tool_name, description=self.description, input_schema=_PROMPT_SCHEMA)
        ]
        listed += [
            mt.Tool(name=t.name, description=t.description, input_schema=dict(t.parameters))
            for t in self.tools.values()
        ]
        return mt.ListToolsResult(tools=listed)

    async def _call_tool(self, ctx: Any, params: mt.CallToolRequestParams) -> mt.CallToolResult:
        args = dict(params.arguments or {})
        if params.name == self.tool_name:
            prompt = args.get("prompt")
            if not isinstance(prompt, str) or not prompt:
                return _text("the agent tool takes {'prompt': a non-empty string}", error=True)
            conversation = args.get("conversation")
            if conversation is not None and not _conversation_id(conversation):
                return _text(
                    f"no conversation {conversation!r}: pass an id an answer gave", error=True
                )
            key = conversation or _session_key(ctx, self._process_id)
            answer = await self._ask(await self.conversation(key), prompt, ctx.session)
            answer.meta = {CONVERSATION: key}
            answer.structured_content = {"conversation": key}
            return answer
        tool = self.tools.get(params.name)
        if tool is None:
            known = [self.tool_name, *self.tools]
            return _text(f"no tool {params.name!r}; the tools are {known}", error=True)
        return await _run(tool, args, ctx.session)

    async def conversation(self, conversation_id: str) -> Agent:
        """The agent of ``conversation_id``, made by the factory on first use."""
        agent = self._agents.get(conversation_id)
        if agent is not None:
            return agent
        opening = self._opening.get(conversation_id)
        if opening is None:
            opening = self._opening[conversation_id] = asyncio.ensure_future(
                self._open(conversation_id)
            )
        return await asyncio.shield(opening)

    async def _open(self, conversation_id: str) -> Agent:
        made = self._factory(conversation_id)
        agent = await made if isinstance(made, Awaitable) else made
        self._agents[conversation_id] = agent
        self._opening.pop(conversation_id, None)
        return agent

    async def _ask(self, agent: Agent, prompt: str, session: Any) -> mt.CallToolResult:
        if agent.state.is_streaming:
            return _text(
                "this conversation is answering another call; wait for its answer", error=True
            )
        streamed: asyncio.Queue[str | None] = asyncio.Queue()
        unsubscribe = agent.subscribe("text_delta", lambda e: streamed.put_nowait(e.text))
        pump = asyncio.ensure_future(_report(streamed, session))
        try:
            result = await agent.run(prompt)
        except AgentError as exc:
            return _text(f"the agent's run failed: {exc.message}", error=True)
        finally:
            unsubscribe()
            streamed.put_nowait(None)
            await pump
        waiting = agent.state.pending_approvals
        if waiting:
            names = [c.tool_name for c in waiting]
            return _text(
                f"the agent waits for approval of {names}, which an MCP client cannot give",
                error=True,
            )
        output = result.output
        return _text(output if isinstance(output, str) else json.dumps(output))

    # -- transports ------------------------------------------------------------------------

    async def run_stdio(self) -> None:
        """Serve one client on stdin/stdout until it leaves."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    def http_app(self, *, token: str | None = None, host: str = "127.0.0.1") -> Any:
        """The ASGI app of streamable HTTP at ``/mcp`` (module docstring). Run it with its
        lifespan (``uvicorn ... lifespan="on"``): the SDK's session manager lives there."""
        security = None
        if host not in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
            security = TransportSecuritySettings(  # the SDK checks loopback hosts itself
                enable_dns_rebinding_protection=True, allowed_hosts=[host, f"{host}:*"]
            )
        app = self.server.streamable_http_app(host=host, transport_security=security)
        return app if token is None else _Bearer(app, token)

    async def aclose(self) -> None:
        """Close every conversation's agent (idempotent)."""
        agents, self._agents = list(self._agents.values()), {}
        for agent in agents:
            await agent.aclose()


def _conversation_id(value: Any) -> bool:
    """Whether ``value`` has the shape of a conversation id this server gives."""
    if not isinstance(value, str) or not value.startswith("mcp_") or len(value) > 80:
        return False
    return all(c.isalnum() or c in "-_" for c in value[4:])


def _session_key(ctx: Any, process_id: str) -> str:
    """The conversation of a call that names none: its streamable-HTTP session's, this
    process's over stdio, else a new one."""
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    if headers is None:
        return f"mcp_{process_id}"
    session = headers.get("mcp-session-id")
    return f"mcp_{session or new_id()}"


async def _report(streamed: asyncio.Queue[str | None], session: Any) -> None:
    """Send each streamed text as a progress notification (a no-op when the caller asked
    for none); ``None`` ends it."""
    sent = 0
    while (text := await streamed.get()) is not None:
        sent += len(text)
        try:
            await session.report_progress(sent, None, text)
        except Exception:  # the client left: the run goes on, its answer goes nowhere
            return


async def _run(tool: Tool, args: Mapping[str, Any], session: Any) -> mt.CallToolResult:
    """Run a served tool outside any agent; its progress goes to the caller as
    progress notifications (JSON text)."""
    problems = tool.validation_errors(args)
    if problems:
        return _text(tool.invalid_arguments_message(args, problems), error=True)
    updates: list[asyncio.Future[None]] = []

    def progress(value: Any) -> None:
        text = json.dumps(value)
        updates.append(asyncio.ensure_future(session.report_progress(len(updates), None, text)))

    ctx: ToolContext[Any] = ToolContext(f"mcp_{new_id()}", tool.name, AbortSignal(), (), progress)
    outcome = await run_tool(tool, args, ctx)
    await asyncio.gather(*updates, return_exceptions=True)
    content = outcome.content
    if isinstance(content, str):
        return _text(content, error=outcome.is_error)
    return mt.CallToolResult(content=[_block(part) for part in content], is_error=outcome.is_error)


def _block(part: ContentPart) -> mt.ContentBlock:
    """A tool result's part as the MCP content block that carries it: media inline, a
    document as an embedded blob resource, a file reference as a resource link."""
    if isinstance(part, TextContent):
        return mt.TextContent(type="text", text=part.text)
    if isinstance(part, ImageContent):
        return mt.ImageContent(type="image", data=part.data, mime_type=part.media_type)
    if isinstance(part, AudioContent):
        return mt.AudioContent(type="audio", data=part.data, mime_type=part.media_type)
    if isinstance(part, DocumentContent):
        uri = f"agentcore:document/{part.title or 'document'}"
        blob = mt.BlobResourceContents(uri=uri, mime_type=part.media_type, blob=part.data)
        return mt.EmbeddedResource(type="resource", resource=blob)
    uri = part.url or f"agentcore:file/{part.file_id}"
    name = part.title or part.file_id or part.url or "file"
    return mt.ResourceLink(type="resource_link", name=name, uri=uri, mime_type=part.media_type)


class _Bearer:
    """ASGI middleware: every HTTP request carries ``Authorization: Bearer <token>``
    (compared in constant time), else 401; lifespan and other scopes pass."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = b'{"error": "a bearer token is required (Authorization: Bearer ...)"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
