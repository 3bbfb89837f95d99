"""Prompt-cache fields every OpenAI-style driver shares (``agentcore.CachePlan`` mapped).

OpenAI caches long prefixes by itself; a request only steers it: ``prompt_cache_key``
routes requests that share a prefix to the same cache, ``prompt_cache_retention``
(``in_memory`` or ``24h``) keeps it longer. Both go at the top level of a Chat
Completions or a Responses body. Breakpoints and TTLs are Anthropic's: ignored here.
"""

from __future__ import annotations

from typing import Any

from agentcore import ModelRequest

__all__ = ["openai_cache_fields"]


def openai_cache_fields(request: ModelRequest) -> dict[str, Any]:
    """The body fields for ``request.cache`` (empty when it asks for none of them)."""
    plan = request.cache
    fields: dict[str, Any] = {}
    if plan is None:
        return fields
    if plan.key is not None:
        fields["prompt_cache_key"] = plan.key
    if plan.retention is not None:
        fields["prompt_cache_retention"] = plan.retention
    return fields
