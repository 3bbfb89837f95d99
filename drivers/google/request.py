"""Building a Gemini ``streamGenerateContent`` request body from an agentcore ``ModelRequest``.

Pure functions, no SDK import: the body is the JSON the API takes (camelCase), posted as
is through the SDK's HTTP client. What the conversation becomes:

- the system prompt: ``systemInstruction``;
- user messages: a ``user`` content of ``text``, ``inlineData`` (base64) and ``fileData``
  (by URI) parts (``drivers.google.content``); a part the API does not take is refused
  before anything is sent;
- assistant messages: a ``model`` content, part by part in order: text, ``functionCall``
  (``id``, ``name``, ``args``) and, for the model that produced it, thinking as
  ``{"text", "thought": true}`` with its ``thoughtSignature``. An empty signed thinking
  part is the signature of the part after it (see ``drivers.google.stream``) and goes
  back on that part. Thinking from any other model or provider becomes text, and its
  signatures are dropped: Gemini only verifies its own, per model;
- Gemini 3 rejects a replayed function call that has no signature. When the first call of
  a model turn has none (another provider wrote it, or another Gemini model), it gets
  ``SKIP_SIGNATURE``, the placeholder Google documents for such histories; models known
  to be older than Gemini 3 never get it;
- each run of tool results: one ``user`` content of ``functionResponse`` parts (``id``,
  ``name``, ``response: {"output": text}`` or ``{"error": text}``), followed, when a
  tool returned media, by a label and the media as ``inlineData``/``fileData`` parts.

The history is normalised first (``drivers._common.history``): empty assistant messages dropped,
orphaned tool calls closed with an error result, tool-call ids mapped to
``[A-Za-z0-9_-]{1,64}``.

Thinking: Gemini 3 models take ``thinkingConfig.thinkingLevel`` (``minimal`` ... ``high``;
``xhigh`` is ``high``), older and unrecognised ones ``thinkingBudget`` with the budgets of
``drivers._common.base.THINKING_BUDGETS``; with thinking on, ``includeThoughts`` streams the
thought summaries. ``off`` asks for the least thinking the model allows (budget 0 on
2.x Flash, 128 on 2.x Pro, level ``minimal`` on 3.x Flash and ``low`` on 3.x Pro), since
some Gemini models cannot turn thinking off at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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

from .._common.base import plain, thinking_budget
from .._common.content import MediaSupport, check_media
from .._common.history import (
    group_tool_results,
    normalize_history,
    normalize_tool_call_ids,
    thinking_to_text,
)
from .content import MEDIA, content_part
from .provider_tools import replay_part, tool_entry

__all__ = [
    "SKIP_SIGNATURE",
    "build_body",
    "build_contents",
    "model_id",
    "model_path",
    "thinking_config",
    "tool_declarations",
]

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""What Google documents as the ``thoughtSignature`` of a function call it did not sign."""

_VERSION = re.compile(r"gemini-(\d+)")
_LEVELS: Mapping[ThinkingLevel, str] = {
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
}


def model_id(model: str) -> str:
    """``model`` without a resource prefix: ``models/gemini-2.5-pro`` -> ``gemini-2.5-pro``."""
    return model.rpartition("/")[2]


def model_path(model: str) -> str:
    """The resource name the URL needs: ``models/<id>`` unless ``model`` already has one."""
    return model if "/" in model else f"models/{model}"


def _generation(model: str) -> int | None:
    """The Gemini major version in a model id (``gemini-2.5-flash`` -> 2), if it says."""
    found = _VERSION.search(model_id(model))
    return int(found.group(1)) if found else None


def thinking_config(level: ThinkingLevel, model: str) -> dict[str, Any] | None:
    """The ``thinkingConfig`` for ``level`` on ``model`` (see the module docstring).

    Raises ``ConfigurationError`` for an unknown level.
    """
    budget = thinking_budget(level)
    generation = _generation(model)
    flash = "flash" in model_id(model)
    if generation is not None and generation >= 3:
        if budget is None:
            return {"thinkingLevel": "minimal" if flash else "low"}
        return {"thinkingLevel": _LEVELS[level], "includeThoughts": True}
    if budget is None:
        if generation is None:
            return None
        return {"thinkingBudget": 0 if flash else 128}
    return {"thinkingBudget": budget, "includeThoughts": True}


