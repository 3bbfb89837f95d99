"""Map the decoded events of one streamed Responses API call to agentcore stream events.

``ResponseEventMapper`` works on the JSON dicts the ``openai`` SDK decodes from each SSE
``data:`` line (``{"type": "response.output_text.delta", ...}``), not on its pydantic
models. It never does I/O and takes every timestamp from its caller.

Each output item becomes the content block whose ``index`` is the item's
``output_index``, so reasoning, text and function calls assemble in the order the model
produced them, and argument deltas of several calls never mix.

=======================================  =================================================
Responses event                          agentcore event
=======================================  =================================================
response.created                         MessageStart(response id, response model)
output_item.added function_call          ToolUseStart(call_id, name)
output_text.delta / refusal.delta        TextDelta
reasoning_summary_text.delta             ThinkingDelta (summary parts joined by a blank
                                         line); reasoning_text.delta too (open models)
function_call_arguments.delta            InputJsonDelta (``.done`` only when no delta came)
output_item.done function_call           ToolUseStop
output_item.done reasoning               ThinkingDelta("", signature=..., redacted_data=
                                         encrypted_content), when it is encrypted
response.completed / .incomplete         ToolUseStop for calls still open, MessageDelta
                                         (stop reason, usage), MessageStop
response.failed                          ErrorReceived (classified like an HTTP error)
anything else                            nothing
=======================================  =================================================

The reasoning encoding (read back by ``drivers._openai_responses_request``): the part's
``signature`` is ``REASONING_PREFIX + item id`` (``"openai-responses:rs_..."``) and its
``redacted_data`` the item's ``encrypted_content``, taken from ``output_item.done``
(the copy in ``output_item.added`` may be incomplete). Reasoning without
``encrypted_content`` gets no signature: it cannot be sent back with ``store: false``.

Stop reasons: ``completed`` is ``tool_use`` when the response made function calls,
``refusal`` when it streamed a refusal, ``end_turn`` otherwise; ``incomplete`` maps its
``incomplete_details.reason`` through ``INCOMPLETE_REASONS``. Usage: ``input_tokens``
minus ``input_tokens_details.cached_tokens`` is ``input_tokens``, the cached ones
``cache_read_tokens``; ``output_tokens`` already includes reasoning, so
``output_tokens_details.reasoning_tokens`` is recorded for information only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)

from ._base import failure_from_status

__all__ = ["INCOMPLETE_REASONS", "REASONING_PREFIX", "ResponseEventMapper", "usage_from"]

REASONING_PREFIX = "openai-responses:"
"""Start of the ``signature`` of a reasoning item this driver can send back."""

INCOMPLETE_REASONS: Mapping[str, str] = {
    "max_output_tokens": "max_tokens",
    "content_filter": "refusal",
}
"""``incomplete_details.reason`` -> agentcore stop reason; anything else is ``max_tokens``."""


def usage_from(usage: Mapping[str, Any] | None) -> Usage:
    """A ``Usage`` from a Responses ``usage`` object (reasoning never counted twice)."""
    if not usage:
        return Usage()
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens") or 0
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens") or 0
    return Usage(
        input_tokens=max((usage.get("input_tokens") or 0) - cached, 0),
        output_tokens=usage.get("output_tokens") or 0,
        cache_read_tokens=cached,
        reasoning_tokens=reasoning,
    )


class _Call:
    __slots__ = ("call_id", "has_arguments", "stopped")

    def __init__(self, call_id: str) -> None:
        self.call_id = call_id
        self.has_arguments = False
        self.stopped = False


class ResponseEventMapper:
    """Stateful translator for the events of one streamed response.

    ``feed(event, ts)`` returns the agentcore events for one decoded event. ``started``
    says whether ``message_start`` was emitted (a driver may retry only before that);
    ``finished`` whether a terminal event (``completed``, ``incomplete``, ``failed``)
    arrived, after which further events are ignored.
    """

    def __init__(self, *, model: str, message_id: str) -> None:
        self.started = False
        self.finished = False
        self._model = model
        self._message_id = message_id
        self._calls: dict[int, _Call] = {}
        self._summary: dict[int, int] = {}
        self._refused = False

    def feed(self, event: Mapping[str, Any], ts: int) -> list[StreamEvent]:
        """The events one decoded Responses event produces (see the module table)."""
        if self.finished:
            return []
        if not self.started:
            self.started = True
            response = event.get("response") or {}
            self._message_id = response.get("id") or self._message_id
            self._model = response.get("model") or self._model
            return [
                MessageStart(self._message_id, self._model, timestamp=ts),
                *self.feed(event, ts),
            ]
        kind = event.get("type")
        if kind == "response.output_text.delta":
            return [TextDelta(event["delta"], event["output_index"], timestamp=ts)]
        if kind == "response.function_call_arguments.delta":
            return self._arguments(event["output_index"], event["delta"], ts)
        if kind == "response.reasoning_summary_text.delta":
            return self._summary_delta(event, ts)
        out: list[StreamEvent] = []
        if kind == "response.output_item.added":
            self._item_added(event["output_index"], event["item"], ts, out)
        elif kind == "response.output_item.done":
            self._item_done(event["output_index"], event["item"], ts, out)
        elif kind == "response.function_call_arguments.done":
            call = self._calls.get(event["output_index"])
            if call is not None and not call.has_arguments and event.get("arguments"):
                out += self._arguments(event["output_index"], event["arguments"], ts)
        elif kind == "response.refusal.delta":
            self._refused = True
            out.append(TextDelta(event["delta"], event["output_index"], timestamp=ts))
        elif kind == "response.reasoning_text.delta":
            out.append(ThinkingDelta(event["delta"], event["output_index"], timestamp=ts))
        elif kind in ("response.completed", "response.incomplete"):
            self._finish(kind == "response.incomplete", event.get("response") or {}, ts, out)
        elif kind == "response.failed":
            self.finished = True
            error = (event.get("response") or {}).get("error") or {}
            failure = failure_from_status(200, {"error": error}, "the response failed", None)
            out.append(failure.to_event(ts))
        return out

    def _arguments(self, index: int, fragment: str, ts: int) -> list[StreamEvent]:
        call = self._calls.get(index)
        if call is None:  # arguments for an item that was never announced
            return []
        call.has_arguments = True
        return [InputJsonDelta(fragment, index, timestamp=ts)]

    def _summary_delta(self, event: Mapping[str, Any], ts: int) -> list[StreamEvent]:
        index = event["output_index"]
        part = event.get("summary_index", 0)
        text = event["delta"]
        previous = self._summary.get(index)
        if previous != part:
            self._summary[index] = part
            if previous is not None:
                text = "\n\n" + text
        return [ThinkingDelta(text, index, timestamp=ts)]

    def _item_added(
        self, index: int, item: Mapping[str, Any], ts: int, out: list[StreamEvent]
    ) -> None:
        if item.get("type") != "function_call" or index in self._calls:
            return
        call = self._calls[index] = _Call(item.get("call_id") or item.get("id") or f"call_{index}")
        out.append(ToolUseStart(call.call_id, item.get("name") or "", index, timestamp=ts))
        if item.get("arguments"):
            out += self._arguments(index, item["arguments"], ts)

    def _item_done(
        self, index: int, item: Mapping[str, Any], ts: int, out: list[StreamEvent]
    ) -> None:
        kind = item.get("type")
        if kind == "function_call":
            if index not in self._calls:  # a server that skipped output_item.added
                self._item_added(index, item, ts, out)
            self._stop(index, ts, out)
        elif kind == "reasoning" and item.get("encrypted_content") and item.get("id"):
            signature = REASONING_PREFIX + item["id"]
            encrypted = item["encrypted_content"]
            out.append(
                ThinkingDelta("", index, signature=signature, redacted_data=encrypted, timestamp=ts)
            )

    def _stop(self, index: int, ts: int, out: list[StreamEvent]) -> None:
        call = self._calls[index]
        if not call.stopped:
            call.stopped = True
            out.append(ToolUseStop(call.call_id, index, timestamp=ts))

    def _finish(
        self, incomplete: bool, response: Mapping[str, Any], ts: int, out: list[StreamEvent]
    ) -> None:
        self.finished = True
        for index in self._calls:
            self._stop(index, ts, out)
        if incomplete or response.get("status") == "incomplete":
            reason = (response.get("incomplete_details") or {}).get("reason") or ""
            stop = INCOMPLETE_REASONS.get(reason, "max_tokens")
        elif self._refused:
            stop = "refusal"
        else:
            stop = "tool_use" if self._calls else "end_turn"
        usage = usage_from(response.get("usage"))
        out.append(MessageDelta(stop_reason=stop, usage=usage, timestamp=ts))
        out.append(MessageStop(stop_reason=stop, timestamp=ts))
