"""A server's listing as agentcore tools: names, filters, approval, and the opt-in tools
over resources and prompts.

Each MCP tool becomes a ``Tool`` named ``tool_name(name, prefix)`` whose ``execute``
asks the server's ``guard`` (a refused call is a ``TOOL_REJECTED`` error result that never
reaches the server), then calls the server through ``MCPServer.call_tool`` with the tool
context's abort signal, progress sink and ``elicit`` (so the server's questions pause
the agent's run). A tool the listing cannot turn into a valid agentcore tool (a schema
``jsonschema`` rejects, a name that collides after renaming) is skipped with a warning on
the ``agentcore.mcp`` logger: one faulty tool never hides the others.

The tools read their server through ``ToolSource``, the part of ``MCPServer`` they use:
``server`` builds on this module, so this module never imports it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

import mcp_types as mt

from .._core.content import Content, JSONValue
from .._core.errors import ErrorCode
from .._loop.tools import Tool, ToolOutput, define_tool
from .callbacks import ElicitationHandler
from .convert import (
    MCPPrompt,
    MCPResource,
    PromptMessage,
    as_text,
    error_output,
    listing,
    object_schema,
    selected,
    tool_name,
)
from .errors import MCPServerError

__all__ = ["ToolSource", "build_tools"]

log = logging.getLogger("agentcore.mcp")


class ToolSource(Protocol):
    """What the tools of a server read of it (``MCPServer`` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def prefix(self) -> str | None: ...
    @property
    def include(self) -> frozenset[str] | None: ...
    @property
    def exclude(self) -> frozenset[str]: ...
    @property
    def requires_approval(self) -> bool | frozenset[str]: ...
    @property
    def guard(self) -> Callable[[str, Mapping[str, Any]], str | None] | None: ...
    @property
    def resource_tools(self) -> bool: ...
    @property
    def prompt_tools(self) -> bool: ...

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        signal: Any = None,
        on_progress: Callable[[JSONValue], None] | None = None,
        elicit: ElicitationHandler | None = None,
    ) -> ToolOutput: ...
    async def list_resources(self) -> list[MCPResource]: ...
    async def read_resource(self, uri: str) -> Content: ...
    async def list_prompts(self) -> list[MCPPrompt]: ...
    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> tuple[PromptMessage, ...]: ...


NO_ARGUMENTS: Mapping[str, Any] = {"type": "object", "properties": {}}
READ_RESOURCE: Mapping[str, Any] = {
    "type": "object",
    "properties": {"uri": {"type": "string"}},
    "required": ["uri"],
}
GET_PROMPT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "arguments": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["name"],
}


def build_tools(server: ToolSource, listed: Sequence[mt.Tool]) -> list[Tool]:
    """The tools of ``server`` from its listing, filtered, renamed and with the approval
    rule applied, followed by the resource and prompt tools it opted into."""
    tools: dict[str, Tool] = {}
    for item in listed:
        if not selected(item.name, server.include, server.exclude):
            continue
        local = tool_name(item.name, server.prefix)
        if local in tools:
            taken = "MCP server %r: tool %r skipped, its name %r is taken"
            log.warning(taken, server.name, item.name, local)
            continue
        try:
            tools[local] = define_tool(
                local,
                item.description or item.title or "",
                object_schema(item.input_schema),
                _executor(server, item.name),
                requires_approval=_needs_approval(server, item.name),
            )
        except ValueError as exc:  # ConfigurationError too: a bad schema skips one tool
            log.warning("MCP server %r: tool %r skipped: %s", server.name, item.name, exc)
    if server.include is not None:
        missing = server.include - {item.name for item in listed}
        if missing:
            log.warning("MCP server %r has no tool(s) %s to include", server.name, sorted(missing))
    for extra in _extra_tools(server):
        tools.setdefault(extra.name, extra)
    return list(tools.values())


def _needs_approval(server: ToolSource, name: str) -> bool:
    rule = server.requires_approval
    return rule if isinstance(rule, bool) else name in rule


def _executor(server: ToolSource, remote: str) -> Callable[[Any, Any], Awaitable[ToolOutput]]:
    async def execute(args: Any, ctx: Any) -> ToolOutput:
        if server.guard is not None:
            refusal = _refusal(server, remote, args)
            if refusal is not None:
                return refusal
        return await server.call_tool(
            remote, args, signal=ctx.signal, on_progress=ctx.on_update, elicit=ctx.elicit
        )

    return execute


def _refusal(server: ToolSource, remote: str, args: Mapping[str, Any]) -> ToolOutput | None:
    """The error result of a call ``server.guard`` refuses (a raising guard refuses too:
    a check that failed is no permission)."""
    assert server.guard is not None
    try:
        reason = server.guard(remote, args)
    except Exception as exc:
        reason = f"the guard failed ({type(exc).__name__}: {exc})"
    if reason is None:
        return None
    text = f"Call to {remote!r} of MCP server {server.name!r} refused: {reason}. It was not run."
    details = {"error_code": ErrorCode.TOOL_REJECTED.value, "server": server.name}
    return ToolOutput(text, details, True)


def _extra_tools(server: ToolSource) -> list[Tool]:
    name, prefix = server.name, server.prefix
    extra: list[Tool] = []

    async def list_resources(args: Mapping[str, Any]) -> str:
        return listing(await server.list_resources())

    async def read_resource(args: Mapping[str, Any]) -> Any:
        return await server.read_resource(args["uri"])

    async def list_prompts(args: Mapping[str, Any]) -> str:
        return listing(await server.list_prompts())

    async def get_prompt(args: Mapping[str, Any]) -> str:
        messages = await server.get_prompt(args["name"], args.get("arguments"))
        return "\n\n".join(f"[{m.role}]\n{as_text(m.content)}" for m in messages)

    if server.resource_tools:
        extra += [
            define_tool(
                tool_name("list_resources", prefix),
                f"List the resources of MCP server {name!r} (uri, name, description).",
                NO_ARGUMENTS,
                _guarded(list_resources),
            ),
            define_tool(
                tool_name("read_resource", prefix),
                f"Read a resource of MCP server {name!r} by its uri.",
                READ_RESOURCE,
                _guarded(read_resource),
            ),
        ]
    if server.prompt_tools:
        extra += [
            define_tool(
                tool_name("list_prompts", prefix),
                f"List the prompt templates of MCP server {name!r} and their arguments.",
                NO_ARGUMENTS,
                _guarded(list_prompts),
            ),
            define_tool(
                tool_name("get_prompt", prefix),
                f"Fill a prompt template of MCP server {name!r} with string arguments.",
                GET_PROMPT,
                _guarded(get_prompt),
            ),
        ]
    return extra


def _guarded(
    body: Callable[[Mapping[str, Any]], Awaitable[Any]],
) -> Callable[[Any, Any], Awaitable[Any]]:
    """``execute`` for ``body``: a server failure becomes the error result."""

    async def execute(args: Any, ctx: Any) -> Any:
        try:
            return await body(args)
        except MCPServerError as exc:
            return error_output(exc)

    return execute
