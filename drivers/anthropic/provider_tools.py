"""Anthropic server tools: ``WebSearch``, ``CodeExecution`` and ``WebFetch`` as request
tools, their stream blocks as ``provider_part`` events, and their parts sent back.

=================================  ===================================================
``WebSearch``                      ``{"type": "web_search_20250305", "name": "web_search",
                                   "max_uses", "allowed_domains" | "blocked_domains",
                                   "user_location": {"type": "approximate", ...}}``
``CodeExecution``                  ``{"type": "code_execution_20250825",
                                   "name": "code_execution"}``
``WebFetch``                       ``{"type": "web_fetch_20250910", "name": "web_fetch",
                                   "max_uses", "allowed_domains" | "blocked_domains",
                                   "citations": {"enabled": true}, "max_content_tokens"}``
=================================  ===================================================

In the stream, a ``server_tool_use`` block (its input streamed as ``input_json_delta``)
becomes a ``ServerToolCallPart`` at its ``content_block_stop``; a ``*_tool_result`` block
(``web_search_tool_result``, ``web_fetch_tool_result``, ``code_execution_tool_result``,
``bash_code_execution_tool_result``...) arrives whole and becomes a
``ServerToolResultPart`` holding the block (``is_error`` when its content is a
``*_tool_result_error``); a ``citations_delta`` becomes a ``CitationPart`` of its text
block. Sent back, a call is a ``server_tool_use`` block again and a result its block
unchanged (the encrypted content the API needs to go on); citations and other providers'
parts are left out. Pure functions; ``stream`` and ``request`` call them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import attrs

from agentcore.events import StreamEvent
from agentcore.provider_tools import (
    CitationPart,
    CodeExecution,
    ProviderPart,
    ProviderPartEvent,
    ProviderTool,
    ServerToolCallPart,
    ServerToolResultPart,
    WebFetch,
    WebSearch,
)

__all__ = [
    "PROVIDER",
    "Servers",
    "citation",
    "replay_block",
    "server_json",
    "server_start",
    "server_stop",
    "tool_definition",
]

PROVIDER = "anthropic"
JSON: TypeAlias = dict[str, Any]
Servers: TypeAlias = tuple[tuple[int, str, str, str], ...]
"""Open ``server_tool_use`` blocks: ``(index, id, name, input JSON so far)``."""


def _domains(tool: WebSearch | WebFetch, out: JSON) -> None:
    if tool.max_uses is not None:
        out["max_uses"] = tool.max_uses
    if tool.allowed_domains:
        out["allowed_domains"] = list(tool.allowed_domains)
    if tool.blocked_domains:
        out["blocked_domains"] = list(tool.blocked_domains)


def tool_definition(tool: ProviderTool) -> JSON:
    """The ``tools`` entry of ``tool`` (module table)."""
    if isinstance(tool, CodeExecution):
        return {"type": "code_execution_20250825", "name": "code_execution"}
    if isinstance(tool, WebSearch):
        out: JSON = {"type": "web_search_20250305", "name": "web_search"}
        _domains(tool, out)
        if tool.user_location is not None:
            where = {k: v for k, v in attrs.asdict(tool.user_location).items() if v is not None}
            out["user_location"] = {"type": "approximate", **where}
        return out
    out = {"type": "web_fetch_20250910", "name": "web_fetch"}
    _domains(tool, out)
    if tool.citations:
        out["citations"] = {"enabled": True}
    if tool.max_content_tokens is not None:
        out["max_content_tokens"] = tool.max_content_tokens
    return out


def replay_block(part: ProviderPart) -> JSON | None:
    """The assistant content block ``part`` goes back as; ``None``: left out."""
    if part.provider != PROVIDER:
        return None
    if isinstance(part, ServerToolCallPart):
        return {
            "type": "server_tool_use",
            "id": part.tool_call_id,
            "name": part.tool_name,
            "input": part.input if isinstance(part.input, Mapping) else {},
        }
    if isinstance(part, ServerToolResultPart) and isinstance(part.content, Mapping):
        return dict(part.content)
    return None


def server_start(
    servers: Servers, index: int, block: Mapping[str, Any], ts: int
) -> tuple[Servers, Sequence[StreamEvent]] | None:
    """A ``content_block_start`` of a server tool's call or result; ``None`` for any other
    block."""
    kind = block.get("type")
    if kind == "server_tool_use":
        raw = json.dumps(block["input"]) if block.get("input") else ""
        return (*servers, (index, block["id"], block["name"], raw)), ()
    if isinstance(kind, str) and kind.endswith("_tool_result"):
        content = block.get("content")
        failed = isinstance(content, Mapping) and str(content.get("type", "")).endswith("_error")
        part = ServerToolResultPart(
            block.get("tool_use_id", ""),
            kind.removesuffix("_tool_result"),
            _plain(block),
            failed,
            PROVIDER,
        )
        return servers, (ProviderPartEvent(part, index, timestamp=ts),)
    return None


def server_json(servers: Servers, index: int, text: str) -> Servers | None:
    """``servers`` with ``text`` added to the input of the server call at ``index``;
    ``None`` when no server call is open there (the delta is a function tool's)."""
    for i, (at, call_id, name, raw) in enumerate(servers):
        if at == index:
            return (*servers[:i], (at, call_id, name, raw + text), *servers[i + 1 :])
    return None


def server_stop(
    servers: Servers, index: int, ts: int
) -> tuple[Servers, Sequence[StreamEvent]] | None:
    """The finished server call at ``index`` as a part; ``None`` when none is open there."""
    for at, call_id, name, raw in servers:
        if at == index:
            try:
                value: Any = json.loads(raw) if raw else {}
            except ValueError:
                value = {"raw": raw}
            part = ServerToolCallPart(call_id, name, _plain(value), PROVIDER)
            rest = tuple(s for s in servers if s[0] != index)
            return rest, (ProviderPartEvent(part, index, timestamp=ts),)
    return None


def citation(delta: Mapping[str, Any], index: int, ts: int) -> StreamEvent:
    """A ``citations_delta`` as a ``CitationPart`` of the text block at ``index``."""
    cited = delta.get("citation") or {}
    part = CitationPart(
        str(cited.get("url") or ""),
        str(cited.get("title") or ""),
        str(cited.get("cited_text") or ""),
        PROVIDER,
    )
    return ProviderPartEvent(part, index, timestamp=ts)


def _plain(value: Any) -> Any:
    """JSON as the wire form keeps it: lists, str-keyed dicts, finite numbers."""
    return json.loads(json.dumps(value))
