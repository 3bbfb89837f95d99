"""The AG-UI protocol (``?protocol=ag-ui``), built on the ``ag-ui-protocol`` package's types.

Needs the ``ag-ui`` extra (``pip install 'agentcore-engine[ag-ui]'``). Outputs map, through the
shared UI shape (``presenters._ui``), to AG-UI events:

- ``agent_start`` (or content after a pause): ``RUN_STARTED`` and ``STATE_SNAPSHOT``;
- ``agent_end``: ``RUN_FINISHED`` (outcome ``success`` or ``cancelled``, with usage), or
  ``RUN_ERROR`` for an error (nothing more until the next run);
- ``tool_approval_required``: ``RUN_FINISHED`` with an ``interrupt`` outcome, one
  interrupt per call;
- ``turn_start`` / ``turn_end``: ``STEP_STARTED`` / ``STEP_FINISHED``;
- ``text_delta``: ``TEXT_MESSAGE_START`` / ``_CONTENT`` / ``_END``;
- ``thinking_delta``: ``REASONING_START``, ``REASONING_MESSAGE_START`` / ``_CONTENT`` /
  ``_END``, ``REASONING_END``;
- ``tool_use_start`` / ``input_json_delta`` / ``tool_use_stop``: ``TOOL_CALL_START`` /
  ``_ARGS`` / ``_END``; ``tool_result_message``: ``TOOL_CALL_RESULT`` (its content as AG-UI
  1.0 content parts when the result has media: ``content_parts``);
- state events and ``turn_response``: ``STATE_DELTA`` of ``/activity``, ``/usage``, ``/cost``;
- ``tool_execution_update``: ``CUSTOM`` named ``agentcore.tool_progress``;
- a handoff (docs/handoffs.md): ``CUSTOM`` named ``agentcore.handoff`` (``{"from", "to"}``)
  and a ``STATE_DELTA`` adding ``/agent``, the agent that speaks now;
- a sub-agent's run (its ``SubagentEvent`` outputs, see ``presenters._ui``): ``SUBAGENT_STARTED``
  (``subagentRunId`` its lineage's run id, ``name`` its display name or agent type,
  ``parentSubagentRunId`` for a grandchild, ``parentToolCallId`` the spawning call,
  ``metadata`` its agent id and type), then its events, each carrying ``subagentRunId``,
  then ``SUBAGENT_FINISHED`` (outcome ``success``, or ``suspended`` with the interrupt ids
  when it waits for an approval) or ``SUBAGENT_ERROR`` (failed, or cancelled: code
  ``cancelled``), all inside the parent's run.

``messages_snapshot(history)`` is the ``MESSAGES_SNAPSHOT`` of a conversation, sent first
to a client that connects without a cursor. The three delta events are written as JSON
directly (a pydantic dump costs about 20 µs); tests hold them equal to the models' dump.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
from ag_ui.core import (
    AssistantMessage,
    AudioInputContent,
    BaseEvent,
    CustomEvent,
    DocumentInputContent,
    FileSource,
    FunctionCall,
    ImageInputContent,
    InputContentDataSource,
    InputContentUrlSource,
    Interrupt,
    MessagesSnapshotEvent,
    ReasoningEndEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentFinishedSuccessOutcome,
    SubagentFinishedSuspendedOutcome,
    SubagentStartedEvent,
    TextInputContent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCall,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from pydantic import ValidationError

from agentcore import events as ev
from agentcore.serve import Frame, RunRequest, StreamProtocol

from . import _ui

__all__ = ["AgUiProtocol", "PROTOCOL", "encode_op", "messages_snapshot", "parse_run_input"]


@attrs.frozen(slots=True)
class AgUiState:
    ui: _ui.UiState


def _frame(event: BaseEvent) -> Frame:
    return None, event.model_dump_json(by_alias=True)


def _delta(kind: str, key: str, ident: str, delta: str, ts: int, sub: str | None) -> Frame:
    """A delta event's JSON, as the package's model dumps it (field order included)."""
    body: dict[str, Any] = {"type": kind}
    if ts:
        body["timestamp"] = ts
    if sub is not None:
        body["subagentRunId"] = sub
    body[key] = ident
    body["delta"] = delta
    return None, json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def _usage(op: _ui.RunFinished) -> list[TokenUsage] | None:
    u = op.usage
    if not u.total_tokens:
        return None
    prompt = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
    return [
        TokenUsage(
            model=op.model,
            input_tokens=prompt,
            output_tokens=u.output_tokens,
            total_tokens=prompt + u.output_tokens,
            reasoning_tokens=u.reasoning_tokens or None,
            cached_input_tokens=u.cache_read_tokens or None,
            cache_write_input_tokens=u.cache_write_tokens or None,
        )
    ]


def _usage_value(usage: ev.Usage) -> dict[str, int]:
    return attrs.asdict(usage)


def encode_op(op: _ui.Op, thread_id: str) -> tuple[Frame, ...]:
    """The AG-UI frames of one UI op (see the table in the module docstring)."""
    ts = op.timestamp or None
    sub = None if op.agent_id == thread_id else op.run_id
    if type(op) is _ui.TextStreamed:
        return (_delta("TEXT_MESSAGE_CONTENT", "messageId", op.id, op.delta, op.timestamp, sub),)
    if type(op) is _ui.ToolArgs:
        return (
            _delta("TOOL_CALL_ARGS", "toolCallId", op.tool_call_id, op.delta, op.timestamp, sub),
        )
    if type(op) is _ui.ReasoningDelta:
        return (
            _delta("REASONING_MESSAGE_CONTENT", "messageId", op.id, op.delta, op.timestamp, sub),
        )
    if type(op) is _ui.TextStart:
        return (
            _frame(
                TextMessageStartEvent(
                    message_id=op.id, role="assistant", timestamp=ts, subagent_run_id=sub
                )
            ),
        )
    if type(op) is _ui.TextEnd:
        return (_frame(TextMessageEndEvent(message_id=op.id, timestamp=ts, subagent_run_id=sub)),)
    if type(op) is _ui.ReasoningStart:
        return (
            _frame(ReasoningStartEvent(message_id=op.id, timestamp=ts, subagent_run_id=sub)),
            _frame(ReasoningMessageStartEvent(message_id=op.id, timestamp=ts, subagent_run_id=sub)),
        )
    if type(op) is _ui.ReasoningEnd:
        return (
            _frame(ReasoningMessageEndEvent(message_id=op.id, timestamp=ts, subagent_run_id=sub)),
            _frame(ReasoningEndEvent(message_id=op.id, timestamp=ts, subagent_run_id=sub)),
        )
    if type(op) is _ui.ToolStart:
        return (
            _frame(
                ToolCallStartEvent(
                    tool_call_id=op.tool_call_id,
                    tool_call_name=op.tool_name,
                    parent_message_id=op.message_id,
                    timestamp=ts,
                    subagent_run_id=sub,
                )
            ),
        )
    if type(op) is _ui.ToolEnd:
        return (
            _frame(
                ToolCallEndEvent(tool_call_id=op.tool_call_id, timestamp=ts, subagent_run_id=sub)
            ),
        )
    if type(op) is _ui.ToolOutput:
        return (
            _frame(
                ToolCallResultEvent(
                    message_id=f"{op.tool_call_id}.result",
                    tool_call_id=op.tool_call_id,
                    content=op.text
                    if op.is_error or isinstance(op.content, str)
                    else content_parts(op.content),
                    role="tool",
                    timestamp=ts,
                    subagent_run_id=sub,
                )
            ),
        )
    if type(op) is _ui.StepStarted:
        return (_frame(StepStartedEvent(step_name=op.name, timestamp=ts, subagent_run_id=sub)),)
    if type(op) is _ui.StepFinished:
        return (_frame(StepFinishedEvent(step_name=op.name, timestamp=ts, subagent_run_id=sub)),)
    if type(op) is _ui.Activity:
        patch: Any = [{"op": "replace", "path": "/activity", "value": op.activity}]
        return (_frame(StateDeltaEvent(delta=patch, timestamp=ts, subagent_run_id=sub)),)
    if type(op) is _ui.Metadata:
        patch = [  # JSON Patch operations, validated into the package's models
            {"op": "replace", "path": "/usage", "value": _usage_value(op.usage)},
            {"op": "replace", "path": "/cost", "value": op.cost},
        ]
        return (_frame(StateDeltaEvent(delta=patch, timestamp=ts, subagent_run_id=sub)),)
    if type(op) is _ui.Progress:
        value = {"toolCallId": op.tool_call_id, "progress": op.progress}
        return (
            _frame(
                CustomEvent(
                    name="agentcore.tool_progress", value=value, timestamp=ts, subagent_run_id=sub
                )
            ),
        )
    if type(op) is _ui.HandedOver:
        moved = {"from": op.source, "to": op.target}
        speaking: Any = [{"op": "add", "path": "/agent", "value": op.target}]
        return (
            _frame(
                CustomEvent(
                    name="agentcore.handoff", value=moved, timestamp=ts, subagent_run_id=sub
                )
            ),
            _frame(StateDeltaEvent(delta=speaking, timestamp=ts, subagent_run_id=sub)),
        )
    if type(op) is _ui.RunStarted:
        if op.parent_run_id is not None:
            nested = op.parent_agent_id not in (None, thread_id)
            metadata = {"agentId": op.agent_id}
            if op.agent_type is not None:
                metadata["agentType"] = op.agent_type
            started = SubagentStartedEvent(
                subagent_run_id=op.run_id,
                name=op.name or op.agent_id,
                parent_subagent_run_id=op.parent_run_id if nested else None,
                parent_tool_call_id=op.tool_call_id,
                metadata=metadata,
                timestamp=ts,
            )
            return (_frame(started),)
        snapshot = {"activity": op.activity, "usage": None, "cost": None}
        return (
            _frame(RunStartedEvent(thread_id=thread_id, run_id=op.run_id, timestamp=ts)),
            _frame(StateSnapshotEvent(snapshot=snapshot, timestamp=ts)),
        )
    if type(op) is _ui.RunFinished:
        return (_finished(op, thread_id, ts),)
    return ()


def _finished(op: _ui.RunFinished, thread_id: str, ts: int | None) -> Frame:
    if op.parent_run_id is not None:
        if op.outcome in ("error", "cancelled"):
            cancelled = op.outcome == "cancelled"
            return _frame(
                SubagentErrorEvent(
                    subagent_run_id=op.run_id,
                    message=op.message or op.code or ("cancelled" if cancelled else "error"),
                    code="cancelled" if cancelled else op.code,
                    timestamp=ts,
                )
            )
        done: Any = SubagentFinishedSuccessOutcome()
        if op.outcome == "interrupt":
            done = SubagentFinishedSuspendedOutcome(
                interrupt_ids=[call.tool_call_id for call in op.approvals]
            )
        return _frame(SubagentFinishedEvent(subagent_run_id=op.run_id, outcome=done, timestamp=ts))
    if op.outcome == "error":
        return _frame(
            RunErrorEvent(
                message=op.message or op.code or "error",
                code=op.code,
                usage=_usage(op),
                timestamp=ts,
            )
        )
    outcome: Any
    if op.outcome == "interrupt":
        interrupts = [
            Interrupt(
                id=call.tool_call_id,
                reason="tool_approval",
                tool_call_id=call.tool_call_id,
                message=f"Approve the call to {call.tool_name!r}?",
            )
            for call in op.approvals
        ]
        outcome = RunFinishedInterruptOutcome(interrupts=interrupts)
    elif op.outcome == "cancelled":
        outcome = RunFinishedCancelledOutcome()
    else:
        outcome = RunFinishedSuccessOutcome()
    return _frame(
        RunFinishedEvent(
            thread_id=thread_id, run_id=op.run_id, outcome=outcome, usage=_usage(op), timestamp=ts
        )
    )


def messages_snapshot(history: Iterable[Any], timestamp: int | None = None) -> Frame:
    """The ``MESSAGES_SNAPSHOT`` of a conversation's history (user, assistant and tool
    messages; ids are the messages' own, as the stream uses them)."""
    messages: list[Any] = []
    for message in history:
        if isinstance(message, ev.UserMessage):
            messages.append(
                UserMessage(id=message.message_id, content=content_parts(message.content))
            )
        elif isinstance(message, ev.AssistantMessage):
            calls = [
                ToolCall(
                    id=c.tool_call_id,
                    function=FunctionCall(
                        name=c.tool_name, arguments=c.raw_input or json.dumps(dict(c.input))
                    ),
                )
                for c in message.tool_calls
            ]
            messages.append(
                AssistantMessage(
                    id=message.message_id, content=message.text or None, tool_calls=calls or None
                )
            )
        elif isinstance(message, ev.ToolResultMessage):
            text = _ui.content_text(message.result)
            messages.append(
                ToolMessage(
                    id=f"{message.tool_call_id}.result",
                    content=text if message.is_error else content_parts(message.result),
                    tool_call_id=message.tool_call_id,
                    error=text if message.is_error else None,
                )
            )
    return _frame(MessagesSnapshotEvent(messages=messages, timestamp=timestamp))


