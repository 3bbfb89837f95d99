"""Gemini's built-in tools: ``WebSearch`` (grounding with Google Search), ``CodeExecution``
and ``WebFetch`` (URL context) as request tools, their stream parts as ``provider_part``
events, and their parts sent back.

==================  ====================================================================
``WebSearch()``     ``{"googleSearch": {}}``
``CodeExecution()`` ``{"codeExecution": {}}``
``WebFetch()``      ``{"urlContext": {}}``
==================  ====================================================================

Gemini takes none of the options (``max_uses``, domains, location, citations, a token
cap): a tool given one is refused with ``ProviderToolError`` naming it, rather than run
without the restriction the user asked for.

In the stream, an ``executableCode`` part becomes a ``ServerToolCallPart`` and a
``codeExecutionResult`` part a ``ServerToolResultPart`` (``is_error`` unless its outcome is
``OUTCOME_OK``), both ``code_execution``; a candidate's ``groundingMetadata`` becomes one
``google_search`` call holding its ``webSearchQueries`` and a ``CitationPart`` per
``groundingChunks`` web source. Sent back to Gemini, the code parts go back as they came;
the grounding parts are left out (Gemini grounds each answer anew).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from agentcore.events import StreamEvent
from agentcore.provider_tools import (
    CitationPart,
    CodeExecution,
    ProviderPart,
    ProviderPartEvent,
    ProviderTool,
    ProviderToolError,
    ServerToolCallPart,
    ServerToolResultPart,
)

__all__ = ["PROVIDER", "code_part", "grounding_parts", "replay_part", "tool_entry"]

PROVIDER = "google"
_ENTRIES = {
    "web_search": "googleSearch",
    "code_execution": "codeExecution",
    "web_fetch": "urlContext",
}


def tool_entry(tool: ProviderTool) -> dict[str, Any]:
    """The ``tools`` entry of ``tool``; ``ProviderToolError`` for an option Gemini lacks."""
    if not isinstance(tool, CodeExecution):
        for field in attrs.fields(type(tool)):
            value = getattr(tool, field.name)
            if value not in (None, (), False):
                raise ProviderToolError(
                    f"{type(tool).__name__}({field.name}=...) cannot be given to Gemini: its "
                    f"{_ENTRIES[tool.kind]} tool takes no options; drop {field.name}"
                )
    return {_ENTRIES[tool.kind]: {}}


def replay_part(part: ProviderPart) -> dict[str, Any] | None:
    """The ``model`` content part ``part`` goes back as; ``None``: left out."""
    if isinstance(part, CitationPart) or part.provider != PROVIDER:
        return None
    if part.tool_name != "code_execution":
        return None
    if isinstance(part, ServerToolCallPart) and isinstance(part.input, Mapping):
        return {"executableCode": dict(part.input)}
    if isinstance(part, ServerToolResultPart) and isinstance(part.content, Mapping):
        return {"codeExecutionResult": dict(part.content)}
    return None


def code_part(part: Mapping[str, Any], index: int, ts: int) -> StreamEvent | None:
    """An ``executableCode`` or ``codeExecutionResult`` part as a provider part; ``None``
    for any other part."""
    code = part.get("executableCode")
    if isinstance(code, Mapping):
        call = ServerToolCallPart(f"code_{index}", "code_execution", dict(code), PROVIDER)
        return ProviderPartEvent(call, index, timestamp=ts)
    result = part.get("codeExecutionResult")
    if isinstance(result, Mapping):
        failed = result.get("outcome") != "OUTCOME_OK"
        answer = ServerToolResultPart(
            f"code_{index - 1}", "code_execution", dict(result), failed, PROVIDER
        )
        return ProviderPartEvent(answer, index, timestamp=ts)
    return None


def grounding_parts(meta: Mapping[str, Any], index: int, ts: int) -> Sequence[StreamEvent]:
    """A ``groundingMetadata``'s searches (one call at ``index``) and its web sources (as
    citations at ``index + 1``)."""
    out: list[StreamEvent] = []
    queries = [q for q in meta.get("webSearchQueries") or () if isinstance(q, str)]
    if queries:
        call = ServerToolCallPart(
            f"search_{index}", "google_search", {"queries": queries}, PROVIDER
        )
        out.append(ProviderPartEvent(call, index, timestamp=ts))
    for chunk in meta.get("groundingChunks") or ():
        web = chunk.get("web") if isinstance(chunk, Mapping) else None
        if isinstance(web, Mapping) and web.get("uri"):
            cited = CitationPart(str(web["uri"]), str(web.get("title") or ""), "", PROVIDER)
            out.append(ProviderPartEvent(cited, index + 1, timestamp=ts))
    return out
