"""Map ``chat.completion.chunk`` JSON objects of one streamed call to agentcore stream events.

``ChunkMapper`` holds the little state one call needs (which block index each stream
got, which tool calls are open) and works on the decoded JSON dicts, not on SDK models:
building a pydantic object per chunk costs ~10x the rest of the path. It is shell code
used by one call only; it never does I/O and takes every timestamp from its caller.

Block indices are given in order of first appearance, so the assembled message keeps the
order the model produced: reasoning (``delta.reasoning_content`` as DeepSeek and vLLM send
it, or ``delta.reasoning`` as OpenRouter and Ollama do), then text (``delta.content``, and
``delta.refusal``), then one block per tool call. Tool calls are keyed by the provider's
``tool_calls[].index`` (falling back to the id when a server leaves it out), so several
calls interleaved in one stream stay apart.

Emitted, in order: ``message_start`` (chunk ``id`` and ``model``) on the first chunk;
``thinking_delta``/``text_delta`` per fragment; ``tool_use_start`` once a call's name is
known (its buffered argument fragments follow), ``input_json_delta`` per fragment;
``tool_use_stop`` for every open call when ``finish_reason`` arrives; on ``finish()``,
one ``message_delta`` (stop reason and usage) and ``message_stop``.

Usage comes from the last chunk that carried one (``stream_options.include_usage`` puts
it in a final chunk with empty ``choices``): ``input_tokens`` is ``prompt_tokens`` minus
cached tokens, ``cache_read_tokens`` the cached ones, ``output_tokens`` is
``completion_tokens`` (which already includes reasoning) and ``reasoning_tokens`` is
recorded for information only. A server that sends no usage leaves it at zero.
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

__all__ = ["FINISH_REASONS", "ChunkMapper", "usage_from"]

FINISH_REASONS: Mapping[str, str] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}
"""``finish_reason`` -> agentcore stop reason. Unknown values map to ``end_turn``."""


def usage_from(usage: Mapping[str, Any]) -> Usage:
    """A ``Usage`` from a Chat Completions ``usage`` object (reasoning never counted twice).

    Cached prompt tokens come from ``prompt_tokens_details.cached_tokens`` (OpenAI, vLLM,
    OpenRouter) or ``prompt_cache_hit_tokens`` (DeepSeek).
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
    )


class _ToolCall:
    __slots__ = ("block", "call_id", "name", "pending", "started", "stopped")

    def __init__(self, block: int) -> None:
        self.block = block
        self.call_id = ""
        self.name = ""
        self.pending: list[str] = []
        self.started = False
        self.stopped = False