def parse_run_input(body: bytes) -> RunRequest:
    """The run a ``RunAgentInput`` asks for: its thread and run ids, the text of its last
    message when that is a user message, and its answers to approval interrupts
    (``resume``: ``resolved`` approves, ``cancelled`` rejects). Raises ``ValueError``
    naming what is wrong."""
    try:
        request = RunAgentInput.model_validate_json(body)
    except ValidationError as exc:
        raise ValueError(
            f"not an AG-UI RunAgentInput: {exc.errors()[0]['msg']} at "
            f"{'.'.join(map(str, exc.errors()[0]['loc']))}"
        ) from None
    prompt = message_id = None
    media: tuple[Any, ...] = ()
    if request.messages and request.messages[-1].role == "user":
        last = request.messages[-1]
        content = last.content
        if isinstance(content, str):
            prompt = content
        else:
            prompt = "".join(p.text for p in content if isinstance(p, TextInputContent))
            media = tuple(_agentcore_part(i, p) for i, p in enumerate(content) if p.type != "text")
        message_id = last.id
    decisions = tuple(
        (entry.interrupt_id, entry.status == "resolved", None) for entry in request.resume or ()
    )
    return RunRequest(request.thread_id, prompt, message_id, request.run_id, decisions, media)


_PARTS: dict[str, Any] = {
    "image": ImageInputContent,
    "document": DocumentInputContent,
    "audio": AudioInputContent,
}


