"""The AG-UI and Vercel encoders, property-tested over random agent sessions.

Every frame validates against the protocol (AG-UI: the ``ag-ui-protocol`` package's own
event models; Vercel: the published strict chunk schemas); the sequence is well formed
(blocks open before their deltas and close before the run ends, runs alternate, nothing
after RUN_ERROR but a new run, no empty delta); nothing is lost (the streamed text,
reasoning and tool arguments are exactly the agent's, every tool result is there); ids
are the same on a second encoding (replay) and unique where they must be.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pydantic
import pytest
from ag_ui.core import (
    Event,
    ReasoningMessageContentEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)
from hypothesis import HealthCheck, given, settings

from agentcore.events import TextDelta, ThinkingDelta, ToolResultMessage
from agentcore.presenters import ag_ui, vercel

from .conftest import ROOT, Session, sessions

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EVENT = pydantic.TypeAdapter(Event)


def frames(protocol: Any, outputs: Sequence[Any]) -> list[dict[str, Any]]:
    state = protocol.initial(ROOT, {})
    found: list[dict[str, Any]] = []
    for output in outputs:
        state, out = protocol.encode(state, ROOT, output)
        for event, data in out:
            assert event is None
            assert "\n" not in data and "\r" not in data
            found.append(json.loads(data))
    return found


def _streamed(outputs: Sequence[Any], cls: type) -> str:
    return "".join(o.text for o in outputs if type(o) is cls)


def _args_by_call(outputs: Sequence[Any]) -> dict[str, str]:
    """The JSON fragments the model streamed, per tool call (from the raw deltas)."""
    open_calls: dict[int, str] = {}
    found: dict[str, str] = {}
    for o in outputs:
        if o.type == "tool_use_start":
            open_calls[o.index] = o.tool_call_id
            found.setdefault(o.tool_call_id, "")
        elif o.type == "input_json_delta" and o.index in open_calls:
            found[open_calls[o.index]] += o.partial_json
        elif o.type == "tool_use_stop":
            open_calls.pop(o.index, None)
        elif o.type == "message_start":
            open_calls.clear()
    return found


# -- AG-UI ---------------------------------------------------------------------------------


@SETTINGS
@given(sessions())
def test_ag_ui_frames_validate_and_are_well_formed(session: Session) -> None:
    events = frames(ag_ui.PROTOCOL, session.outputs)
    run_open = errored = False
    texts: set[str] = set()
    reasoning: set[str] = set()
    tools: set[str] = set()
    seen_text_ids: set[str] = set()
    for body in events:
        model = EVENT.validate_python(body)
        assert not model.model_extra, f"extra keys in {body}"
        assert json.loads(model.model_dump_json(by_alias=True)) == body  # the package's own dump
        kind = body["type"]
        if kind == "RUN_STARTED":
            assert not run_open
            run_open, errored = True, False
            continue
        assert run_open, f"{kind} outside a run (after RUN_ERROR: {errored})"
        if kind in ("RUN_FINISHED", "RUN_ERROR"):
            assert not texts and not reasoning and not tools
            run_open, errored = False, kind == "RUN_ERROR"
        elif kind == "TEXT_MESSAGE_START":
            assert body["messageId"] not in seen_text_ids
            seen_text_ids.add(body["messageId"])
            texts.add(body["messageId"])
        elif kind == "TEXT_MESSAGE_CONTENT":
            assert body["messageId"] in texts and body["delta"]
        elif kind == "TEXT_MESSAGE_END":
            texts.remove(body["messageId"])
        elif kind == "REASONING_MESSAGE_START":
            reasoning.add(body["messageId"])
        elif kind == "REASONING_MESSAGE_CONTENT":
            assert body["messageId"] in reasoning and body["delta"]
        elif kind == "REASONING_MESSAGE_END":
            reasoning.remove(body["messageId"])
        elif kind == "TOOL_CALL_START":
            tools.add(body["toolCallId"])
        elif kind == "TOOL_CALL_ARGS":
            assert body["toolCallId"] in tools and body["delta"]
        elif kind == "TOOL_CALL_END":
            tools.remove(body["toolCallId"])
    assert not run_open  # every session ends idle


@SETTINGS
@given(sessions())
def test_ag_ui_loses_nothing(session: Session) -> None:
    events = frames(ag_ui.PROTOCOL, session.outputs)
    outputs = session.outputs
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == _streamed(outputs, TextDelta)
    thought = "".join(e["delta"] for e in events if e["type"] == "REASONING_MESSAGE_CONTENT")
    assert thought == _streamed(outputs, ThinkingDelta)
    args: dict[str, str] = {}
    for e in events:
        if e["type"] == "TOOL_CALL_ARGS":
            args[e["toolCallId"]] = args.get(e["toolCallId"], "") + e["delta"]
    assert args == {k: v for k, v in _args_by_call(outputs).items() if v}
    results = [(e["toolCallId"], e["content"]) for e in events if e["type"] == "TOOL_CALL_RESULT"]
    expected = [
        (o.tool_call_id, ag_ui._ui.content_text(o.result))
        for o in outputs
        if type(o) is ToolResultMessage
    ]
    assert results == expected
    assert frames(ag_ui.PROTOCOL, outputs) == events  # replay gives the same ids


def test_ag_ui_fast_deltas_are_the_models_dump() -> None:
    cases = [
        (
            ag_ui._delta("TEXT_MESSAGE_CONTENT", "messageId", "m", "héllo\n", 5, None),
            TextMessageContentEvent(message_id="m", delta="héllo\n", timestamp=5),
        ),
        (
            ag_ui._delta("TOOL_CALL_ARGS", "toolCallId", "c", '{"a"', 0, "sub:1"),
            ToolCallArgsEvent(tool_call_id="c", delta='{"a"', subagent_run_id="sub:1"),
        ),
        (
            ag_ui._delta("REASONING_MESSAGE_CONTENT", "messageId", "r", "x", 7, None),
            ReasoningMessageContentEvent(message_id="r", delta="x", timestamp=7),
        ),
    ]
    for (_, data), model in cases:
        assert data == model.model_dump_json(by_alias=True)


def test_ag_ui_run_input_and_snapshot() -> None:
    body = json.dumps(
        {
            "threadId": "t1",
            "runId": "r9",
            "messages": [{"id": "u1", "role": "user", "content": "hi"}],
            "resume": [{"interruptId": "c1", "status": "resolved"}],
        }
    ).encode()
    request = ag_ui.parse_run_input(body)
    assert (request.agent_id, request.run_id, request.prompt, request.message_id) == (
        "t1",
        "r9",
        "hi",
        "u1",
    )
    assert request.decisions == (("c1", True, None),)
    with pytest.raises(ValueError, match="RunAgentInput"):
        ag_ui.parse_run_input(b'{"threadId": 3}')


@SETTINGS
@given(sessions(max_prompts=2))
def test_ag_ui_named_run_takes_the_callers_id(session: Session) -> None:
    protocol = ag_ui.PROTOCOL
    state = protocol.next_run(protocol.initial(ROOT, {}), "client-run")
    started = []
    for output in session.outputs:
        state, out = protocol.encode(state, ROOT, output)
        started += [json.loads(d)["runId"] for _, d in out if '"RUN_STARTED"' in d]
    assert started[0] == "client-run"
    assert "client-run" not in started[1:]


# -- Vercel ---------------------------------------------------------------------------------

CHUNKS: dict[str, tuple[set[str], set[str]]] = {
    # type: (required keys, optional keys), from the published strict schemas
    "start": (set(), {"messageId", "messageMetadata"}),
    "finish": (set(), {"finishReason", "messageMetadata"}),
    "abort": (set(), {"reason"}),
    "error": ({"errorText"}, set()),
    "start-step": (set(), set()),
    "finish-step": (set(), set()),
    "text-start": ({"id"}, {"providerMetadata"}),
    "text-delta": ({"id", "delta"}, {"providerMetadata"}),
    "text-end": ({"id"}, {"providerMetadata"}),
    "reasoning-start": ({"id"}, {"providerMetadata"}),
    "reasoning-delta": ({"id", "delta"}, {"providerMetadata"}),
    "reasoning-end": ({"id"}, {"providerMetadata"}),
    "tool-input-start": ({"toolCallId", "toolName"}, {"providerExecuted", "dynamic", "title"}),
    "tool-input-delta": ({"toolCallId", "inputTextDelta"}, set()),
    "tool-input-available": ({"toolCallId", "toolName", "input"}, {"dynamic", "title"}),
    "tool-input-error": ({"toolCallId", "toolName", "input", "errorText"}, {"dynamic", "title"}),
    "tool-approval-request": ({"approvalId", "toolCallId"}, set()),
    "tool-output-available": ({"toolCallId", "output"}, {"dynamic", "preliminary"}),
    "file": ({"url", "mediaType"}, {"providerMetadata"}),
    "tool-output-error": ({"toolCallId", "errorText"}, {"dynamic"}),
    "tool-output-denied": ({"toolCallId"}, set()),
    "message-metadata": ({"messageMetadata"}, set()),
}
FINISH_REASONS = {"stop", "length", "content-filter", "tool-calls", "error", "other"}


def _check_chunk(chunk: dict[str, Any]) -> None:
    kind = chunk["type"]
    keys = set(chunk) - {"type"}
    if kind.startswith("data-"):
        assert keys - {"id", "data", "transient"} == set() and "data" in keys
        return
    required, optional = CHUNKS[kind]
    assert required <= keys and keys <= required | optional, f"bad keys in {chunk}"
    for key in required & {"id", "delta", "toolCallId", "toolName", "errorText", "approvalId"}:
        assert isinstance(chunk[key], str)
    if kind == "finish" and "finishReason" in chunk:
        assert chunk["finishReason"] in FINISH_REASONS


@SETTINGS
@given(sessions())
def test_vercel_chunks_are_strict_well_formed_and_lose_nothing(session: Session) -> None:
    chunks = frames(vercel.PROTOCOL, session.outputs)
    open_message = False
    texts: set[str] = set()
    reasoning: set[str] = set()
    inputs: set[str] = set()
    for chunk in chunks:
        _check_chunk(chunk)
        kind = chunk["type"]
        if kind == "start":
            assert not open_message
            open_message = True
            continue
        assert open_message, f"{kind} outside a message"
        if kind in ("finish", "abort"):
            assert not texts and not reasoning
            open_message = False
        elif kind == "text-start":
            texts.add(chunk["id"])
        elif kind == "text-delta":
            assert chunk["id"] in texts and chunk["delta"]
        elif kind == "text-end":
            texts.remove(chunk["id"])
        elif kind == "reasoning-start":
            reasoning.add(chunk["id"])
        elif kind == "reasoning-delta":
            assert chunk["id"] in reasoning and chunk["delta"]
        elif kind == "reasoning-end":
            reasoning.remove(chunk["id"])
        elif kind == "tool-input-start":
            inputs.add(chunk["toolCallId"])
        elif kind == "tool-input-delta":
            assert chunk["toolCallId"] in inputs and chunk["inputTextDelta"]
    assert not open_message
    outputs = session.outputs
    text = "".join(c["delta"] for c in chunks if c["type"] == "text-delta")
    assert text == _streamed(outputs, TextDelta)
    thought = "".join(c["delta"] for c in chunks if c["type"] == "reasoning-delta")
    assert thought == _streamed(outputs, ThinkingDelta)
    answered = [c["toolCallId"] for c in chunks if c["type"].startswith("tool-output-")]
    assert answered == [o.tool_call_id for o in outputs if type(o) is ToolResultMessage]
    assert frames(vercel.PROTOCOL, outputs) == chunks


def test_vercel_chat_request() -> None:
    body = {
        "id": "chat1",
        "messages": [
            {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "delete x"}]},
            {
                "id": "a1:2",
                "role": "assistant",
                "parts": [
                    {
                        "type": "tool-remove",
                        "toolCallId": "c1",
                        "state": "approval-responded",
                        "approval": {"id": "c1", "approved": False, "reason": "no"},
                    }
                ],
            },
        ],
    }
    request = vercel.parse_chat_request(json.dumps(body).encode())
    assert request.agent_id == "chat1" and request.prompt is None
    assert request.decisions == (("c1", False, "no"),)
    body["messages"] = body["messages"][:1]
    request = vercel.parse_chat_request(json.dumps(body).encode())
    assert (request.prompt, request.message_id) == ("delete x", "u1")
    for bad in (b"[]", b"{", b'{"id": "c", "messages": 3}'):
        with pytest.raises(ValueError, match="chat request"):
            vercel.parse_chat_request(bad)
    assert vercel.PROTOCOL.end(vercel.PROTOCOL.initial("x", {})) == ((None, "[DONE]"),)
    assert vercel.PROTOCOL.headers == {"x-vercel-ai-ui-message-stream": "v1"}


def test_a_sub_agents_outputs_nest_under_the_run() -> None:
    """Outputs of another agent id than the stream's are a sub-agent's: AG-UI nests them
    (SUBAGENT_STARTED, events tagged with its run, SUBAGENT_FINISHED inside the parent's
    run); the Vercel stream shows the child as one data-subagent part."""
    from agentcore.events import MessageStart, MessageStop
    from agentcore.loop import AgentEnd, AgentStart

    child = "child-1"
    outputs = [
        (ROOT, AgentStart()),
        (child, AgentStart()),
        (child, MessageStart("cm1", "model")),
        (child, TextDelta("from the child", 0)),
        (child, MessageStop()),
        (child, AgentEnd("completed")),
        (ROOT, MessageStart("pm1", "model")),
        (ROOT, TextDelta("parent", 0)),
        (ROOT, AgentEnd("completed")),
    ]
    state = ag_ui.PROTOCOL.initial(ROOT, {})
    events = []
    for agent_id, output in outputs:
        state, out = ag_ui.PROTOCOL.encode(state, agent_id, output)
        events += [json.loads(d) for _, d in out]
    for body in events:
        assert not EVENT.validate_python(body).model_extra
    kinds = [e["type"] for e in events]
    assert kinds.index("SUBAGENT_STARTED") > kinds.index("RUN_STARTED")
    assert kinds.index("SUBAGENT_FINISHED") < kinds.index("RUN_FINISHED")
    started = next(e for e in events if e["type"] == "SUBAGENT_STARTED")
    assert started["subagentRunId"] == f"{child}:1" and started["name"] == child
    child_text = [e for e in events if e["type"] == "TEXT_MESSAGE_CONTENT" and "subagentRunId" in e]
    assert [e["delta"] for e in child_text] == ["from the child"]
    assert all(e["subagentRunId"] == f"{child}:1" for e in child_text)
    state = vercel.PROTOCOL.initial(ROOT, {})
    chunks = []
    for agent_id, output in outputs:
        state, out = vercel.PROTOCOL.encode(state, agent_id, output)
        chunks += [json.loads(d) for _, d in out]
    parts = [c for c in chunks if c["type"] == "data-subagent"]
    assert [p["data"]["status"] for p in parts] == ["running", "success"]
    assert {p["id"] for p in parts} == {f"{child}:1"}
