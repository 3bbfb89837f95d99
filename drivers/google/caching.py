"""Gemini prompt caching: a ``CachePlan``'s ``cached_content`` becomes ``cachedContent``.

Gemini reads a cache made beforehand (``client.caches.create``, a ``cachedContents/...``
name). The cache must hold the system instruction and the tools: the API refuses a
request that names a cache and sends them again, so they are left out of such a
request. Breakpoints and TTLs are Anthropic's: ignored here. (Gemini 2.5 models also
cache implicitly, with nothing to send.)
"""

from __future__ import annotations

from typing import Any

from agentcore import ModelRequest

__all__ = ["with_cached_content"]


def with_cached_content(body: dict[str, Any], request: ModelRequest) -> dict[str, Any]:
    """``body`` naming ``request.cache.cached_content``, without what the cache holds;
    ``body`` itself when there is none. Never mutates ``body``."""
    plan = request.cache
    if plan is None or plan.cached_content is None:
        return body
    out = {k: v for k, v in body.items() if k not in ("systemInstruction", "tools", "toolConfig")}
    out["cachedContent"] = plan.cached_content
    return out
