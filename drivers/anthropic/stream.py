"""The Anthropic Messages normaliser: decoded SSE events (dicts) in, agentcore events out.

Pure (see ``drivers._common.normaliser``): the driver decodes each SSE ``data:`` line with the
SDK's decoder and ``json.loads``, skipping the SDK's per-event pydantic models, and the
skeleton feeds the dicts here with their timestamps.

=====================================  ==============================================
provider event                         agentcore event
=====================================  ==============================================
message_start                          MessageStart (input and cache usage remembered;
                                       writes with a 1h TTL from ``cache_creation``)
content_block_start text / thinking    TextDelta / ThinkingDelta, only if it has text
content_block_start redacted_thinking  ThinkingDelta(redacted_data=...)
content_block_start tool_use           ToolUseStart
text_delta / thinking_delta            TextDelta / ThinkingDelta
signature_delta                        ThinkingDelta(text="", signature=...)
input_json_delta                       InputJsonDelta
content_block_stop                     held text released; ToolUseStop for a tool_use
message_delta                          MessageDelta(stop_reason, usage of the whole call)
message_stop                           MessageStop(stop_reason); tool calls left open
                                       are stopped first
server_tool_use, *_tool_result         ProviderPartEvent (``provider_tools``): the call
                                       at its block stop, the result at its start
citations_delta                        ProviderPartEvent(CitationPart)
ping, other blocks                     nothing
=====================================  ==============================================

``error`` events never reach the normaliser: the driver's decoder raises them, so that
one arriving first is retried like an HTTP error. Usage counts are cumulative: a later
non-null value replaces an earlier one, so ``message_delta`` carries the whole call's.
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
)

from .._common.guard import DeltaClass, Held, clean, close_block, flush_held, guard
from .._common.normaliser import Events, Normaliser
from .provider_tools import Servers, citation, server_json, server_start, server_stop

__all__ = [
    "AnthropicState",
    "NORMALISER",
    "STOP_REASONS",
    "finish",
    "finished",
    "flush",
    "initial_state",
    "step",
]

STOP_REASONS = {
    "end_turn": "end_turn",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "pause_turn": "pause_turn",
    "refusal": "refusal",
    "model_context_window_exceeded": "max_tokens",
}
"""Provider stop reason -> agentcore stop reason; unknown values pass through unchanged."""

_USAGE_KEYS = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_input_tokens", "cache_read_tokens"),
    ("cache_creation_input_tokens", "cache_write_tokens"),
    ("cache_creation.ephemeral_1h_input_tokens", "cache_write_1h_tokens"),
)
_NO_USAGE: tuple[int | None, ...] = (None,) * len(_USAGE_KEYS)
_CUT_SHORT = "the Anthropic stream ended before message_stop"


class AnthropicState(NamedTuple):
    """One call's state. ``message_id`` and ``model`` are fallbacks until ``message_start``;
    ``usage`` holds the latest value of each count (``None`` until reported); ``tools``
    the open ``tool_use`` blocks as ``(index, id)``; ``held`` text held back per block."""

    message_id: str
    model: str
    keys: tuple[str, ...] = ()
    started: bool = False
    finished: bool = False
    stop_reason: str | None = None
    usage: tuple[int | None, ...] = _NO_USAGE
    tools: tuple[tuple[int, str], ...] = ()
    held: Held = ()
    servers: Servers = ()
    """Open server-tool calls (``provider_tools``)."""


def initial_state(*, message_id: str, model: str, keys: tuple[str, ...] = ()) -> AnthropicState:
    """The state before the first event; ``keys`` are scrubbed from everything emitted."""
    return AnthropicState(message_id, model, keys)


def step(state: AnthropicState, event: Mapping[str, Any], ts: int) -> tuple[AnthropicState, Events]:
    """The events one decoded provider event produces (see the module table)."""
    if state.finished:
        return state, ()
    kind = event["type"]
    if kind == "content_block_delta":
        delta = event["delta"]
        delta_kind = delta["type"]
        cls: DeltaClass
        if delta_kind == "text_delta":
            cls, text = TextDelta, delta["text"]
        elif delta_kind == "input_json_delta":
            cls, text = InputJsonDelta, delta["partial_json"]
            if state.servers:
                servers = server_json(state.servers, event["index"], text)
                if servers is not None:
                    return state._replace(servers=servers), ()
        elif delta_kind == "thinking_delta":
            cls, text = ThinkingDelta, delta["thinking"]
        elif delta_kind == "signature_delta":
            return _signature(state, event["index"], delta["signature"], ts)
        elif delta_kind == "citations_delta":
            state, out = _begin(state, ts)
            return state, (*out, citation(delta, event["index"], ts))
        else:
            return state, ()
        if state.started and not state.keys and not state.held and text.isascii():
            return state, (cls(text, event["index"], timestamp=ts),)
        return _text(state, cls, event["index"], text, ts)
    if kind == "content_block_start":
        return _block_start(state, event["index"], event["content_block"], ts)
    if kind == "content_block_stop":
        return _block_stop(state, event["index"], ts)
    if kind == "message_start":
        return _message_start(state, event["message"], ts)
    if kind == "message_delta":
        return _message_delta(state, event, ts)
    if kind == "message_stop":
        state, out = _released(state, ts)
        out += _stop_tools(state, ts)
        out.append(MessageStop(state.stop_reason, timestamp=ts))
        return state._replace(finished=True, tools=()), out
    return state, ()


def finish(state: AnthropicState, ts: int) -> tuple[AnthropicState, Events]:
    """Clean end of stream: nothing after ``message_stop``; before it, a cut-short error."""
    if state.finished:
        return state, ()
    state, out = _released(state, ts)
    out.append(ErrorReceived(_CUT_SHORT, ErrorCode.CONNECTION_ERROR.value, True, timestamp=ts))
    return state._replace(finished=True), out


def flush(state: AnthropicState, ts: int) -> tuple[AnthropicState, Events]:
    """The stream failed or was interrupted: the text still held back."""
    if not state.held:
        return state, ()
    held, out = flush_held(state.held, ts)
    return state._replace(held=held), out


def finished(state: AnthropicState) -> bool:
    """Whether ``message_stop`` arrived."""
    return state.finished


def _begin(state: AnthropicState, ts: int) -> tuple[AnthropicState, list[StreamEvent]]:
    """``state`` as started, with the ``message_start`` a stream without one still needs."""
    if state.started:
        return state, []
    start_event = MessageStart(
        clean(state.message_id, state.keys), clean(state.model, state.keys), timestamp=ts
    )
    return state._replace(started=True), [start_event]


def _released(state: AnthropicState, ts: int) -> tuple[AnthropicState, list[StreamEvent]]:
    state, out = _begin(state, ts)
    if state.held:
        held, released = flush_held(state.held, ts)
        state = state._replace(held=held)
        out += released
    return state, out


def _text(
    state: AnthropicState, cls: DeltaClass, index: int, text: str, ts: int
) -> tuple[AnthropicState, Events]:
    out: list[StreamEvent] = []
    if not state.started:
        state, out = _begin(state, ts)
    held, text = guard(state.held, state.keys, cls, index, text)
    if held is not state.held:
        state = state._replace(held=held)
    if text:
        out.append(cls(text, index, timestamp=ts))
    return state, out


def _signature(
    state: AnthropicState, index: int, signature: str, ts: int
) -> tuple[AnthropicState, Events]:
    """The signature comes after the block's text: release what the block held first."""
    state, out = _begin(state, ts)
    held, released = close_block(state.held, index, ts)
    out += released
    out.append(ThinkingDelta("", index, signature=signature, timestamp=ts))
    return state._replace(held=held), out


