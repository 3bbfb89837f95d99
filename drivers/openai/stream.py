"""The Chat Completions normaliser: ``chat.completion.chunk`` dicts in, agentcore events out.

Pure (see ``drivers._common.normaliser``). It works on the decoded JSON dicts, not on SDK
models: building a pydantic object per chunk costs ~10x the rest of the path. The driver
also hands over the end marker as the string ``DONE`` (``"[DONE]"``), which the SDK
would otherwise swallow, so a stream cut cleanly can be told from a finished one.

Block indices are given in order of first appearance, so the assembled message keeps the
order the model produced: reasoning (``delta.reasoning_content`` as DeepSeek and vLLM send
it, or ``delta.reasoning`` as OpenRouter and Ollama do), then text (``delta.content``, and
``delta.refusal``), then one block per tool call. Tool calls are keyed by the provider's
``tool_calls[].index`` (falling back to the id when a server leaves it out), so several
calls interleaved in one stream stay apart.

Emitted, in order: ``message_start`` (chunk ``id`` and ``model``) on the first chunk;
``thinking_delta``/``text_delta`` per fragment; ``tool_use_start`` once a call's name is
known (its buffered argument fragments follow), ``input_json_delta`` per fragment;
``tool_use_stop`` for every open call when ``finish_reason`` arrives; on ``finish``,
one ``message_delta`` (stop reason and usage) and ``message_stop`` if a ``finish_reason``
or ``[DONE]`` arrived, else a retryable ``CONNECTION_ERROR``: the stream was cut.

Usage comes from the last chunk that carried one (``stream_options.include_usage`` puts
it in a final chunk with empty ``choices``): ``input_tokens`` is ``prompt_tokens`` minus
cached tokens, ``cache_read_tokens`` the cached ones, ``output_tokens`` is
``completion_tokens`` (which already includes reasoning) and ``reasoning_tokens`` is
recorded for information only. A server that sends no usage leaves it at zero.
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

from .._common.guard import DeltaClass, Held, clean, flush_held, guard
from .._common.normaliser import Events, Normaliser

__all__ = [
    "ChatState",
    "DONE",
    "FINISH_REASONS",
    "NORMALISER",
    "ToolCallState",
    "finish",
    "finished",
    "flush",
    "initial_state",
    "step",
    "stop_reason",
    "usage_from",
]

DONE = "[DONE]"
"""The item a driver passes for the stream's ``data: [DONE]`` line."""

FINISH_REASONS: Mapping[str, str] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}
"""``finish_reason`` -> agentcore stop reason. Unknown values map to ``end_turn``."""

_CUT_SHORT = "the Chat Completions stream ended without a finish_reason or [DONE]"


def usage_from(usage: Mapping[str, Any]) -> Usage:
    """A ``Usage`` from a Chat Completions ``usage`` object (reasoning never counted twice).

    Cached prompt tokens come from ``prompt_tokens_details.cached_tokens`` (OpenAI, vLLM,
    OpenRouter) or ``prompt_cache_hit_tokens`` (DeepSeek); the prompt's image and audio
    tokens from its ``image_tokens`` and ``audio_tokens``.
    """
    prompt = usage.get("prompt_tokens") or 0
    details = usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") or usage.get("prompt_cache_hit_tokens") or 0
    completion = usage.get("completion_tokens_details") or {}
    return Usage(
        input_tokens=max(prompt - cached, 0),
        output_tokens=usage.get("completion_tokens") or 0,
        cache_read_tokens=cached,
        reasoning_tokens=completion.get("reasoning_tokens") or 0,
        image_tokens=details.get("image_tokens") or 0,
        audio_tokens=details.get("audio_tokens") or 0,
    )


class ToolCallState(NamedTuple):
    """One tool call: its block, what is known of it, argument fragments awaiting its name."""

    block: int
    call_id: str = ""
    name: str = ""
    pending: tuple[str, ...] = ()
    started: bool = False
    stopped: bool = False


_NO_TOOLS: Mapping[object, ToolCallState] = {}


