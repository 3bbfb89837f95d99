"""Conversions between MCP's data and agentcore's: names, schemas, results, prompts.

No I/O and no asyncio: every function maps values to values, so the mapping rules are
tested with Hypothesis without a server. The rules:

- a tool name becomes ``prefix_name`` with every character a provider rejects replaced
  by ``_``; ``include``/``exclude`` filter on the server's own names;
- a tool result's blocks become content parts (a single text block becomes plain
  text): text, images, audio, and embedded resources (text as text; a blob as an image,
  a document or audio by its media type, titled by its URI); a resource link with an
  ``http(s)`` URI becomes a ``FileContent`` the provider fetches. What no model can take
  becomes a short text note: media of another type (a zip), and a link the provider
  cannot fetch (``file://``, a server's own scheme: the model can ask for it to be
  read). Structured content goes to ``details`` (and becomes the text when there are no
  blocks); ``isError`` is kept;
- sampling messages become a ``ModelRequest`` and the model's text becomes the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs
import mcp_types as mt

from .._core.binary import describe_part, inline_part
from .._core.content import (
    Content,
    ContentPart,
    FileContent,
    JSONValue,
    TextContent,
    TextPart,
)
from .._core.driver import Message, ModelRequest
from .._core.events import AssistantMessage, UserMessage
from .._loop.tools import ToolOutput
from .errors import MCPServerError

__all__ = [
    "SAMPLING_MODEL",
    "MCPPrompt",
    "MCPResource",
    "PromptArgument",
    "PromptMessage",
    "as_text",
    "error_output",
    "listing",
    "object_schema",
    "prompt",
    "prompt_messages",
    "resource",
    "resource_content",
    "sampling_request",
    "sampling_stop_reason",
    "selected",
    "to_content",
    "to_output",
    "tool_name",
]

_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(name: str, prefix: str | None = None) -> str:
    """The agentcore name of MCP tool ``name``: ``prefix_name``, with every character
    other than letters, digits, ``_`` and ``-`` replaced by ``_`` (never empty)."""
    safe = _INVALID.sub("_", name) or "_"
    return f"{_INVALID.sub('_', prefix)}_{safe}" if prefix else safe


def selected(name: str, include: Collection[str] | None, exclude: Collection[str]) -> bool:
    """Whether MCP tool ``name`` passes the filters (``include=None``: every tool)."""
    return (include is None or name in include) and name not in exclude


def object_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` as an object schema: a missing ``type`` becomes ``"object"`` (some
    servers omit it); any other type is not an argument schema and raises ``ValueError``."""
    out = dict(schema)
    kind = out.setdefault("type", "object")
    if kind != "object":
        raise ValueError(f"input schema has type {kind!r}, not 'object'")
    out.setdefault("properties", {})
    return out


# -- tool results ---------------------------------------------------------------------------


def to_content(blocks: Sequence[mt.ContentBlock]) -> Content:
    """Content blocks as agentcore content: one text block is plain text, no block is
    ``""``, anything else a tuple of text and image blocks."""
    if len(blocks) == 1 and isinstance(blocks[0], mt.TextContent):
        return blocks[0].text
    if not blocks:
        return ""
    return tuple(_block(b) for b in blocks)


def _block(block: mt.ContentBlock) -> ContentPart:
    if isinstance(block, mt.TextContent):
        return TextContent(block.text)
    if isinstance(block, mt.ImageContent):
        return _inline(block.mime_type, block.data, "image", "image")
    if isinstance(block, mt.AudioContent):
        return _inline(block.mime_type, block.data, "audio", "audio")
    if isinstance(block, mt.ResourceLink):
        return _link(block)
    return _resource(block.resource)


def _inline(
    mime_type: str | None, data: str, what: str, kind: str | None = None, title: str | None = None
) -> ContentPart:
    """Base64 ``data`` as the part its media type makes it (of ``kind`` when given),
    or a note saying it was left out."""
    part = inline_part(mime_type, data, title) if mime_type else None
    if part is not None and kind in (None, type(part).type):
        return part
    return TextContent(f"[{what} ({mime_type or 'unknown type'}) omitted: not supported]")


def _link(block: mt.ResourceLink) -> ContentPart:
    uri = str(block.uri)
    if uri.startswith(("https://", "http://")):
        media_type = block.mime_type or "application/octet-stream"
        return FileContent.from_url(uri, media_type, title=block.title or block.name)
    about = f": {block.description}" if block.description else ""
    return TextContent(f"[resource {uri} ({block.name}){about}]")


def _resource(contents: mt.TextResourceContents | mt.BlobResourceContents) -> ContentPart:
    if isinstance(contents, mt.TextResourceContents):
        return TextContent(contents.text)
    uri = str(contents.uri)
    title = uri.rstrip("/").rsplit("/", 1)[-1] or uri
    return _inline(contents.mime_type, contents.blob, f"binary resource {uri}", title=title)


