"""Build a Responses API request body (``POST /responses``) from a ``ModelRequest``.

Pure functions, no SDK import. What the conversation becomes:

- the system prompt: ``instructions``;
- user messages: ``{"role": "user", "content": ...}``, a string or ``input_text``,
  ``input_image``, ``input_file`` and ``input_audio`` parts (``drivers.openai_responses
  .content``); a part the API does not take is refused before anything is sent;
- assistant messages, part by part in order: text as an assistant message
  (``{"type": "message", "role": "assistant", "content": "..."}``, consecutive text parts
  joined), each tool call as a ``function_call`` item (``call_id``, ``name``, the
  ``arguments`` the model sent, ``{}`` when they were not valid JSON), and reasoning;
- reasoning is replayed as a ``reasoning`` item (``id``, ``encrypted_content``, its text
  as one ``summary_text``) only when this driver produced it (see
  ``drivers.openai_responses.stream``: ``signature`` is ``"openai-responses:" + id``,
  ``redacted_data`` the encrypted content) for the same model family (the model id with
  any ``-YYYY-MM-DD`` snapshot suffix removed). Any other reasoning, from another provider
  or model, is sent as assistant text, and redacted reasoning is dropped;
- tool results: one ``function_call_output`` item each, ``output`` a string, or a list of
  ``input_text``/``input_image``/``input_file`` parts when the tool returned media.

The history is normalised first (``drivers._common.history``): empty assistant messages dropped,
orphaned tool calls closed with an error result, tool-call ids mapped to
``[A-Za-z0-9_-]{1,64}``. The body always has ``stream: true`` and ``store: false`` (the
driver keeps the conversation, OpenAI need not); with reasoning on it asks for
``reasoning: {"effort", "summary": "auto"}`` and ``include:
["reasoning.encrypted_content"]`` so reasoning can be sent back statelessly. A ``native``
structured-output request becomes ``text.format`` (``json_schema``, see ``drivers._common.output``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from agentcore import ModelRequest, ThinkingLevel, ToolSpec
from agentcore.events import (
    AssistantMessage,
    Content,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)

from .._common.base import plain
from .._common.content import MediaSupport, check_media
from .._common.history import normalize_history, normalize_tool_call_ids, thinking_to_text
from .._common.openai_api import reasoning_effort
from .._common.output import openai_json_schema
from .content import MEDIA, input_part
from .provider_tools import tool_entry
from .stream import REASONING_PREFIX

__all__ = ["build_body", "build_input", "model_family", "tool_definition"]

ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""The ``include`` value that makes reasoning items carry their encrypted content."""

_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def model_family(model: str) -> str:
    """``model`` without a dated snapshot suffix: ``gpt-5-2025-08-07`` -> ``gpt-5``."""
    return _SNAPSHOT.sub("", model)


def build_body(
    request: ModelRequest,
    *,
    model: str,
    thinking_level: ThinkingLevel,
    max_tokens: int | None,
    supports_xhigh: bool = True,
    media: MediaSupport = MEDIA,
) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /responses`` for ``request``.

    ``request.model``/``thinking_level``/``max_tokens`` override the driver defaults given
    here; ``request.options`` is merged last, so it can set any field the API takes
    (``tool_choice``, ``text``, ``parallel_tool_calls``, ``store``...). Raises
    ``ConfigurationError`` for an unknown thinking level and ``UnsupportedContentError``
    for a content part ``media`` does not allow.
    """
    target = request.model or model
    check_media(request.messages, media, target)
    body: dict[str, Any] = {
        "model": target,
        "input": build_input(request.messages, target),
        "stream": True,
        "store": False,
    }
    if request.system_prompt:
        body["instructions"] = request.system_prompt
    if request.tools:
        body["tools"] = [tool_definition(t) for t in request.tools]
    if request.provider_tools:
        body["tools"] = body.get("tools", []) + [tool_entry(t) for t in request.provider_tools]
    limit = request.max_tokens if request.max_tokens is not None else max_tokens
    if limit is not None:
        body["max_output_tokens"] = limit
    if request.temperature is not None:
        body["temperature"] = request.temperature
    level = request.thinking_level or thinking_level
    effort = reasoning_effort(level, supports_xhigh=supports_xhigh)
    if effort is not None:
        body["reasoning"] = {"effort": effort, "summary": "auto"}
        body["include"] = [ENCRYPTED_REASONING]
    if request.output is not None and request.output.mode == "native":
        body["text"] = {"format": {"type": "json_schema", **openai_json_schema(request.output)}}
    body.update(plain(request.options))
    return body


def tool_definition(tool: ToolSpec) -> dict[str, Any]:
    """A Responses ``function`` tool: name, description and JSON Schema at the top level."""
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": plain(tool.parameters),
    }


def build_input(messages: Sequence[Any], model: str) -> list[dict[str, Any]]:
    """The ``input`` items for the history ``messages`` sent to ``model``."""
    family = model_family(model)

    def replayable(message: AssistantMessage, part: ThinkingPart) -> bool:
        return (
            part.redacted_data is not None
            and part.signature is not None
            and part.signature.startswith(REASONING_PREFIX)
            and model_family(message.model) == family
        )

    history = normalize_tool_call_ids(
        thinking_to_text(normalize_history(messages), keep=replayable)
    )
    out: list[dict[str, Any]] = []
    for message in history:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": _user_content(message.content)})
        elif isinstance(message, AssistantMessage):
            _assistant_items(message, out)
        elif isinstance(message, ToolResultMessage):
            output = _tool_output(message.result)
            out.append(
                {"type": "function_call_output", "call_id": message.tool_call_id, "output": output}
            )
    return out


def _user_content(content: Content) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    return [input_part(p) for p in content]


def _tool_output(content: Content) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if all(type(p) is TextContent for p in content):
        return "\n".join(p.text for p in content if isinstance(p, TextContent))
    return [input_part(p) for p in content]


def _assistant_items(message: AssistantMessage, out: list[dict[str, Any]]) -> None:
    """Append ``message``'s items; text parts in a row become one assistant message."""
    texts: list[str] = []

    def flush() -> None:
        if texts:
            out.append({"type": "message", "role": "assistant", "content": "".join(texts)})
            texts.clear()

    for part in message.parts:
        if isinstance(part, TextPart):
            texts.append(part.text)
            continue
        flush()
        if isinstance(part, ThinkingPart):
            out.append(_reasoning(part))
        elif isinstance(part, ToolCallPart):
            out.append(_function_call(part))
    flush()


def _reasoning(part: ThinkingPart) -> dict[str, Any]:
    """A reasoning item from a part ``build_input`` kept (so signature and data are set)."""
    item_id = (part.signature or "")[len(REASONING_PREFIX) :]
    summary = [{"type": "summary_text", "text": part.text}] if part.text else []
    return {
        "type": "reasoning",
        "id": item_id,
        "summary": summary,
        "encrypted_content": part.redacted_data,
    }


def _function_call(part: ToolCallPart) -> dict[str, Any]:
    """Send back what the model wrote; a call whose JSON was broken goes back as ``{}``."""
    if part.input_error is None and part.raw_input:
        arguments = part.raw_input
    else:
        arguments = json.dumps(plain(part.input), separators=(",", ":"))
    return {
        "type": "function_call",
        "call_id": part.tool_call_id,
        "name": part.tool_name,
        "arguments": arguments,
    }
