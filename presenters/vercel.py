"""The Vercel AI SDK UI message stream, v1 (``?protocol=vercel``), from its published protocol.

There is no Python package for it: the chunks are written here as plain objects with
exactly the keys the protocol's strict schemas allow (no extra key, ever), one per SSE
``data:`` line, and a response that ends closes with ``data: [DONE]``. Responses carry
the header ``x-vercel-ai-ui-message-stream: v1``. One agent run is one UI message, whose
id (``start.messageId``) is the run's id, the same on every replay and reconnect:

- ``agent_start`` (or content after a pause): ``start``; ``turn_start`` / ``turn_end``:
  ``start-step`` / ``finish-step``;
- text and thinking deltas: ``text-start`` / ``-delta`` / ``-end`` and ``reasoning-*``;
- a tool call: ``tool-input-start``, ``tool-input-delta`` per argument chunk, then
  ``tool-input-available`` (or ``tool-input-error`` when the arguments are not a JSON
  object); its result: ``tool-output-available``, ``tool-output-error``, or
  ``tool-output-denied`` for a call the user rejected; after ``tool-output-available``,
  a ``file`` chunk per image, document or audio part of the result (a ``data:`` URL,
  or the file's own URL), the output itself naming each (``[image image/png, 1.0 MB]``);
- a chat request's user message: its text parts, and its ``file`` parts as content parts
  (``data:`` URLs inline, other URLs as ``FileContent``);
- ``tool_approval_required``: one ``tool-approval-request`` per call (the approval id is
  the call id), then ``finish`` with ``tool-calls``;
- ``turn_response``: ``message-metadata`` (usage, cost in USD, duration, model);
- ``agent_end``: ``finish`` with the finish reason of the last reply, or ``error`` then
  ``finish`` (``error``), or ``abort``;
- activity changes and tool progress: transient ``data-activity`` / ``data-tool-progress``
  parts;
- a handoff (docs/handoffs.md): a ``data-handoff`` part, ``{"from", "to"}``: ``to``
  speaks from then on.

A sub-agent's run (its ``SubagentEvent`` outputs, see ``presenters._ui``) lives inside the
parent's message, told apart by its run id: a ``data-subagent`` part whose id is the
child's run id, ``{"agentId", "runId", "parentRunId", "name", "agentType", "toolCallId",
"status"}``, updated in place from ``running`` to its outcome (``success``, ``interrupt``,
``cancelled``, ``error``); its text and reasoning as transient ``data-subagent-delta``
parts (``{"runId", "id", "kind": "text" | "reasoning", "delta"}``) for a live view; its
tool calls as ``data-subagent-tool`` parts (id ``<run>/<call id>``, ``{"runId",
"toolCallId", "toolName", "state": "input-available" | "output-available" |
"output-error", "input" | "output"}``). What the child returns stays in the message as
the spawning call's ``tool-output-available``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from agentcore.events import FileContent, TextContent, inline_part
from agentcore.serve import Frame, RunRequest, StreamProtocol

from . import _ui

__all__ = ["FINISH_REASONS", "PROTOCOL", "VercelProtocol", "encode_op", "parse_chat_request"]

FINISH_REASONS: Mapping[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
    "error": "error",
}
"""agentcore stop reasons -> the protocol's finish reasons (anything else: ``other``)."""


@attrs.frozen(slots=True)
class VercelState:
    ui: _ui.UiState