def build_body(
    request: ModelRequest,
    *,
    model: str,
    thinking_level: ThinkingLevel,
    max_tokens: int | None,
    media: MediaSupport = MEDIA,
) -> tuple[str, dict[str, Any]]:
    """``(model, body)`` for a streamed ``generateContent`` call answering ``request``.

    ``request.model``/``thinking_level``/``max_tokens`` override the driver defaults given
    here. ``max_tokens`` counts the answer: with a thinking budget on, the budget is added
    to ``maxOutputTokens``. ``request.options`` is merged last: its ``generationConfig``
    into the one built here, anything else (``toolConfig``, ``safetySettings``,
    ``cachedContent``...) at the top level. Raises ``ConfigurationError`` for an unknown
    thinking level and ``UnsupportedContentError`` for a content part ``media`` does not
    allow.
    """
    target = request.model or model
    check_media(request.messages, media, model_id(target))
    body: dict[str, Any] = {"contents": build_contents(request.messages, target)}
    if request.system_prompt:
        body["systemInstruction"] = {"parts": [{"text": request.system_prompt}]}
    if request.tools:
        body["tools"] = [{"functionDeclarations": tool_declarations(request.tools)}]
    if request.provider_tools:
        body["tools"] = body.get("tools", []) + [tool_entry(t) for t in request.provider_tools]
    config: dict[str, Any] = {}
    thinking = thinking_config(request.thinking_level or thinking_level, target)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    limit = request.max_tokens if request.max_tokens is not None else max_tokens
    if limit is not None:
        config["maxOutputTokens"] = limit + (
            thinking.get("thinkingBudget", 0) if thinking and "includeThoughts" in thinking else 0
        )
    if request.temperature is not None:
        config["temperature"] = request.temperature
    options = plain(request.options)
    config.update(options.pop("generationConfig", None) or {})
    if config:
        body["generationConfig"] = config
    body.update(options)
    return target, body


def tool_declarations(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """``functionDeclarations`` with the JSON Schema as ``parametersJsonSchema`` (whole
    JSON Schema, where ``parameters`` takes only Google's OpenAPI subset)."""
    return [
        {
            "name": tool.name,
            "description": tool.description,
            "parametersJsonSchema": plain(tool.parameters),
        }
        for tool in tools
    ]


def build_contents(messages: Sequence[Any], model: str) -> list[dict[str, Any]]:
    """The ``contents`` array for the history ``messages`` sent to ``model``."""
    target = model_id(model)

    def replayable(message: AssistantMessage, part: ThinkingPart) -> bool:
        return part.redacted_data is None and model_id(message.model) == target

    history = normalize_tool_call_ids(
        thinking_to_text(normalize_history(messages), keep=replayable)
    )
    generation = _generation(model)
    sign = generation is None or generation >= 3
    out: list[dict[str, Any]] = []
    for entry in group_tool_results(history):
        if isinstance(entry, tuple):
            out.append({"role": "user", "parts": _tool_results(entry)})
        elif isinstance(entry, AssistantMessage):
            parts = _model_parts(entry, sign=sign)
            if parts:
                out.append({"role": "model", "parts": parts})
        elif isinstance(entry, UserMessage):
            out.append({"role": "user", "parts": _parts(entry.content)})
    return out


def _parts(content: Content) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    return [content_part(p) for p in content]


def _model_parts(message: AssistantMessage, *, sign: bool) -> list[dict[str, Any]]:
    """The parts of a ``model`` content; signatures go back where they came from."""
    out: list[dict[str, Any]] = []
    pending: str | None = None
    for part in message.parts:
        entry: dict[str, Any]
        if isinstance(part, ThinkingPart):
            if not part.text:  # the signature of the next part
                if pending is not None:
                    out.append({"text": "", "thoughtSignature": pending})
                pending = part.signature
                continue
            entry = {"text": part.text, "thought": True}
            if part.signature:
                entry["thoughtSignature"] = part.signature
        elif isinstance(part, TextPart):
            entry = {"text": part.text}
        elif isinstance(part, ToolCallPart):
            entry = {"functionCall": _function_call(part)}
        else:
            replayed = replay_part(part)  # a provider-side tool's part (provider_tools)
            if replayed is None:
                continue
            entry = replayed
        if pending is not None and "thoughtSignature" not in entry:
            entry["thoughtSignature"] = pending
        elif pending is not None:
            out.append({"text": "", "thoughtSignature": pending})
        pending = None
        out.append(entry)
    if pending is not None:
        out.append({"text": "", "thoughtSignature": pending})
    if sign:
        first = next((p for p in out if "functionCall" in p), None)
        if first is not None and "thoughtSignature" not in first:
            first["thoughtSignature"] = SKIP_SIGNATURE
    return out


def _function_call(part: ToolCallPart) -> dict[str, Any]:
    """What the model called; a call whose JSON was broken goes back with ``{}``."""
    return {"id": part.tool_call_id, "name": part.tool_name, "args": plain(part.input)}


def _tool_results(results: tuple[ToolResultMessage, ...]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    media: list[dict[str, Any]] = []
    for result in results:
        content = result.result
        if isinstance(content, str):
            text = content
        else:
            text = "\n".join(p.text for p in content if isinstance(p, TextContent))
            found = [content_part(p) for p in content if not isinstance(p, TextContent)]
            if found:
                media += [{"text": f"Media returned by tool call {result.tool_call_id}:"}]
                media += found
                text = text or f"({len(found)} attachment(s) below)"
        response = {"error": text} if result.is_error else {"output": text}
        parts.append(
            {
                "functionResponse": {
                    "id": result.tool_call_id,
                    "name": result.tool_name,
                    "response": response,
                }
            }
        )
    return parts + media
