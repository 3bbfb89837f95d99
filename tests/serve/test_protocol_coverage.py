"""Every event type issue 13 lists, per protocol, comes out of real sessions.

Scripted sessions of a real ``Agent`` cover each case once (text and thinking, tools,
arguments that are no JSON object, an unknown tool, an approval approved, rejected and
aborted, a driver failing mid-stream), plus the sub-agent session of
``test_subagent_streams``; the union of what each encoder made must hold every listed
type, and every frame stays valid (checked by the per-protocol property tests too).
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
from ag_ui.core import Event

from agentcore.drivers.scripted import text_turn, tool_turn
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    ToolUseStart,
    ToolUseStop,
)
from agentcore.presenters import ag_ui, vercel

from .conftest import ROOT, _run
from .test_subagent_streams import ROOT as TREE_ROOT
from .test_subagent_streams import SESSION as TREE
from .test_ui_protocols import _check_chunk

EVENT = pydantic.TypeAdapter(Event)
USAGE = {"input_tokens": 5, "output_tokens": 3}


def _bad_arguments(n: int) -> list[Any]:
    return [
        MessageStart(message_id=f"bad{n}", model="m"),
        ToolUseStart(tool_call_id=f"b{n}", tool_name="lookup", index=0),
        InputJsonDelta(partial_json="[1, 2", index=0),
        ToolUseStop(tool_call_id=f"b{n}", index=0),
        MessageDelta(stop_reason="tool_use"),
        MessageStop(stop_reason="tool_use"),
    ]


def _sessions() -> list[tuple[str, Any]]:
    ask = [("r1", "remove", {"path": "/tmp/x"})]
    prompts = [
        ("run", [text_turn("hello", thinking="hm", message_id="m1", usage=USAGE)], "p1"),
        (
            "run",
            [
                tool_turn([("c1", "lookup", {"city": "Paris"})], message_id="m2"),
                tool_turn([("c2", "nowhere", {})], message_id="m3"),
                _bad_arguments(1),
                text_turn("done", message_id="m4"),
            ],
            "p2",
        ),
        ("approve", [tool_turn(ask, message_id="m5"), text_turn("ok", message_id="m6")], "p3"),
        ("reject", [tool_turn(ask, message_id="m7"), text_turn("ok", message_id="m8")], "p4"),
        ("abort", [tool_turn(ask, message_id="m9")], "p5"),
        ("run", [[MessageStart("m10", "m"), RuntimeError("connection reset")]], "p6"),
    ]
    session = _run(prompts, [call for _, calls, _ in prompts for call in calls])
    return [(ROOT, o) for o in session.outputs]


def _encoded(protocol: Any, thread: str, outputs: list[tuple[str, Any]]) -> list[Any]:
    state = protocol.initial(thread, {})
    found = []
    for agent_id, output in outputs:
        state, frames = protocol.encode(state, agent_id, output)
        found += [json.loads(data) for _, data in frames]
    return found


def test_every_listed_ag_ui_event_type_is_made() -> None:
    events = _encoded(ag_ui.PROTOCOL, ROOT, _sessions())
    events += _encoded(ag_ui.PROTOCOL, TREE_ROOT, [(TREE_ROOT, o) for o in TREE[0]])
    history = [o for _, o in _sessions() if getattr(o, "type", "").endswith("_message")]
    events += [json.loads(d) for _, d in ag_ui.AgUiProtocol().snapshot(history)]
    for body in events:
        assert not EVENT.validate_python(body).model_extra
    kinds = {e["type"] for e in events}
    listed = {
        "RUN_STARTED",
        "RUN_FINISHED",
        "RUN_ERROR",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "STEP_STARTED",
        "STEP_FINISHED",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "MESSAGES_SNAPSHOT",
        "SUBAGENT_STARTED",
        "SUBAGENT_FINISHED",
    }
    assert listed <= kinds, listed - kinds
    finished = [e for e in events if e["type"] == "RUN_FINISHED"]
    assert {e["outcome"]["type"] for e in finished} == {"success", "interrupt", "cancelled"}
    usage = finished[0]["usage"][0]  # the first run's: the model reported its tokens
    assert (usage["inputTokens"], usage["outputTokens"], usage["totalTokens"]) == (5, 3, 8)


def test_every_listed_vercel_chunk_type_is_made() -> None:
    chunks = _encoded(vercel.PROTOCOL, ROOT, _sessions())
    chunks += _encoded(vercel.PROTOCOL, TREE_ROOT, [(TREE_ROOT, o) for o in TREE[0]])
    for chunk in chunks:
        _check_chunk(chunk)
    kinds = {c["type"] for c in chunks}
    listed = {
        "start",
        "start-step",
        "finish-step",
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-input-error",
        "tool-output-available",
        "tool-output-error",
        "tool-output-denied",
        "tool-approval-request",
        "message-metadata",
        "finish",
        "error",
        "abort",
        "data-subagent",
    }
    assert listed <= kinds, listed - kinds
    metadata = next(c for c in chunks if c["type"] == "message-metadata")["messageMetadata"]
    assert set(metadata) == {"usage", "cost", "durationMs", "model"}
    reasons = {c["finishReason"] for c in chunks if c["type"] == "finish"}
    assert {"stop", "tool-calls", "error"} <= reasons
    assert vercel.PROTOCOL.end(None) == ((None, "[DONE]"),)