def _chunk(body: dict[str, Any]) -> Frame:
    return None, json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def encode_op(op: _ui.Op, thread_id: str) -> tuple[Frame, ...]:
    """The chunks of one UI op (see the module docstring)."""
    if op.agent_id != thread_id:
        return _subagent(op)
    if type(op) is _ui.TextStreamed:
        return (_chunk({"type": "text-delta", "id": op.id, "delta": op.delta}),)
    if type(op) is _ui.ToolArgs:
        return (
            _chunk(
                {
                    "type": "tool-input-delta",
                    "toolCallId": op.tool_call_id,
                    "inputTextDelta": op.delta,
                }
            ),
        )
    if type(op) is _ui.ReasoningDelta:
        return (_chunk({"type": "reasoning-delta", "id": op.id, "delta": op.delta}),)
    if type(op) is _ui.TextStart:
        return (_chunk({"type": "text-start", "id": op.id}),)
    if type(op) is _ui.TextEnd:
        return (_chunk({"type": "text-end", "id": op.id}),)
    if type(op) is _ui.ReasoningStart:
        return (_chunk({"type": "reasoning-start", "id": op.id}),)
    if type(op) is _ui.ReasoningEnd:
        return (_chunk({"type": "reasoning-end", "id": op.id}),)
    if type(op) is _ui.ToolStart:
        return (
            _chunk(
                {
                    "type": "tool-input-start",
                    "toolCallId": op.tool_call_id,
                    "toolName": op.tool_name,
                }
            ),
        )
    if type(op) is _ui.ToolInput:
        call = op.call
        if call.input_error is not None:
            return (
                _chunk(
                    {
                        "type": "tool-input-error",
                        "toolCallId": call.tool_call_id,
                        "toolName": call.tool_name,
                        "input": call.raw_input,
                        "errorText": call.input_error,
                    }
                ),
            )
        return (
            _chunk(
                {
                    "type": "tool-input-available",
                    "toolCallId": call.tool_call_id,
                    "toolName": call.tool_name,
                    "input": dict(call.input),
                }
            ),
        )
    if type(op) is _ui.ToolOutput:
        if op.code == "TOOL_REJECTED":
            return (_chunk({"type": "tool-output-denied", "toolCallId": op.tool_call_id}),)
        if op.is_error:
            return (
                _chunk(
                    {
                        "type": "tool-output-error",
                        "toolCallId": op.tool_call_id,
                        "errorText": op.text,
                    }
                ),
            )
        return (
            _chunk(
                {"type": "tool-output-available", "toolCallId": op.tool_call_id, "output": op.text}
            ),
            *file_chunks(op.content),
        )
    if type(op) is _ui.StepStarted:
        return (_chunk({"type": "start-step"}),)
    if type(op) is _ui.StepFinished:
        return (_chunk({"type": "finish-step"}),)
    if type(op) is _ui.Metadata:
        metadata = {
            "usage": attrs.asdict(op.usage),
            "cost": op.cost,
            "durationMs": op.duration_ms,
            "model": op.model,
        }
        return (_chunk({"type": "message-metadata", "messageMetadata": metadata}),)
    if type(op) is _ui.Activity:
        return (_chunk({"type": "data-activity", "data": op.activity, "transient": True}),)
    if type(op) is _ui.Progress:
        data = {"toolCallId": op.tool_call_id, "progress": op.progress}
        return (_chunk({"type": "data-tool-progress", "data": data, "transient": True}),)
    if type(op) is _ui.HandedOver:
        return (_chunk({"type": "data-handoff", "data": {"from": op.source, "to": op.target}}),)
    if type(op) is _ui.RunStarted:
        return (_chunk({"type": "start", "messageId": op.run_id}),)
    if type(op) is _ui.RunFinished:
        return _finished(op)
    return ()


def _finished(op: _ui.RunFinished) -> tuple[Frame, ...]:
    if op.outcome == "interrupt":
        requests = tuple(
            _chunk(
                {
                    "type": "tool-approval-request",
                    "approvalId": c.tool_call_id,
                    "toolCallId": c.tool_call_id,
                }
            )
            for c in op.approvals
        )
        return (*requests, _chunk({"type": "finish", "finishReason": "tool-calls"}))
    if op.outcome == "cancelled":
        return (_chunk({"type": "abort", "reason": op.message or "aborted"}),)
    if op.outcome == "error":
        text = (
            f"{op.code}: {op.message}"
            if op.code and op.message
            else op.message or op.code or "error"
        )
        return (
            _chunk({"type": "error", "errorText": text}),
            _chunk({"type": "finish", "finishReason": "error"}),
        )
    reason = FINISH_REASONS.get(op.stop_reason or "", "other")
    return (_chunk({"type": "finish", "finishReason": reason}),)


def _subagent(op: _ui.Op) -> tuple[Frame, ...]:
    """A sub-agent's ops as data parts (module docstring)."""
    if type(op) is _ui.TextStreamed or type(op) is _ui.ReasoningDelta:
        kind = "text" if type(op) is _ui.TextStreamed else "reasoning"
        delta = {"runId": op.run_id, "id": op.id, "kind": kind, "delta": op.delta}
        return (_chunk({"type": "data-subagent-delta", "data": delta, "transient": True}),)
    if type(op) is _ui.ToolInput:
        call = op.call
        tool = {
            "runId": op.run_id,
            "toolCallId": call.tool_call_id,
            "toolName": call.tool_name,
            "state": "input-available",
            "input": dict(call.input),
        }
        ident = f"{op.run_id}/{call.tool_call_id}"
        return (_chunk({"type": "data-subagent-tool", "id": ident, "data": tool}),)
    if type(op) is _ui.ToolOutput:
        tool = {
            "runId": op.run_id,
            "toolCallId": op.tool_call_id,
            "toolName": op.tool_name,
            "state": "output-error" if op.is_error else "output-available",
            "output": op.text,
        }
        ident = f"{op.run_id}/{op.tool_call_id}"
        return (_chunk({"type": "data-subagent-tool", "id": ident, "data": tool}),)
    if type(op) is _ui.RunStarted:
        status = "running"
    elif type(op) is _ui.RunFinished:
        status = op.outcome
    else:
        return ()
    data = {
        "agentId": op.agent_id,
        "runId": op.run_id,
        "parentRunId": op.parent_run_id,
        "name": op.name or op.agent_id,
        "agentType": op.agent_type,
        "toolCallId": op.tool_call_id,
        "status": status,
    }
    return (_chunk({"type": "data-subagent", "id": op.run_id, "data": data}),)