class ChunkMapper:
    """Stateful translator for the chunks of one streamed completion (choice 0 only).

    ``feed(chunk, ts)`` returns the events for one decoded chunk; ``finish(ts)`` returns
    the closing events once the stream ended cleanly. ``started`` says whether anything
    was emitted yet (a driver may retry a call only before that).
    """

    def __init__(self, *, model: str, message_id: str) -> None:
        self.started = False
        self._model = model
        self._message_id = message_id
        self._next_block = 0
        self._text_block = -1
        self._thinking_block = -1
        self._tools: dict[object, _ToolCall] = {}
        self._finish: str | None = None
        self._refused = False
        self._usage = Usage()

    def feed(self, chunk: Mapping[str, Any], ts: int) -> list[StreamEvent]:
        """The events ``chunk`` (one decoded ``data:`` payload) produces."""
        out: list[StreamEvent] = []
        if not self.started:
            self.started = True
            self._message_id = chunk.get("id") or self._message_id
            self._model = chunk.get("model") or self._model
            out.append(MessageStart(self._message_id, self._model, timestamp=ts))
        usage = chunk.get("usage")
        if usage:
            self._usage = usage_from(usage)
        choices = chunk.get("choices")
        if not choices:
            return out
        choice = choices[0]
        delta = choice.get("delta")
        if delta:
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if reasoning and isinstance(reasoning, str):
                if self._thinking_block < 0:
                    self._thinking_block = self._new_block()
                out.append(ThinkingDelta(reasoning, self._thinking_block, timestamp=ts))
            content = delta.get("content")
            if content:
                out.append(TextDelta(content, self._text(), timestamp=ts))
            refusal = delta.get("refusal")
            if refusal:
                self._refused = True
                out.append(TextDelta(refusal, self._text(), timestamp=ts))
            tool_calls = delta.get("tool_calls")
            if tool_calls:
                for call in tool_calls:
                    self._tool_delta(call, ts, out)
        finish = choice.get("finish_reason")
        if finish:
            self._finish = finish
            self._stop_tools(ts, out)
        return out

    def finish(self, ts: int) -> list[StreamEvent]:
        """Close the message after a clean end of stream: stop open tools, report, stop.

        A stream that ended without a ``finish_reason`` (some servers omit it) is taken
        as complete: ``tool_use`` when it made tool calls, ``end_turn`` otherwise.
        """
        out: list[StreamEvent] = []
        if not self.started:
            out.append(MessageStart(self._message_id, self._model, timestamp=ts))
            self.started = True
        self._stop_tools(ts, out)
        reason = self.stop_reason
        out.append(MessageDelta(stop_reason=reason, usage=self._usage, timestamp=ts))
        out.append(MessageStop(stop_reason=reason, timestamp=ts))
        return out

    @property
    def stop_reason(self) -> str:
        """The agentcore stop reason so far (see ``FINISH_REASONS``).

        A ``stop`` with tool calls becomes ``tool_use`` (some servers say ``stop`` even
        then), and a refusal delta makes it ``refusal``.
        """
        if self._refused:
            return "refusal"
        if self._tools and self._finish in (None, "stop"):
            return "tool_use"
        return FINISH_REASONS.get(self._finish or "stop", "end_turn")

    @property
    def usage(self) -> Usage:
        """The usage reported so far (zero until a chunk carries one)."""
        return self._usage

    def _new_block(self) -> int:
        block = self._next_block
        self._next_block += 1
        return block

    def _text(self) -> int:
        if self._text_block < 0:
            self._text_block = self._new_block()
        return self._text_block

    def _tool_delta(self, call: Mapping[str, Any], ts: int, out: list[StreamEvent]) -> None:
        key = call.get("index")
        call_id = call.get("id")
        if key is None:
            key = call_id if call_id else next(reversed(self._tools), 0)
        tool = self._tools.get(key)
        if tool is None:
            tool = self._tools[key] = _ToolCall(self._new_block())
        if call_id and not tool.call_id:
            tool.call_id = call_id
        function = call.get("function") or {}
        name = function.get("name")
        if name and not tool.name:
            tool.name = name
        arguments = function.get("arguments")
        if tool.started:
            if arguments:
                out.append(InputJsonDelta(arguments, tool.block, timestamp=ts))
            return
        if arguments:
            tool.pending.append(arguments)
        if tool.name:
            self._start(tool, ts, out)

    def _start(self, tool: _ToolCall, ts: int, out: list[StreamEvent]) -> None:
        tool.started = True
        if not tool.call_id:
            tool.call_id = f"call_{self._message_id}_{tool.block}"
        out.append(ToolUseStart(tool.call_id, tool.name, tool.block, timestamp=ts))
        if tool.pending:
            out.append(InputJsonDelta("".join(tool.pending), tool.block, timestamp=ts))
            tool.pending.clear()

    def _stop_tools(self, ts: int, out: list[StreamEvent]) -> None:
        for tool in self._tools.values():
            if tool.stopped:
                continue
            if not tool.started:
                self._start(tool, ts, out)
            tool.stopped = True
            out.append(ToolUseStop(tool.call_id, tool.block, timestamp=ts))