def _block_start(
    state: AnthropicState, index: int, block: Mapping[str, Any], ts: int
) -> tuple[AnthropicState, Events]:
    kind = block.get("type")
    if kind == "tool_use":
        state, out = _begin(state, ts)
        keys = state.keys
        tool_id, name = clean(block["id"], keys), clean(block["name"], keys)
        out.append(ToolUseStart(tool_id, name, index, timestamp=ts))
        return state._replace(tools=(*state.tools, (index, block["id"]))), out
    if kind == "text" and block.get("text"):
        return _text(state, TextDelta, index, block["text"], ts)
    if kind == "thinking" and block.get("thinking"):
        return _text(state, ThinkingDelta, index, block["thinking"], ts)
    if kind == "redacted_thinking":
        state, out = _begin(state, ts)
        out.append(ThinkingDelta("", index, redacted_data=block["data"], timestamp=ts))
        return state, out
    started = server_start(state.servers, index, block, ts)
    if started is not None:
        state, out = _begin(state, ts)
        return state._replace(servers=started[0]), (*out, *started[1])
    return state, ()


def _block_stop(state: AnthropicState, index: int, ts: int) -> tuple[AnthropicState, Events]:
    if state.servers:
        stopped = server_stop(state.servers, index, ts)
        if stopped is not None:
            return state._replace(servers=stopped[0]), stopped[1]
    held, out = close_block(state.held, index, ts)
    for block, tool_id in state.tools:
        if block == index:
            tools = tuple(t for t in state.tools if t[0] != index)
            stop = ToolUseStop(clean(tool_id, state.keys), index, timestamp=ts)
            return state._replace(held=held, tools=tools), (*out, stop)
    if held is state.held:
        return state, out
    return state._replace(held=held), out