def file_chunks(content: Any) -> tuple[Frame, ...]:
    """A ``file`` chunk per media part of ``content`` (the protocol's file part: ``url``,
    a ``data:`` URL for inline media, and ``mediaType``); none for text, nor for a file
    known by a provider's id alone (no URL a browser can open)."""
    if isinstance(content, str):
        return ()
    chunks = []
    for part in content:
        if isinstance(part, TextContent):
            continue
        if isinstance(part, FileContent):
            if part.url is None:
                continue
            url = part.url
        else:
            url = f"data:{part.media_type};base64,{part.data}"
        chunks.append(_chunk({"type": "file", "url": url, "mediaType": part.media_type}))
    return tuple(chunks)


def _file_part(index: int, part: Mapping[str, Any]) -> Any:
    """A UI message's ``file`` part as an agentcore part: a ``data:`` URL inline (an
    image, a document named by ``filename``, audio), another URL as a ``FileContent``.
    Raises ``ValueError`` naming the part for what no model takes."""
    url, media_type = part.get("url"), part.get("mediaType")
    filename = part.get("filename") if isinstance(part.get("filename"), str) else None
    if not isinstance(url, str) or not isinstance(media_type, str):
        raise ValueError(f"file part {index} needs a string 'url' and 'mediaType'")
    if url.startswith("data:"):
        header, _, data = url.partition(",")
        made = inline_part(media_type, data, filename) if header.endswith(";base64") else None
        if made is None:
            raise ValueError(
                f"file part {index} ({media_type}) is not base64 media a model takes inline "
                "(images, PDFs, plain text, audio)"
            )
        return made
    return FileContent.from_url(url, media_type, title=filename)


def parse_chat_request(body: bytes) -> RunRequest:
    """The run a chat request (``{"id", "messages": [UIMessage...]}``) asks for: the text
    of its last message when that is the user's, and the approval answers
    (``state: "approval-responded"`` tool parts) of its last assistant message. Raises
    ``ValueError`` naming what is wrong."""
    try:
        request = json.loads(body)
    except ValueError as exc:
        raise ValueError(f"a chat request must be JSON ({exc})") from None
    if not isinstance(request, dict) or not isinstance(request.get("id"), str):
        raise ValueError("a chat request must be an object with a string 'id' (the chat id)")
    messages = request.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise ValueError("a chat request's 'messages' must be a list of UI message objects")
    prompt = message_id = None
    media: tuple[Any, ...] = ()
    decisions: list[tuple[str, bool, str | None]] = []
    if messages and messages[-1].get("role") == "user":
        last = messages[-1]
        parts = last.get("parts") if isinstance(last.get("parts"), list) else []
        prompt = "".join(
            p["text"]
            for p in parts
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        )
        message_id = last.get("id") if isinstance(last.get("id"), str) else None
        media = tuple(
            _file_part(i, p)
            for i, p in enumerate(parts)
            if isinstance(p, dict) and p.get("type") == "file"
        )
    elif messages and messages[-1].get("role") == "assistant":
        parts = messages[-1].get("parts") if isinstance(messages[-1].get("parts"), list) else []
        for part in parts:
            approval = part.get("approval") if isinstance(part, dict) else None
            if part.get("state") == "approval-responded" and isinstance(approval, dict):
                approved = approval.get("approved") is True
                reason = approval.get("reason") if isinstance(approval.get("reason"), str) else None
                if isinstance(part.get("toolCallId"), str):
                    decisions.append((part["toolCallId"], approved, reason))
    return RunRequest(request["id"], prompt, message_id, None, tuple(decisions), media)


class VercelProtocol:
    """The ``vercel`` wire protocol (module docstring)."""

    name = "vercel"
    headers: Mapping[str, str] = {"x-vercel-ai-ui-message-stream": "v1"}

    def initial(self, thread_id: str, params: Mapping[str, str]) -> VercelState:
        return VercelState(_ui.initial(thread_id, resume_paused=True))

    def encode(
        self, state: VercelState, agent_id: str, output: Any
    ) -> tuple[VercelState, tuple[Frame, ...]]:
        ui, ops = _ui.step(state.ui, agent_id, output)
        if not ops:
            return (state if ui is state.ui else VercelState(ui)), ()
        thread = ui.thread_id
        frames: list[Frame] = []
        for op in ops:
            frames += encode_op(op, thread)
        return VercelState(ui), tuple(frames)

    def end(self, state: VercelState) -> tuple[Frame, ...]:
        return ((None, "[DONE]"),)

    def next_run(self, state: VercelState, run_id: str) -> VercelState:
        return VercelState(_ui.with_next_run_id(state.ui, run_id))

    def parse_run(self, body: bytes) -> RunRequest:
        return parse_chat_request(body)

    def snapshot(self, history: Sequence[Any]) -> tuple[Frame, ...]:
        return ()


PROTOCOL: StreamProtocol = VercelProtocol()