class ChatState(NamedTuple):
    """One call's state (choice 0 only).

    ``blocks`` is the next block index to hand out; ``tools`` the tool calls by the
    provider's key (never mutated: a change copies it); ``done`` says the stream is over
    for the normaliser (``[DONE]`` arrived, or ``finish`` ran) and ``ended`` that
    ``finish`` ran; ``held`` is the text held back per block (``drivers._common.guard``).
    """

    message_id: str
    model: str
    keys: tuple[str, ...] = ()
    started: bool = False
    blocks: int = 0
    text_block: int = -1
    thinking_block: int = -1
    tools: Mapping[object, ToolCallState] = _NO_TOOLS
    finish_reason: str | None = None
    refused: bool = False
    usage: Usage = Usage()
    done: bool = False
    ended: bool = False
    held: Held = ()


def initial_state(*, message_id: str, model: str, keys: tuple[str, ...] = ()) -> ChatState:
    """The state before the first chunk; the ids are fallbacks for a server that sends none."""
    return ChatState(message_id, model, keys)


def step(state: ChatState, chunk: Any, ts: int) -> tuple[ChatState, Events]:
    """The events one decoded chunk (or ``DONE``) produces."""
    if state.done:
        return state, ()
    if type(chunk) is not dict:
        if chunk == DONE:
            return state._replace(done=True), ()
        raise ValueError(f"expected a JSON object, got {type(chunk).__name__}")
    out: list[StreamEvent] = []
    if not state.started:
        state = state._replace(
            started=True,
            message_id=chunk.get("id") or state.message_id,
            model=chunk.get("model") or state.model,
        )
        keys = state.keys
        out.append(
            MessageStart(clean(state.message_id, keys), clean(state.model, keys), timestamp=ts)
        )
    usage = chunk.get("usage")
    if usage:
        state = state._replace(usage=usage_from(usage))
    choices = chunk.get("choices")
    if not choices:
        return state, out
    choice = choices[0]
    delta = choice.get("delta")
    if delta:
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and isinstance(reasoning, str):
            if state.thinking_block < 0:
                state = state._replace(thinking_block=state.blocks, blocks=state.blocks + 1)
            state = _emit(state, ThinkingDelta, state.thinking_block, reasoning, ts, out)
        content = delta.get("content")
        if content:
            block = state.text_block
            if block < 0:
                block = state.blocks
                state = state._replace(text_block=block, blocks=block + 1)
            if state.keys or state.held or not content.isascii():
                state = _emit(state, TextDelta, block, content, ts, out)
            else:  # the usual chunk, inline
                out.append(TextDelta(content, block, timestamp=ts))
        refusal = delta.get("refusal")
        if refusal:
            if state.text_block < 0:
                state = state._replace(text_block=state.blocks, blocks=state.blocks + 1)
            state = _emit(
                state._replace(refused=True), TextDelta, state.text_block, refusal, ts, out
            )
        tool_calls = delta.get("tool_calls")
        if tool_calls:
            for call in tool_calls:
                state = _tool_delta(state, call, ts, out)
    reason = choice.get("finish_reason")
    if reason:
        state = _release(state._replace(finish_reason=reason), ts, out)
        state = _stop_tools(state, ts, out)
    return state, out


def finish(state: ChatState, ts: int) -> tuple[ChatState, Events]:
    """Clean end of stream: close the message, or report the cut (see the module docstring)."""
    if state.ended:
        return state, ()
    out: list[StreamEvent] = []
    if not state.started:
        keys = state.keys
        out.append(
            MessageStart(clean(state.message_id, keys), clean(state.model, keys), timestamp=ts)
        )
        state = state._replace(started=True)
    state = _release(state, ts, out)
    if state.finish_reason is None and not state.done:
        out.append(ErrorReceived(_CUT_SHORT, ErrorCode.CONNECTION_ERROR.value, True, timestamp=ts))
        return state._replace(done=True, ended=True), out
    state = _stop_tools(state, ts, out)
    reason = stop_reason(state)
    out.append(MessageDelta(stop_reason=reason, usage=state.usage, timestamp=ts))
    out.append(MessageStop(stop_reason=reason, timestamp=ts))
    return state._replace(done=True, ended=True), out