def _stop_tools(state: AnthropicState, ts: int) -> list[StreamEvent]:
    return [ToolUseStop(clean(tool_id, state.keys), i, timestamp=ts) for i, tool_id in state.tools]


def _message_start(
    state: AnthropicState, message: Mapping[str, Any], ts: int
) -> tuple[AnthropicState, Events]:
    if state.started:  # a second message_start says nothing new
        return state, ()
    state = state._replace(
        message_id=message.get("id") or state.message_id,
        model=message.get("model") or state.model,
        usage=_usage(state.usage, message.get("usage")),
    )
    return _begin(state, ts)


def _message_delta(
    state: AnthropicState, event: Mapping[str, Any], ts: int
) -> tuple[AnthropicState, Events]:
    state, out = _released(state, ts)
    reason = (event.get("delta") or {}).get("stop_reason")
    if reason is not None:
        state = state._replace(stop_reason=STOP_REASONS.get(reason, reason))
    state = state._replace(usage=_usage(state.usage, event.get("usage")))
    usage = {
        target: v for (_, target), v in zip(_USAGE_KEYS, state.usage, strict=True) if v is not None
    }
    out.append(MessageDelta(state.stop_reason, usage, timestamp=ts))
    return state, out


def _usage(
    usage: tuple[int | None, ...], reported: Mapping[str, Any] | None
) -> tuple[int | None, ...]:
    """Anthropic's counts are cumulative: a later non-null value replaces an earlier one."""
    if not reported:
        return usage
    return tuple(
        old if (value := _count(reported, source)) is None else value
        for (source, _), old in zip(_USAGE_KEYS, usage, strict=True)
    )


def _count(reported: Mapping[str, Any], source: str) -> Any:
    """The count at ``source``, a key or a dotted path (``cache_creation`` holds the
    writes per TTL)."""
    head, _, rest = source.partition(".")
    value = reported.get(head)
    if rest:
        return value.get(rest) if isinstance(value, Mapping) else None
    return value


NORMALISER: Normaliser[AnthropicState, Mapping[str, Any]] = Normaliser(
    step=step, finish=finish, flush=flush, finished=finished
)
"""The Anthropic normaliser, as the streaming skeleton takes it."""