def to_output(result: mt.CallToolResult, server: str) -> ToolOutput:
    """A ``tools/call`` result as a ``ToolOutput``.

    ``details`` is ``{"server": ...}`` plus ``structured_content`` when the server sent
    it; when it sent no content blocks, the structured content (JSON) is the text.
    """
    details: dict[str, JSONValue] = {"server": server}
    content: Content = to_content(result.content)
    if result.structured_content is not None:
        details["structured_content"] = result.structured_content
        if not result.content:
            content = json.dumps(result.structured_content, ensure_ascii=False, sort_keys=True)
    return ToolOutput(content, details, bool(result.is_error))


def error_output(error: MCPServerError) -> ToolOutput:
    """The error result the model gets when a call could not be completed."""
    details = {"error_code": error.code.value, "server": error.server, "kind": error.kind}
    return ToolOutput(error.message, details, True)


# -- resources and prompts ------------------------------------------------------------------


@attrs.frozen(slots=True)
class MCPResource:
    """A resource a server offers: read it with ``MCPServer.read_resource(uri)``."""

    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None


@attrs.frozen(slots=True)
class PromptArgument:
    """One argument of a prompt template."""

    name: str
    description: str | None = None
    required: bool = False


@attrs.frozen(slots=True)
class MCPPrompt:
    """A prompt template a server offers: fill it with ``MCPServer.get_prompt``."""

    name: str
    description: str | None = None
    arguments: tuple[PromptArgument, ...] = ()


@attrs.frozen(slots=True)
class PromptMessage:
    """One message of a filled prompt: ``role`` is ``user`` or ``assistant``."""

    role: Literal["user", "assistant"]
    content: Content


def resource(item: mt.Resource) -> MCPResource:
    return MCPResource(str(item.uri), item.name, item.description, item.mime_type)


def prompt(item: mt.Prompt) -> MCPPrompt:
    arguments = tuple(
        PromptArgument(a.name, a.description, bool(a.required)) for a in item.arguments or ()
    )
    return MCPPrompt(item.name, item.description, arguments)


def resource_content(result: mt.ReadResourceResult) -> Content:
    """A read resource as content: one text part is plain text, images stay images."""
    parts = [_resource(c) for c in result.contents]
    if len(parts) == 1 and isinstance(parts[0], TextContent):
        return parts[0].text
    return tuple(parts) if parts else ""


def prompt_messages(result: mt.GetPromptResult) -> tuple[PromptMessage, ...]:
    """A filled prompt's messages with agentcore content."""
    return tuple(PromptMessage(m.role, to_content([m.content])) for m in result.messages)


def as_text(content: Content) -> str:
    """Content as text for a tool result listing (media are named, not inlined)."""
    if isinstance(content, str):
        return content
    return "\n".join(describe_part(p) for p in content)


# -- sampling -------------------------------------------------------------------------------

SAMPLING_MODEL = "mcp-sampling"
"""The ``model`` recorded on assistant messages a server puts in a sampling request."""


def sampling_request(params: mt.CreateMessageRequestParams) -> ModelRequest:
    """A server's ``sampling/createMessage`` as a ``ModelRequest`` (no tools).

    Raises ``ValueError`` for content agentcore cannot send a model (tool use or tool
    results inside sampling messages), naming the message.
    """
    messages = tuple(_sampling_message(i, m) for i, m in enumerate(params.messages))
    return ModelRequest(
        messages,
        system_prompt=params.system_prompt,
        max_tokens=params.max_tokens,
        temperature=params.temperature,
    )


def _sampling_message(index: int, message: mt.SamplingMessage) -> Message:
    parts: list[ContentPart] = []
    for block in message.content_as_list:
        if isinstance(block, mt.TextContent | mt.ImageContent | mt.AudioContent):
            parts.append(_block(block))
        else:
            raise ValueError(
                f"sampling message {index} holds {block.type!r} content, which agentcore "
                "does not forward to a model"
            )
    message_id = f"mcp_sampling_{index}"
    if message.role == "assistant":
        text = "".join(p.text for p in parts if isinstance(p, TextContent))
        return AssistantMessage(message_id, SAMPLING_MODEL, (TextPart(text),))
    if len(parts) == 1 and isinstance(parts[0], TextContent):
        return UserMessage(message_id, parts[0].text)
    return UserMessage(message_id, tuple(parts))


_STOP_REASONS = {
    "end_turn": "endTurn",
    "max_tokens": "maxTokens",
    "stop_sequence": "stopSequence",
    "tool_use": "toolUse",
}


def sampling_stop_reason(reason: str | None) -> str | None:
    """An agentcore stop reason in MCP's spelling (unknown reasons pass through)."""
    return None if reason is None else _STOP_REASONS.get(reason, reason)


def listing(items: Iterable[MCPResource | MCPPrompt]) -> str:
    """Resources or prompts as JSON text for the model."""
    return json.dumps([attrs.asdict(i) for i in items], ensure_ascii=False, sort_keys=True)
