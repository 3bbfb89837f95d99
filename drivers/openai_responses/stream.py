"""The Responses API normaliser: decoded SSE events of one streamed response in, events out.

Pure (see ``drivers._common.normaliser``). It works on the JSON dicts the ``openai`` SDK decodes
from each SSE ``data:`` line (``{"type": "response.output_text.delta", ...}``), not on its
pydantic models.

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
output_item.done                         held text released; for a function_call
                                         ToolUseStop; for reasoning with encrypted content
                                         ThinkingDelta("", signature=..., redacted_data=)
response.completed / .incomplete         ToolUseStop for calls still open, MessageDelta
                                         (stop reason, usage), MessageStop
response.failed, error                   ErrorReceived (classified like an HTTP error)
output_item.done web_search_call,        ProviderPartEvent (``provider_tools``)
code_interpreter_call;
output_text.annotation.added
anything else                            nothing
=======================================  =================================================

The reasoning encoding (read back by ``drivers.openai_responses.request``): the part's
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
from typing import Any, NamedTuple

from agentcore.errors import ErrorCode
from agentcore.events import (
    ErrorReceived,
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

from .._common.base import Failure, failure_from_status
from .._common.guard import DeltaClass, Held, clean, clean_error, close_block, flush_held, guard
from .._common.normaliser import Events, Normaliser
from .provider_tools import annotation, output_item

__all__ = [
    "CallState",
    "INCOMPLETE_REASONS",
    "NORMALISER",
    "REASONING_PREFIX",
    "ResponsesState",
    "error_event_failure",
    "finish",
    "finished",
    "flush",
    "initial_state",
    "step",
    "usage_from",
]

REASONING_PREFIX = "openai-responses:"
"""Start of the ``signature`` of a reasoning item this driver can send back."""

INCOMPLETE_REASONS: Mapping[str, str] = {
    "max_output_tokens": "max_tokens",
    "content_filter": "refusal",
}
"""``incomplete_details.reason`` -> agentcore stop reason; anything else is ``max_tokens``."""

_CUT_SHORT = "the Responses stream ended before response.completed"


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


def error_event_failure(event: Mapping[str, Any]) -> Failure:
    """The failure an ``error`` event (``{"type": "error", "code", "message"}``) reports."""
    error = {"code": event.get("code"), "message": event.get("message")}
    return failure_from_status(200, {"error": error}, str(event.get("message") or event), None)


class CallState(NamedTuple):
    """One function call: its id, whether argument deltas came, whether it was stopped."""

    call_id: str
    has_arguments: bool = False
    stopped: bool = False


_NO_CALLS: Mapping[int, CallState] = {}
_NO_PARTS: Mapping[int, int] = {}


class ResponsesState(NamedTuple):
    """One call's state. ``calls`` (by output index) and ``summary`` (the summary part last
    seen per reasoning item) are never mutated: a change copies them."""

    message_id: str
    model: str
    keys: tuple[str, ...] = ()
    started: bool = False
    finished: bool = False
    calls: Mapping[int, CallState] = _NO_CALLS
    summary: Mapping[int, int] = _NO_PARTS
    refused: bool = False
    held: Held = ()


def initial_state(*, message_id: str, model: str, keys: tuple[str, ...] = ()) -> ResponsesState:
    """The state before the first event; the ids are fallbacks until ``response.created``."""
    return ResponsesState(message_id, model, keys)


def step(state: ResponsesState, event: Any, ts: int) -> tuple[ResponsesState, Events]:
    """The events one decoded Responses event produces (see the module table)."""
    if state.finished:
        return state, ()
    if type(event) is not dict:
        raise ValueError(f"expected a JSON object, got {type(event).__name__}")
    kind = event.get("type")
    if kind == "response.output_text.delta" and state.started:
        text = event["delta"]
        if not state.keys and not state.held and text.isascii():
            return state, (TextDelta(text, event["output_index"], timestamp=ts),)
    out: list[StreamEvent] = []
    if not state.started:
        response = event.get("response") or {}
        state = state._replace(
            started=True,
            message_id=response.get("id") or state.message_id,
            model=response.get("model") or state.model,
        )
        keys = state.keys
        out.append(
            MessageStart(clean(state.message_id, keys), clean(state.model, keys), timestamp=ts)
        )
    if kind == "response.output_text.delta":
        state = _emit(state, TextDelta, event["output_index"], event["delta"], ts, out)
    elif kind == "response.function_call_arguments.delta":
        state = _arguments(state, event["output_index"], event["delta"], ts, out)
    elif kind == "response.reasoning_summary_text.delta":
        state = _summary_delta(state, event, ts, out)
    elif kind == "response.output_item.added":
        state = _item_added(state, event["output_index"], event["item"], ts, out)
    elif kind == "response.output_item.done":
        state = _item_done(state, event["output_index"], event["item"], ts, out)
    elif kind == "response.function_call_arguments.done":
        index = event["output_index"]
        call = state.calls.get(index)
        if call is not None and not call.has_arguments and event.get("arguments"):
            state = _arguments(state, index, event["arguments"], ts, out)
    elif kind == "response.refusal.delta":
        state = _emit(
            state._replace(refused=True), TextDelta, event["output_index"], event["delta"], ts, out
        )
    elif kind == "response.output_text.annotation.added":
        cited = annotation(event, ts)
        if cited is not None:
            out.append(cited)
    elif kind == "response.reasoning_text.delta":
        state = _emit(state, ThinkingDelta, event["output_index"], event["delta"], ts, out)
    elif kind in ("response.completed", "response.incomplete"):
        state = _complete(
            state, kind == "response.incomplete", event.get("response") or {}, ts, out
        )
    elif kind == "response.failed":
        error = (event.get("response") or {}).get("error") or {}
        failure = failure_from_status(200, {"error": error}, "the response failed", None)
        state = _fail(state, failure, ts, out)
    elif kind == "error":
        state = _fail(state, error_event_failure(event), ts, out)
    return state, out


def finish(state: ResponsesState, ts: int) -> tuple[ResponsesState, Events]:
    """Clean end of stream: nothing after a terminal event; before one, a cut-short error."""
    if state.finished:
        return state, ()
    out: list[StreamEvent] = []
    if not state.started:
        keys = state.keys
        out.append(
            MessageStart(clean(state.message_id, keys), clean(state.model, keys), timestamp=ts)
        )
    state = _release(state._replace(started=True), ts, out)
    out.append(ErrorReceived(_CUT_SHORT, ErrorCode.CONNECTION_ERROR.value, True, timestamp=ts))
    return state._replace(finished=True), out


def flush(state: ResponsesState, ts: int) -> tuple[ResponsesState, Events]:
    """The stream failed or was interrupted: the text still held back."""
    out: list[StreamEvent] = []
    return _release(state, ts, out), out


def finished(state: ResponsesState) -> bool:
    """Whether a terminal event (completed, incomplete, failed, error) arrived."""
    return state.finished


def _emit(
    state: ResponsesState,
    cls: DeltaClass,
    index: int,
    text: str,
    ts: int,
    out: list[StreamEvent],
) -> ResponsesState:
    """Append the delta for ``text`` (what ``guard`` lets through) to ``out``."""
    held, text = guard(state.held, state.keys, cls, index, text)
    if text:
        out.append(cls(text, index, timestamp=ts))
    return state if held is state.held else state._replace(held=held)


def _release(state: ResponsesState, ts: int, out: list[StreamEvent]) -> ResponsesState:
    if not state.held:
        return state
    held, released = flush_held(state.held, ts)
    out += released
    return state._replace(held=held)


def _close(state: ResponsesState, index: int, ts: int, out: list[StreamEvent]) -> ResponsesState:
    if not state.held:
        return state
    held, released = close_block(state.held, index, ts)
    out += released
    return state._replace(held=held)


def _arguments(
    state: ResponsesState, index: int, fragment: str, ts: int, out: list[StreamEvent]
) -> ResponsesState:
    call = state.calls.get(index)
    if call is None:  # arguments for an item that was never announced
        return state
    if not call.has_arguments:
        state = state._replace(calls={**state.calls, index: call._replace(has_arguments=True)})
    return _emit(state, InputJsonDelta, index, fragment, ts, out)


def _summary_delta(
    state: ResponsesState, event: Mapping[str, Any], ts: int, out: list[StreamEvent]
) -> ResponsesState:
    index = event["output_index"]
    part = event.get("summary_index", 0)
    text = event["delta"]
    previous = state.summary.get(index)
    if previous != part:
        state = state._replace(summary={**state.summary, index: part})
        if previous is not None:
            text = "\n\n" + text
    return _emit(state, ThinkingDelta, index, text, ts, out)


def _item_added(
    state: ResponsesState, index: int, item: Mapping[str, Any], ts: int, out: list[StreamEvent]
) -> ResponsesState:
    if item.get("type") != "function_call" or index in state.calls:
        return state
    call = CallState(item.get("call_id") or item.get("id") or f"call_{index}")
    state = state._replace(calls={**state.calls, index: call})
    name = clean(item.get("name") or "", state.keys)
    out.append(ToolUseStart(clean(call.call_id, state.keys), name, index, timestamp=ts))
    if item.get("arguments"):
        state = _arguments(state, index, item["arguments"], ts, out)
    return state


def _item_done(
    state: ResponsesState, index: int, item: Mapping[str, Any], ts: int, out: list[StreamEvent]
) -> ResponsesState:
    kind = item.get("type")
    if kind == "function_call" and index not in state.calls:  # no output_item.added came
        state = _item_added(state, index, item, ts, out)
    state = _close(state, index, ts, out)
    if kind == "function_call":
        state = _stop(state, index, ts, out)
    elif kind in ("web_search_call", "code_interpreter_call"):
        out.extend(output_item(item, index, ts))
    elif kind == "reasoning" and item.get("encrypted_content") and item.get("id"):
        signature = REASONING_PREFIX + item["id"]
        encrypted = item["encrypted_content"]
        out.append(
            ThinkingDelta("", index, signature=signature, redacted_data=encrypted, timestamp=ts)
        )
    return state


def _stop(state: ResponsesState, index: int, ts: int, out: list[StreamEvent]) -> ResponsesState:
    call = state.calls[index]
    if call.stopped:
        return state
    out.append(ToolUseStop(clean(call.call_id, state.keys), index, timestamp=ts))
    return state._replace(calls={**state.calls, index: call._replace(stopped=True)})


def _complete(
    state: ResponsesState,
    incomplete: bool,
    response: Mapping[str, Any],
    ts: int,
    out: list[StreamEvent],
) -> ResponsesState:
    state = _release(state, ts, out)
    for index in state.calls:
        state = _stop(state, index, ts, out)
    if incomplete or response.get("status") == "incomplete":
        reason = (response.get("incomplete_details") or {}).get("reason") or ""
        stop = INCOMPLETE_REASONS.get(reason, "max_tokens")
    elif state.refused:
        stop = "refusal"
    else:
        stop = "tool_use" if state.calls else "end_turn"
    usage = usage_from(response.get("usage"))
    out.append(MessageDelta(stop_reason=stop, usage=usage, timestamp=ts))
    out.append(MessageStop(stop_reason=stop, timestamp=ts))
    return state._replace(finished=True)


def _fail(
    state: ResponsesState, failure: Failure, ts: int, out: list[StreamEvent]
) -> ResponsesState:
    state = _release(state, ts, out)
    message = clean_error(failure.message, state.keys)
    out.append(ErrorReceived(message, failure.code.value, failure.retryable, timestamp=ts))
    return state._replace(finished=True)


NORMALISER: Normaliser[ResponsesState, Any] = Normaliser(
    step=step, finish=finish, flush=flush, finished=finished
)
"""The Responses normaliser, as the streaming skeleton takes it."""
