"""OpenAI Responses built-in tools: ``WebSearch`` (``web_search``) and ``CodeExecution``
(``code_interpreter``) as request tools, and their output items as ``provider_part``
events.

===================  ================================================================
``WebSearch``        ``{"type": "web_search", "filters": {"allowed_domains": [...]},
                     "user_location": {"type": "approximate", ...}}``
``CodeExecution``    ``{"type": "code_interpreter", "container": {"type": "auto"}}``
===================  ================================================================

The API has no web fetch tool, and its web search no ``max_uses`` or
``blocked_domains``: those are refused with ``ProviderToolError`` rather than dropped.

In the stream, a ``web_search_call`` output item (at ``output_item.done``) becomes a
``ServerToolCallPart`` holding its ``action`` (the query); a ``code_interpreter_call`` a
call (its ``code``) and a ``ServerToolResultPart`` (its ``outputs``); a ``url_citation``
annotation (``output_text.annotation.added``) a ``CitationPart`` of its text. They are not
sent back: with ``store`` off the items cannot be referred to, and the answer's text
carries what they found.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from agentcore.events import StreamEvent
from agentcore.provider_tools import (
    CitationPart,
    CodeExecution,
    ProviderPartEvent,
    ProviderTool,
    ProviderToolError,
    ServerToolCallPart,
    ServerToolResultPart,
    WebSearch,
)

__all__ = ["PROVIDER", "annotation", "output_item", "tool_entry"]

PROVIDER = "openai"


def tool_entry(tool: ProviderTool) -> dict[str, Any]:
    """The ``tools`` entry of ``tool`` (module table); ``ProviderToolError`` for a tool or
    an option the Responses API lacks."""
    if isinstance(tool, CodeExecution):
        return {"type": "code_interpreter", "container": {"type": "auto"}}
    if not isinstance(tool, WebSearch):
        raise ProviderToolError(
            f"{type(tool).__name__} is not offered by the OpenAI Responses API; it supports "
            "WebSearch and CodeExecution"
        )
    for option in ("max_uses", "blocked_domains"):
        if getattr(tool, option):
            raise ProviderToolError(
                f"WebSearch({option}=...) cannot be given to the OpenAI Responses API: its "
                f"web_search tool has no {option}; drop it (allowed_domains and "
                "user_location are supported)"
            )
    out: dict[str, Any] = {"type": "web_search"}
    if tool.allowed_domains:
        out["filters"] = {"allowed_domains": list(tool.allowed_domains)}
    if tool.user_location is not None:
        where = {k: v for k, v in attrs.asdict(tool.user_location).items() if v is not None}
        out["user_location"] = {"type": "approximate", **where}
    return out


def output_item(item: Mapping[str, Any], index: int, ts: int) -> Sequence[StreamEvent]:
    """The parts of a finished ``web_search_call`` or ``code_interpreter_call`` item
    (nothing for another item)."""
    kind = item.get("type")
    item_id = str(item.get("id") or f"item_{index}")
    if kind == "web_search_call":
        action = item.get("action")
        searched = dict(action) if isinstance(action, Mapping) else {}
        call = ServerToolCallPart(item_id, "web_search", _plain(searched), PROVIDER)
        return (ProviderPartEvent(call, index, timestamp=ts),)
    if kind == "code_interpreter_call":
        code = ServerToolCallPart(
            item_id, "code_interpreter", {"code": str(item.get("code") or "")}, PROVIDER
        )
        outputs = {"outputs": _plain(item.get("outputs") or [])}
        failed = item.get("status") not in (None, "completed")
        result = ServerToolResultPart(item_id, "code_interpreter", outputs, failed, PROVIDER)
        return (
            ProviderPartEvent(code, index, timestamp=ts),
            ProviderPartEvent(result, index, timestamp=ts),
        )
    return ()


def annotation(event: Mapping[str, Any], ts: int) -> StreamEvent | None:
    """A ``url_citation`` annotation as a ``CitationPart`` of its text; ``None`` else."""
    note = event.get("annotation")
    if not isinstance(note, Mapping) or note.get("type") != "url_citation":
        return None
    cited = CitationPart(str(note.get("url") or ""), str(note.get("title") or ""), "", PROVIDER)
    return ProviderPartEvent(cited, event["output_index"], timestamp=ts)


def _plain(value: Any) -> Any:
    """JSON as the wire form keeps it: lists, str-keyed dicts."""
    return json.loads(json.dumps(value))