def flush(state: ChatState, ts: int) -> tuple[ChatState, Events]:
    """The stream failed or was interrupted: the text still held back."""
    if not state.held:
        return state, ()
    held, out = flush_held(state.held, ts)
    return state._replace(held=held), out


def finished(state: ChatState) -> bool:
    """Whether ``[DONE]`` arrived (or ``finish`` ran)."""
    return state.done


def stop_reason(state: ChatState) -> str:
    """The agentcore stop reason so far (see ``FINISH_REASONS``).

    A ``stop`` with tool calls becomes ``tool_use`` (some servers say ``stop`` even then),
    a refusal delta makes it ``refusal``, and a stream that ended with ``[DONE]`` but no
    ``finish_reason`` is ``tool_use`` with tool calls, ``end_turn`` otherwise.
    """
    if state.refused:
        return "refusal"
    if state.tools and state.finish_reason in (None, "stop"):
        return "tool_use"
    return FINISH_REASONS.get(state.finish_reason or "stop", "end_turn")


def _emit(
    state: ChatState, cls: DeltaClass, index: int, text: str, ts: int, out: list[StreamEvent]
) -> ChatState:
    """Append the delta for ``text`` (what ``guard`` lets through) to ``out``."""
    if not state.keys and not state.held and text.isascii():
        out.append(cls(text, index, timestamp=ts))
        return state
    held, text = guard(state.held, state.keys, cls, index, text)
    if text:
        out.append(cls(text, index, timestamp=ts))
    return state if held is state.held else state._replace(held=held)


def _release(state: ChatState, ts: int, out: list[StreamEvent]) -> ChatState:
    if not state.held:
        return state
    held, released = flush_held(state.held, ts)
    out += released
    return state._replace(held=held)


def _tool_delta(
    state: ChatState, call: Mapping[str, Any], ts: int, out: list[StreamEvent]
) -> ChatState:
    key = call.get("index")
    call_id = call.get("id")
    if key is None:
        key = call_id if call_id else next(reversed(state.tools), 0)
    tool = state.tools.get(key)
    if tool is None:
        tool = ToolCallState(state.blocks)
        state = state._replace(blocks=state.blocks + 1)
    elif tool.stopped:
        return state
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if tool.started:
        return _emit(state, InputJsonDelta, tool.block, arguments, ts, out) if arguments else state
    name = function.get("name")
    updated = tool._replace(
        call_id=tool.call_id or call_id or "",
        name=tool.name or name or "",
        pending=(*tool.pending, arguments) if arguments else tool.pending,
    )
    if updated.name:
        state, updated = _start_tool(state, updated, ts, out)
    return state._replace(tools={**state.tools, key: updated})


def _start_tool(
    state: ChatState, tool: ToolCallState, ts: int, out: list[StreamEvent]
) -> tuple[ChatState, ToolCallState]:
    call_id = tool.call_id or f"call_{state.message_id}_{tool.block}"
    keys = state.keys
    name = clean(tool.name, keys)
    out.append(ToolUseStart(clean(call_id, keys), name, tool.block, timestamp=ts))
    if tool.pending:
        state = _emit(state, InputJsonDelta, tool.block, "".join(tool.pending), ts, out)
    return state, tool._replace(call_id=call_id, pending=(), started=True)


def _stop_tools(state: ChatState, ts: int, out: list[StreamEvent]) -> ChatState:
    """Stop every open call, starting those whose name never came (their arguments too)."""
    if all(tool.stopped for tool in state.tools.values()):
        return state
    tools = dict(state.tools)
    for key, tool in tools.items():
        if tool.stopped:
            continue
        if not tool.started:
            state, tool = _start_tool(state, tool, ts, out)
            state = _release(state, ts, out)
        out.append(ToolUseStop(clean(tool.call_id, state.keys), tool.block, timestamp=ts))
        tools[key] = tool._replace(stopped=True)
    return state._replace(tools=tools)


NORMALISER: Normaliser[ChatState, Any] = Normaliser(
    step=step, finish=finish, flush=flush, finished=finished
)
"""The Chat Completions normaliser, as the streaming skeleton takes it."""
