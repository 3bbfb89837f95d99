"""The Gemini normaliser: ``streamGenerateContent?alt=sse`` chunks (dicts) in, agentcore events out.

Pure (see ``drivers._common.normaliser``). Each chunk is a whole ``GenerateContentResponse``:
``candidates[0].content.parts`` holds the parts streamed since the last chunk,
``finishReason`` comes on the last one, and ``usageMetadata`` (cumulative: the latest
replaces the earlier) on most. Only the first candidate is read.

===========================================  =========================================
Gemini part or field                         agentcore event
===========================================  =========================================
first chunk (``responseId``, ``modelVersion``)  MessageStart
``{"text", "thought": true}``                ThinkingDelta (consecutive thoughts: one
                                             block)
``{"text"}``                                 TextDelta (consecutive texts: one block)
``{"functionCall": {"id", "name", "args"}}``  ToolUseStart, one InputJsonDelta holding
                                             the whole ``args``, ToolUseStop (Gemini
                                             sends a call whole, in one part)
``thoughtSignature`` on a thought part       ThinkingDelta(signature=...) closing that
                                             thinking block
``thoughtSignature`` on any other part       a block of its own before the part:
                                             ThinkingDelta("", signature=...)
``finishReason`` / ``promptFeedback.blockReason``  remembered; ``finish`` emits
                                             MessageDelta and MessageStop
``executableCode``, ``codeExecutionResult``,   ProviderPartEvent (``provider_tools``)
``groundingMetadata``
other parts (inline data)                    nothing
===========================================  =========================================

A signature that stands alone (an empty, signed ``ThinkingPart``) belongs to the part that
follows it, which is where ``drivers.google.request`` puts it back when the history goes
to the same model: Gemini 3 rejects a replayed function call without its signature, and no
other provider can read one (their drivers drop thinking that has no text).

``finish_reason`` maps through ``FINISH_REASONS`` (``STOP`` with function calls is
``tool_use``; unknown values are ``end_turn``); a prompt the API blocked ends as
``refusal``; ``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL`` and
``TOO_MANY_TOOL_CALLS`` end the message with a retryable ``PROVIDER_ERROR`` instead, since
the model may well do better on a second try. A stream that ends with neither a finish
reason nor a block reason was cut: a retryable ``CONNECTION_ERROR``.
"""

from __future__ import annotations

import json
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

from .._common.guard import DeltaClass, Held, clean, close_block, flush_held, guard
from .._common.normaliser import Events, Normaliser
from .provider_tools import code_part, grounding_parts

__all__ = [
    "FAILED_FINISH_REASONS",
    "FINISH_REASONS",
    "GeminiState",
    "NORMALISER",
    "finish",
    "finished",
    "flush",
    "initial_state",
    "step",
    "stop_reason",
    "usage_from",
]

FINISH_REASONS: Mapping[str, str] = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "LANGUAGE": "refusal",
    "BLOCKLIST": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "SPII": "refusal",
    "IMAGE_SAFETY": "refusal",
}
"""``finishReason`` -> agentcore stop reason; unknown values map to ``end_turn``."""