def content_parts(content: ev.Content) -> str | list[Any]:
    """agentcore content as AG-UI 1.0 content: text stays a string; parts become text,
    image, document and audio parts (inline data as a ``data`` source, a file reference
    as a ``url`` or provider ``file`` source; a document's title in ``metadata``)."""
    if isinstance(content, str):
        return content
    parts: list[Any] = []
    for part in content:
        if isinstance(part, ev.TextContent):
            parts.append(TextInputContent(text=part.text))
            continue
        source: Any
        if isinstance(part, ev.FileContent):
            if part.url is not None:
                source = InputContentUrlSource(value=part.url, mime_type=part.media_type)
            else:
                source = FileSource(
                    value=part.file_id or "", provider=part.provider, mime_type=part.media_type
                )
            kind: str = part.kind if part.kind in _PARTS else "document"
        else:
            source = InputContentDataSource(value=part.data, mime_type=part.media_type)
            kind = part.type
        title = getattr(part, "title", None)
        parts.append(_PARTS[kind](source=source, metadata={"title": title} if title else None))
    return parts


def _agentcore_part(index: int, part: Any) -> Any:
    """An AG-UI content part of a user message as an agentcore part; ``ValueError``
    naming the part for what no model takes (a video, a type no part has)."""
    source = part.source
    mime = source.mime_type or "application/octet-stream"
    data = source.value if source.type == "data" else None
    url = source.value if source.type == "url" else None
    metadata = part.metadata if isinstance(part.metadata, dict) else {}
    title = metadata.get("title") if isinstance(metadata.get("title"), str) else None
    if data is not None:
        made = ev.inline_part(mime, data, title)
        if made is None:
            raise ValueError(
                f"content part {index} is {part.type} of type {mime!r}, which no model takes inline"
            )
        return made
    if url is not None:
        return ev.FileContent.from_url(url, mime, title=title)
    return ev.FileContent.from_file_id(source.value, mime, provider=source.provider, title=title)


