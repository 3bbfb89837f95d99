"""Building an Anthropic Messages request body from an agentcore ``ModelRequest``.

Pure functions, no SDK import: the result is the JSON body ``client.messages.create``
receives (as keyword arguments). The history first goes through the provider-neutral
normalisation in ``drivers._common.history``; what is left here is Anthropic's own shape:

- user text, images and documents (``drivers.anthropic.content``; a part the API does not
  take is refused before anything is sent);
- assistant text, ``tool_use`` and thinking: a signed ``ThinkingPart`` is replayed as a
  ``thinking`` block with its signature, a redacted one as ``redacted_thinking``, and
  unsigned thinking (another provider's) becomes text;
- each run of tool results becomes one user message of ``tool_result`` blocks, in order;
- tool-call ids are rewritten to ``^[a-zA-Z0-9_-]{1,64}$``, the same way in calls and
  results; unanswered calls are closed with an error result.

Thinking levels map to ``thinking={"type": "enabled", "budget_tokens": N}`` with the
budgets of ``drivers._common.base.THINKING_BUDGETS``; ``max_tokens`` then counts the answer only,
and the budget is added to it (the API requires ``max_tokens > budget_tokens``).
``temperature`` is not sent while thinking is on (the API rejects it); otherwise it goes in
the body as an extra field, since recent SDKs no longer take it as an argument. A
``native`` structured-output request becomes ``output_config.format`` (see
``drivers._common.output``).
"""

from __future__ import annotations

from typing import Any

from agentcore import ModelRequest, ThinkingLevel, ToolSpec
from agentcore.events import (
    AssistantMessage,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)
from agentcore.provider_tools import CitationPart, ServerToolCallPart, ServerToolResultPart

from .._common.base import plain, thinking_budget
from .._common.content import MediaSupport, check_media
from .._common.history import (
    group_tool_results,
    normalize_history,
    normalize_tool_call_ids,
    thinking_to_text,
)
from .._common.output import anthropic_output_config
from .content import FILES_BETA, MEDIA, content_blocks, uses_file_ids
from .provider_tools import replay_block, tool_definition

__all__ = ["build_messages", "build_params"]

JSON = dict[str, Any]


def build_params(
    request: ModelRequest,
    *,
    model: str,
    max_tokens: int,
    thinking_level: ThinkingLevel,
    media: MediaSupport = MEDIA,
) -> JSON:
    """The keyword arguments of ``messages.create`` for ``request`` (without ``stream``).

    ``model``, ``max_tokens`` and ``thinking_level`` are the driver's defaults; the
    request's own values win. ``request.options`` are sent as extra top-level body fields
    (``stop_sequences``, ``top_k``, ``tool_choice``, ``metadata``...), unchecked, through
    the SDK's ``extra_body``.
    Raises ``ConfigurationError`` for an unknown thinking level and
    ``UnsupportedContentError`` for a content part ``media`` does not allow; a request
    that refers to an uploaded file sends the Files API beta header.
    """
    target = request.model or model
    check_media(request.messages, media, target)
    budget = thinking_budget(request.thinking_level or thinking_level)
    answer_tokens = request.max_tokens or max_tokens
    params: JSON = {
        "model": target,
        "max_tokens": answer_tokens + (budget or 0),
        "messages": build_messages(request.messages),
    }
    if request.system_prompt:
        params["system"] = request.system_prompt
    if request.tools or request.provider_tools:
        params["tools"] = [_tool(t) for t in request.tools] + [
            tool_definition(t) for t in request.provider_tools
        ]
    if request.output is not None and request.output.mode == "native":
        params["output_config"] = anthropic_output_config(request.output)
    extra: JSON = {}
    if budget is not None:
        params["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif request.temperature is not None:
        extra["temperature"] = request.temperature
    extra.update(request.options)
    if extra:
        params["extra_body"] = extra
    if uses_file_ids(request.messages):
        params["extra_headers"] = {"anthropic-beta": FILES_BETA}
    return params


def _tool(spec: ToolSpec) -> JSON:
    return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}


def _is_anthropic_thinking(message: AssistantMessage, part: ThinkingPart) -> bool:
    """Signed or redacted thinking that a Claude model produced: only that is sent back as
    thinking (another provider's encrypted reasoning would be rejected); the rest is text."""
    signed = part.signature is not None or part.redacted_data is not None
    return signed and "claude" in message.model.lower()


def build_messages(
    messages: tuple[UserMessage | AssistantMessage | ToolResultMessage, ...],
) -> list[JSON]:
    """The ``messages`` array: normalised history in Anthropic's roles and blocks."""
    history = thinking_to_text(messages, keep=_is_anthropic_thinking)
    history = normalize_tool_call_ids(normalize_history(history))
    out: list[JSON] = []
    for entry in group_tool_results(history):
        if isinstance(entry, tuple):
            out.append({"role": "user", "content": [_tool_result(r) for r in entry]})
        elif isinstance(entry, AssistantMessage):
            blocks = [b for p in entry.parts if (b := _assistant_block(p)) is not None]
            out.append({"role": "assistant", "content": blocks})
        else:
            out.append({"role": "user", "content": content_blocks(entry.content)})
    return out


def _tool_result(result: ToolResultMessage) -> JSON:
    block: JSON = {"type": "tool_result", "tool_use_id": result.tool_call_id}
    if result.result:
        block["content"] = content_blocks(result.result)
    if result.is_error:
        block["is_error"] = True
    return block


def _assistant_block(part: Part) -> JSON | None:
    if isinstance(part, ServerToolCallPart | ServerToolResultPart | CitationPart):
        return replay_block(part)
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ToolCallPart):
        return {
            "type": "tool_use",
            "id": part.tool_call_id,
            "name": part.tool_name,
            "input": plain(part.input),
        }
    if part.redacted_data is not None:
        return {"type": "redacted_thinking", "data": part.redacted_data}
    return {"type": "thinking", "thinking": part.text, "signature": part.signature}