FAILED_FINISH_REASONS = frozenset(
    {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"}
)
"""Finish reasons that end the message with a retryable ``PROVIDER_ERROR``."""

_CUT_SHORT = "the Gemini stream ended without a finishReason"


def usage_from(meta: Mapping[str, Any]) -> Usage:
    """A ``Usage`` from ``usageMetadata``.

    ``promptTokenCount`` includes the cached tokens (``cachedContentTokenCount``), which
    count as cache reads; tool-use prompt tokens are input. Thoughts are billed as output,
    so ``output_tokens`` is ``candidatesTokenCount + thoughtsTokenCount`` and
    ``reasoning_tokens`` the thoughts alone, for information. ``promptTokensDetails``
    (tokens by modality) gives the image, audio and document tokens.
    """
    by_modality: dict[str, int] = {}
    for entry in meta.get("promptTokensDetails") or ():
        count = entry.get("tokenCount")
        if type(count) is int and count > 0:
            modality = entry.get("modality")
            by_modality[modality] = by_modality.get(modality, 0) + count
    prompt = meta.get("promptTokenCount") or 0
    cached = meta.get("cachedContentTokenCount") or 0
    thoughts = meta.get("thoughtsTokenCount") or 0
    return Usage(
        input_tokens=max(prompt - cached, 0) + (meta.get("toolUsePromptTokenCount") or 0),
        output_tokens=(meta.get("candidatesTokenCount") or 0) + thoughts,
        cache_read_tokens=cached,
        reasoning_tokens=thoughts,
        image_tokens=by_modality.get("IMAGE", 0),
        audio_tokens=by_modality.get("AUDIO", 0),
        document_tokens=by_modality.get("DOCUMENT", 0),
    )


class GeminiState(NamedTuple):
    """One call's state.

    ``message_id`` and ``model`` are fallbacks until the first chunk; ``blocks`` is the next
    block index; ``open_block``/``open_kind`` the text or thinking block later parts of the
    same kind join (``-1``/``None``: none); ``calls`` counts function calls;
    ``finish_reason`` and ``blocked`` are Gemini's own values; ``usage`` the latest
    ``usageMetadata`` (read once, by ``finish``); ``ended`` says ``finish`` ran; ``held``
    is the text held back per block (``drivers._common.guard``).
    """

    message_id: str
    model: str
    keys: tuple[str, ...] = ()
    started: bool = False
    blocks: int = 0
    open_block: int = -1
    open_kind: DeltaClass | None = None
    calls: int = 0
    finish_reason: str | None = None
    blocked: str | None = None
    usage: Mapping[str, Any] | None = None
    ended: bool = False
    held: Held = ()
    grounded: bool = False
    """Whether the grounding metadata was read (``provider_tools``)."""


def initial_state(*, message_id: str, model: str, keys: tuple[str, ...] = ()) -> GeminiState:
    """The state before the first chunk; ``keys`` are scrubbed from everything emitted."""
    return GeminiState(message_id, model, keys)


def step(state: GeminiState, chunk: Any, ts: int) -> tuple[GeminiState, Events]:
    """The events one decoded chunk produces (see the module table)."""
    if state.ended:
        return state, ()
    if type(chunk) is not dict:
        raise ValueError(f"expected a JSON object, got {type(chunk).__name__}")
    out: list[StreamEvent] = []
    if not state.started:
        state = state._replace(
            started=True,
            message_id=chunk.get("responseId") or state.message_id,
            model=chunk.get("modelVersion") or state.model,
        )
        out.append(_message_start(state, ts))
    meta = chunk.get("usageMetadata")
    if meta:
        state = state._replace(usage=meta)
    feedback = chunk.get("promptFeedback")
    if feedback and feedback.get("blockReason"):
        state = state._replace(blocked=feedback["blockReason"])
    candidates = chunk.get("candidates")
    if not candidates or state.finish_reason is not None:
        return state, out
    candidate = candidates[0]
    content = candidate.get("content")
    if content:
        for part in content.get("parts") or ():
            state = _part(state, part, ts, out)
    grounding = candidate.get("groundingMetadata")
    if grounding and not state.grounded:
        state = _close_open(state, ts, out)
        out.extend(grounding_parts(grounding, state.blocks, ts))
        state = state._replace(blocks=state.blocks + 2, grounded=True)
    reason = candidate.get("finishReason")
    if reason:
        state = _close_open(state._replace(finish_reason=reason), ts, out)
    return state, out


def finish(state: GeminiState, ts: int) -> tuple[GeminiState, Events]:
    """Clean end of stream: close the message, or report the cut or the failed finish."""
    if state.ended:
        return state, ()
    out: list[StreamEvent] = []
    if not state.started:
        state = state._replace(started=True)
        out.append(_message_start(state, ts))
    state = _close_open(state, ts, out)
    if state.held:
        held, released = flush_held(state.held, ts)
        state = state._replace(held=held)
        out += released
    state = state._replace(ended=True)
    if state.finish_reason is None and state.blocked is None:
        out.append(ErrorReceived(_CUT_SHORT, ErrorCode.CONNECTION_ERROR.value, True, timestamp=ts))
        return state, out
    if state.finish_reason in FAILED_FINISH_REASONS:
        message = f"Gemini ended the answer with finishReason {state.finish_reason}"
        out.append(ErrorReceived(message, ErrorCode.PROVIDER_ERROR.value, True, timestamp=ts))
        return state, out
    reason = stop_reason(state)
    usage = Usage() if state.usage is None else usage_from(state.usage)
    out.append(MessageDelta(stop_reason=reason, usage=usage, timestamp=ts))
    out.append(MessageStop(stop_reason=reason, timestamp=ts))
    return state, out


def flush(state: GeminiState, ts: int) -> tuple[GeminiState, Events]:
    """The stream failed or was interrupted: the text still held back."""
    if not state.held:
        return state, ()
    held, out = flush_held(state.held, ts)
    return state._replace(held=held), out


def finished(state: GeminiState) -> bool:
    """Whether a finish reason (or a block reason) arrived: the answer is complete."""
    return state.finish_reason is not None or state.blocked is not None


def stop_reason(state: GeminiState) -> str:
    """The agentcore stop reason (see ``FINISH_REASONS``): a blocked prompt is ``refusal``,
    ``STOP`` (or an unknown reason) after function calls is ``tool_use``."""
    if state.blocked is not None:
        return "refusal"
    reason = FINISH_REASONS.get(state.finish_reason or "STOP", "end_turn")
    return "tool_use" if reason == "end_turn" and state.calls else reason


def _message_start(state: GeminiState, ts: int) -> MessageStart:
    keys = state.keys
    return MessageStart(clean(state.message_id, keys), clean(state.model, keys), timestamp=ts)


def _part(
    state: GeminiState, part: Mapping[str, Any], ts: int, out: list[StreamEvent]
) -> GeminiState:
    signature = part.get("thoughtSignature")
    call = part.get("functionCall")
    text = part.get("text")
    if call is None and part.get("thought"):
        if text:
            state = _append(state, ThinkingDelta, text, ts, out)
        if signature:
            state = _sign_thought(state, signature, ts, out)
        return state
    if signature:
        state = _signature_block(state, signature, ts, out)
    if call is not None:
        return _call(state, call, ts, out)
    if text:
        return _append(state, TextDelta, text, ts, out)
    if "executableCode" in part or "codeExecutionResult" in part:
        state = _close_open(state, ts, out)
        code = code_part(part, state.blocks, ts)
        if code is not None:
            out.append(code)
            return state._replace(blocks=state.blocks + 1)
    return state


def _close_open(state: GeminiState, ts: int, out: list[StreamEvent]) -> GeminiState:
    """End the open text or thinking block, releasing what it held."""
    if state.open_block < 0:
        return state
    held, released = close_block(state.held, state.open_block, ts)
    out += released
    return state._replace(held=held, open_block=-1, open_kind=None)


def _append(
    state: GeminiState, cls: DeltaClass, text: str, ts: int, out: list[StreamEvent]
) -> GeminiState:
    if state.open_kind is not cls:
        state = _close_open(state, ts, out)
        state = state._replace(open_block=state.blocks, open_kind=cls, blocks=state.blocks + 1)
    index = state.open_block
    if not state.keys and not state.held and text.isascii():
        out.append(cls(text, index, timestamp=ts))
        return state
    held, text = guard(state.held, state.keys, cls, index, text)
    if text:
        out.append(cls(text, index, timestamp=ts))
    return state if held is state.held else state._replace(held=held)


def _sign_thought(
    state: GeminiState, signature: str, ts: int, out: list[StreamEvent]
) -> GeminiState:
    """A signed thought part: the signature closes the open thinking block."""
    if state.open_kind is not ThinkingDelta:
        return _signature_block(state, signature, ts, out)
    index = state.open_block
    state = _close_open(state, ts, out)
    out.append(ThinkingDelta("", index, signature=signature, timestamp=ts))
    return state


def _signature_block(
    state: GeminiState, signature: str, ts: int, out: list[StreamEvent]
) -> GeminiState:
    """A block of its own holding ``signature``, for the part that follows it."""
    state = _close_open(state, ts, out)
    out.append(ThinkingDelta("", state.blocks, signature=signature, timestamp=ts))
    return state._replace(blocks=state.blocks + 1)


def _call(
    state: GeminiState, call: Mapping[str, Any], ts: int, out: list[StreamEvent]
) -> GeminiState:
    state = _close_open(state, ts, out)
    index = state.blocks
    keys = state.keys
    call_id = clean(call.get("id") or f"call_{state.message_id}_{index}", keys)
    args = call.get("args")
    arguments = json.dumps({} if args is None else args, ensure_ascii=False)
    out.append(ToolUseStart(call_id, clean(call["name"], keys), index, timestamp=ts))
    out.append(InputJsonDelta(clean(arguments, keys), index, timestamp=ts))
    out.append(ToolUseStop(call_id, index, timestamp=ts))
    return state._replace(blocks=index + 1, calls=state.calls + 1)


NORMALISER: Normaliser[GeminiState, Any] = Normaliser(
    step=step, finish=finish, flush=flush, finished=finished
)
"""The Gemini normaliser, as the streaming skeleton takes it."""
