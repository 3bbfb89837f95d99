"""Build a Chat Completions request body from a ``ModelRequest``.

Pure functions, no SDK import: the body is plain JSON data that the driver posts as is.
What the conversation becomes:

- the system prompt: one ``system`` message first (``system_role="developer"`` for models
  that want the newer role);
- user messages: a string, or content parts (``text``, ``image_url``, ``input_audio``,
  ``file``: ``drivers.openai.content``) when they hold media; text-only part lists are
  joined into one string, which every OpenAI-compatible server accepts. A part the API
  or model does not take is refused before anything is sent;
- assistant messages: their text as ``content`` (``null`` with tool calls and no text)
  and ``tool_calls`` carrying the arguments the model sent. Reasoning is not sent back to
  the model that produced it (Chat Completions has no field for it); reasoning from another
  model is replayed as text, since the provider changed;
- tool results: one ``tool`` message per result with ``tool_call_id``. Tool messages take
  text only, so the images, documents and audio a tool returned go into one ``user``
  message right after the run of tool messages (placing it earlier would split the
  results from their call).

A ``native`` structured-output request becomes ``response_format`` (``json_schema``, see
``drivers._common.output``).

Before that the history is normalised (``drivers._common.history``): empty assistant messages
dropped, orphaned tool calls closed, tool-call ids mapped to ``[A-Za-z0-9_-]{1,40}``.
"""

from __future__ import annotations

import json
from typing import Any

from agentcore import ModelRequest, ThinkingLevel, ToolSpec
from agentcore.events import (
    AssistantMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)

from .._common.base import plain
from .._common.content import MediaSupport, check_media
from .._common.history import group_tool_results, normalize_history, normalize_tool_call_ids
from .._common.openai_api import reasoning_effort
from .._common.output import openai_json_schema
from .content import MEDIA, content_part, is_text, user_content

__all__ = ["build_body"]

OPENAI_ID_MAX_LEN = 40
"""OpenAI rejects tool-call ids longer than this."""


def build_body(
    request: ModelRequest,
    *,
    model: str,
    thinking_level: ThinkingLevel,
    max_tokens: int | None,
    max_tokens_field: str = "max_completion_tokens",
    system_role: str = "system",
    supports_xhigh: bool = False,
    include_usage: bool = True,
    media: MediaSupport = MEDIA,
) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /chat/completions`` for ``request``.

    ``request.model``/``thinking_level``/``max_tokens`` override the driver defaults given
    here; ``request.options`` is merged into the body last, so it can set or override any
    field the server understands (``top_p``, ``seed``, ``response_format``...). A content
    part ``media`` does not allow is an ``UnsupportedContentError``.
    """
    target = request.model or model
    check_media(request.messages, media, target)
    body: dict[str, Any] = {
        "model": target,
        "messages": build_messages(request, target, system_role),
        "stream": True,
    }
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    if request.tools:
        body["tools"] = [tool_definition(t) for t in request.tools]
    limit = request.max_tokens if request.max_tokens is not None else max_tokens
    if limit is not None:
        body[max_tokens_field] = limit
    if request.temperature is not None:
        body["temperature"] = request.temperature
    effort = reasoning_effort(
        request.thinking_level or thinking_level, supports_xhigh=supports_xhigh
    )
    if effort is not None:
        body["reasoning_effort"] = effort
    if request.output is not None and request.output.mode == "native":
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": openai_json_schema(request.output),
        }
    body.update(plain(request.options))
    return body


def tool_definition(tool: ToolSpec) -> dict[str, Any]:
    """A ``function`` tool with the JSON Schema parameters as plain JSON data."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": plain(tool.parameters),
        },
    }


def build_messages(request: ModelRequest, model: str, system_role: str) -> list[dict[str, Any]]:
    """The ``messages`` array for ``request`` (see the module docstring for the mapping)."""
    out: list[dict[str, Any]] = []
    if request.system_prompt:
        out.append({"role": system_role, "content": request.system_prompt})
    history = normalize_tool_call_ids(
        normalize_history(request.messages), max_len=OPENAI_ID_MAX_LEN
    )
    for item in group_tool_results(history):
        if isinstance(item, UserMessage):
            out.append({"role": "user", "content": user_content(item.content)})
        elif isinstance(item, AssistantMessage):
            out.append(_assistant(item, model))
        else:
            out.extend(_tool_results(item))
    return out


def _assistant(message: AssistantMessage, model: str) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ThinkingPart):
            if message.model != model and part.text:
                texts.append(part.text)
        elif isinstance(part, ToolCallPart):
            calls.append(_tool_call(part))
    entry: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        entry["tool_calls"] = calls
    elif entry["content"] is None:
        entry["content"] = ""
    return entry


def _tool_call(part: ToolCallPart) -> dict[str, Any]:
    """Send back what the model wrote; a call whose JSON was broken goes back as ``{}``."""
    if part.input_error is None and part.raw_input:
        arguments = part.raw_input
    else:
        arguments = json.dumps(plain(part.input), separators=(",", ":"))
    return {
        "id": part.tool_call_id,
        "type": "function",
        "function": {"name": part.tool_name, "arguments": arguments},
    }


def _tool_results(results: tuple[ToolResultMessage, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    media: list[dict[str, Any]] = []
    for result in results:
        content = result.result
        if isinstance(content, str):
            text = content
        else:
            text = "\n".join(content_part(p)["text"] for p in content if is_text(p))
            found = [content_part(p) for p in content if not is_text(p)]
            if found:
                label = f"Media returned by tool call {result.tool_call_id}:"
                media += [{"type": "text", "text": label}, *found]
                text = text or f"({len(found)} attachment(s) in the next user message)"
        out.append({"role": "tool", "tool_call_id": result.tool_call_id, "content": text})
    if media:
        out.append({"role": "user", "content": media})
    return out
