"""Model replies as each provider streams them: decoded items and SSE bytes, for tests.

Build a reply from blocks, in the order the model streams them, and get what a provider
would send for it: ``reply_chunks`` gives the decoded items a driver hands its normaliser
(dicts, and ``"[DONE]"`` for Chat Completions), ``reply_sse`` the bytes of the SSE stream,
JSON with ASCII escapes as the providers write it (so an astral character cut between
two pieces becomes two ``\\ud83d``-style escapes in two events, as a real stream can).
Tests cut or drop items to script broken streams::

    chunks = reply_chunks("openai", [Said(("Hel", "lo")), Called("c1", "f", ('{"a"', ": 1}"))])
    server = ReplayServer([sse_response(reply_sse("openai", chunks[:-3]))])  # no finish, no [DONE]

Public through ``drivers.testing``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs

__all__ = [
    "Called",
    "PROVIDER_FORMATS",
    "Said",
    "reply_chunks",
    "reply_sse",
]

PROVIDER_FORMATS = ("anthropic", "google", "openai", "openai-responses")
"""The wire formats these helpers write (Chat Completions is ``openai``, Gemini's
``streamGenerateContent`` is ``google``)."""


@attrs.frozen(slots=True)
class Said:
    """A text block (or a thinking block) as the model streams it: its pieces, in order."""

    pieces: tuple[str, ...]
    thinking: bool = False


@attrs.frozen(slots=True)
class Called:
    """A tool call: its id, its name and the fragments of its JSON arguments."""

    call_id: str
    name: str
    pieces: tuple[str, ...] = ()


Block = Said | Called


def _stop(blocks: Sequence[Block]) -> str:
    return "tool_use" if any(isinstance(b, Called) for b in blocks) else "end_turn"


def _anthropic(blocks: Sequence[Block]) -> list[Any]:
    message = {"id": "msg_reply", "model": "claude-reply", "usage": {"input_tokens": 3}}
    out: list[Any] = [{"type": "message_start", "message": message}]
    for index, block in enumerate(blocks):
        start: dict[str, Any]
        if isinstance(block, Called):
            start = {"type": "tool_use", "id": block.call_id, "name": block.name, "input": {}}
            kind, field = "input_json_delta", "partial_json"
        elif block.thinking:
            start, kind, field = {"type": "thinking", "thinking": ""}, "thinking_delta", "thinking"
        else:
            start, kind, field = {"type": "text", "text": ""}, "text_delta", "text"
        out.append({"type": "content_block_start", "index": index, "content_block": start})
        for piece in block.pieces:
            delta = {"type": kind, field: piece}
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        if isinstance(block, Said) and block.thinking:
            delta = {"type": "signature_delta", "signature": "sig"}
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        out.append({"type": "content_block_stop", "index": index})
    delta = {"stop_reason": _stop(blocks)}
    out.append({"type": "message_delta", "delta": delta, "usage": {"output_tokens": 9}})
    out.append({"type": "message_stop"})
    return out


def _chat_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "chatcmpl-reply", "model": "gpt-reply", "choices": [choice]}


def _chat(blocks: Sequence[Block]) -> list[Any]:
    out: list[Any] = [_chat_chunk({"role": "assistant", "content": ""})]
    calls = 0
    for block in blocks:
        if isinstance(block, Called):
            call = {"index": calls, "id": block.call_id, "type": "function"}
            out.append(_chat_chunk({"tool_calls": [{**call, "function": {"name": block.name}}]}))
            fragment = {"index": calls, "function": {"arguments": ""}}
            for piece in block.pieces:
                fragment["function"] = {"arguments": piece}
                out.append(_chat_chunk({"tool_calls": [dict(fragment)]}))
            calls += 1
        else:
            field = "reasoning_content" if block.thinking else "content"
            out += [_chat_chunk({field: piece}) for piece in block.pieces]
    out.append(_chat_chunk({}, "tool_calls" if calls else "stop"))
    usage = {"prompt_tokens": 3, "completion_tokens": 9}
    out.append({"id": "chatcmpl-reply", "model": "gpt-reply", "choices": [], "usage": usage})
    out.append("[DONE]")
    return out


def _responses(blocks: Sequence[Block]) -> list[Any]:
    response = {"id": "resp_reply", "model": "gpt-reply", "status": "in_progress"}
    out: list[Any] = [{"type": "response.created", "response": response}]
    for index, block in enumerate(blocks):
        item: dict[str, Any]
        if isinstance(block, Called):
            item = {"type": "function_call", "id": f"fc_{index}", "call_id": block.call_id}
            item["name"] = block.name
            kind = "response.function_call_arguments.delta"
        elif block.thinking:
            item = {"type": "reasoning", "id": f"rs_{index}", "encrypted_content": "enc"}
            kind = "response.reasoning_summary_text.delta"
        else:
            item = {"type": "message", "id": f"msg_{index}", "role": "assistant"}
            kind = "response.output_text.delta"
        out.append({"type": "response.output_item.added", "output_index": index, "item": item})
        out += [{"type": kind, "output_index": index, "delta": p} for p in block.pieces]
        out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    usage = {"input_tokens": 3, "output_tokens": 9}
    done = {**response, "status": "completed", "usage": usage}
    out.append({"type": "response.completed", "response": done})
    return out


def _gemini_chunk(parts: list[Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-reply", "responseId": "reply"}


def _gemini(blocks: Sequence[Block]) -> list[Any]:
    """Gemini streams text and thoughts in pieces, each call whole (its pieces joined and
    parsed: they must make a JSON object); a thought block's last piece is signed."""
    out: list[Any] = []
    for block in blocks:
        if isinstance(block, Called):
            args = json.loads("".join(block.pieces) or "{}")
            call = {"id": block.call_id, "name": block.name, "args": args}
            out.append(_gemini_chunk([{"functionCall": call}]))
            continue
        for n, piece in enumerate(block.pieces, 1):
            part: dict[str, Any] = {"text": piece}
            if block.thinking:
                part["thought"] = True
                if n == len(block.pieces):
                    part["thoughtSignature"] = "c2ln"
            out.append(_gemini_chunk([part]))
    last = _gemini_chunk([], "STOP")
    last["usageMetadata"] = {"promptTokenCount": 3, "candidatesTokenCount": 9}
    out.append(last)
    return out


_RENDERERS = {
    "anthropic": _anthropic,
    "google": _gemini,
    "openai": _chat,
    "openai-responses": _responses,
}


def reply_chunks(provider: str, blocks: Sequence[Block]) -> list[Any]:
    """The decoded items ``provider`` streams for ``blocks`` (stop reason ``tool_use`` when
    a block is a call, ``end_turn`` otherwise). Chat Completions streams thinking and text
    before tool calls: give the blocks in that order for it."""
    try:
        render = _RENDERERS[provider]
    except KeyError:
        raise ValueError(
            f"unknown provider format {provider!r}; use one of {PROVIDER_FORMATS}"
        ) from None
    return render(blocks)


def reply_sse(provider: str, chunks: Sequence[Any]) -> bytes:
    """The SSE bytes of ``chunks`` (from ``reply_chunks``, maybe cut), one event each."""
    if provider not in _RENDERERS:
        raise ValueError(f"unknown provider format {provider!r}; use one of {PROVIDER_FORMATS}")
    events = []
    for chunk in chunks:
        if chunk == "[DONE]":
            events.append(b"data: [DONE]\n\n")
        elif provider in ("openai", "google"):
            events.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        else:
            kind = chunk["type"].encode()
            events.append(b"event: " + kind + b"\ndata: " + json.dumps(chunk).encode() + b"\n\n")
    return b"".join(events)