class AgUiProtocol:
    """The ``ag-ui`` wire protocol (module docstring)."""

    name = "ag-ui"
    headers: Mapping[str, str] = {}

    def initial(self, thread_id: str, params: Mapping[str, str]) -> AgUiState:
        return AgUiState(_ui.initial(thread_id))

    def encode(
        self, state: AgUiState, agent_id: str, output: Any
    ) -> tuple[AgUiState, tuple[Frame, ...]]:
        ui, ops = _ui.step(state.ui, agent_id, output)
        if not ops:
            return (state if ui is state.ui else AgUiState(ui)), ()
        thread = ui.thread_id
        frames: list[Frame] = []
        for op in ops:
            frames += encode_op(op, thread)
        return AgUiState(ui), tuple(frames)

    def end(self, state: AgUiState) -> tuple[Frame, ...]:
        return ()

    def next_run(self, state: AgUiState, run_id: str) -> AgUiState:
        return AgUiState(_ui.with_next_run_id(state.ui, run_id))

    def parse_run(self, body: bytes) -> RunRequest:
        return parse_run_input(body)

    def snapshot(self, history: Sequence[Any]) -> tuple[Frame, ...]:
        return (messages_snapshot(history),)


PROTOCOL: StreamProtocol = AgUiProtocol()
