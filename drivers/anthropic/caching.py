"""Anthropic prompt caching: a ``CachePlan`` becomes ``cache_control`` breakpoints.

A breakpoint is ``{"type": "ephemeral"}`` (with ``"ttl": "1h"`` for a one-hour cache) on
the last tool definition, on the system prompt (then sent as one text block), and on the
last content block of each planned message. A request takes at most
``ANTHROPIC_BREAKPOINTS``: tools and system first, then the latest message breakpoints
(the longest prefixes). Thinking blocks and empty text cannot carry one; a message whose
blocks all are such keeps none.

Messages are grouped and normalised on the way to the body (tool results become one
user message, empty replies are dropped), so a planned index into the request's messages
is found in the body by building the body of the prefix up to it: the breakpoint goes on
the body message that ends that prefix. Pure; the driver calls ``with_cache_control`` on
the arguments ``build_params`` made.
"""

from __future__ import annotations

from typing import Any

from agentcore import ModelRequest
from agentcore.caching import ANTHROPIC_BREAKPOINTS

from .request import build_messages

__all__ = ["with_cache_control"]

JSON = dict[str, Any]
_UNMARKABLE = frozenset({"thinking", "redacted_thinking"})


def with_cache_control(params: JSON, request: ModelRequest) -> JSON:
    """``params`` (``messages.create`` arguments for ``request``) with the breakpoints of
    ``request.cache``; ``params`` itself when there is no plan. Never mutates ``params``."""
    plan = request.cache
    if plan is None:
        return params
    control: JSON = (
        {"type": "ephemeral"} if plan.ttl is None else {"type": "ephemeral", "ttl": plan.ttl}
    )
    out = dict(params)
    room = ANTHROPIC_BREAKPOINTS
    if plan.tools and out.get("tools"):
        tools = list(out["tools"])
        tools[-1] = {**tools[-1], "cache_control": control}
        out["tools"] = tools
        room -= 1
    if plan.system and out.get("system"):
        out["system"] = [{"type": "text", "text": out["system"], "cache_control": control}]
        room -= 1
    marks = plan.messages[-room:] if room > 0 else ()
    if marks:
        messages = list(out["messages"])
        for index in _body_indices(request, marks, len(messages)):
            messages[index] = _marked(messages[index], control)
        out["messages"] = messages
    return out


def _body_indices(request: ModelRequest, marks: tuple[int, ...], size: int) -> set[int]:
    """The body message ending each marked prefix of ``request.messages``."""
    last = len(request.messages) - 1
    found = set()
    for mark in marks:
        if mark >= last:
            found.add(size - 1)
        elif mark >= 0:
            found.add(min(len(build_messages(request.messages[: mark + 1])), size) - 1)
    return {i for i in found if i >= 0}


def _marked(message: JSON, control: JSON) -> JSON:
    content = message["content"]
    if isinstance(content, str):
        if not content:
            return message
        return {**message, "content": [{"type": "text", "text": content, "cache_control": control}]}
    blocks = list(content)
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if block.get("type") in _UNMARKABLE or (
            block.get("type") == "text" and not block.get("text")
        ):
            continue
        blocks[i] = {**block, "cache_control": control}
        return {**message, "content": blocks}
    return message
