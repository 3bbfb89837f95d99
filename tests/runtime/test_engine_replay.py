"""replay(journal) gives exactly the live outputs, for random streams; state_at travels."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore.drivers.scripted import ScriptedDriver
from agentcore.engine import create_agent
from agentcore.errors import AgentError
from agentcore.events import (
    ErrorReceived,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    ToolUseStop,
)
from agentcore.journal import JsonlJournal, MemoryJournal, replay, state_at
from agentcore.loop import create_conversation_machine
from agentcore.presenters.recording import RecordingPresenter

_text = st.text(max_size=6)


@st.composite
def model_call(draw: st.DrawFn) -> list[Any]:
    """A plausible stream (sometimes cut short, sometimes failing, sometimes malformed)."""
    events: list[Any] = [MessageStart(message_id=f"m{draw(st.integers(0, 3))}", model="x")]
    blocks = draw(st.integers(0, 3))
    for index in range(blocks):
        kind = draw(st.sampled_from(["text", "thinking", "tool"]))
        if kind == "text":
            events += [TextDelta(text=t, index=index) for t in draw(st.lists(_text, max_size=4))]
        elif kind == "thinking":
            events += [ThinkingDelta(text=t, index=index) for t in draw(st.lists(_text))]
        else:
            call = f"c{index}"
            events.append(ToolUseStart(tool_call_id=call, tool_name="t", index=index))
            events += [InputJsonDelta(partial_json=p, index=index) for p in ('{"a"', ": 1}")]
            events.append(ToolUseStop(tool_call_id=call, index=index))
    ending = draw(st.sampled_from(["stop", "error", "cut", "junk"]))
    if ending == "stop":
        events += [MessageDelta(stop_reason="end_turn"), MessageStop(stop_reason="end_turn")]
    elif ending == "error":
        events.append(ErrorReceived(message="overloaded", code="OVERLOADED"))
    elif ending == "junk":
        events += [TextDelta(text="late", index=9), MessageStop(), MessageStop()]
    return events


async def _run(turns: list[list[Any]], journal: Any, presenter: Any) -> list[Any]:
    engine = create_agent(ScriptedDriver(turns), [presenter], journal=journal, agent_id="p")
    outputs: list[Any] = []
    for i in range(len(turns)):
        with contextlib.suppress(AgentError):
            outputs.extend((await engine.receive(f"message {i}")).outputs)
    return outputs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(model_call(), min_size=1, max_size=4))
def test_replay_equals_live_outputs(turns: list[list[Any]]) -> None:
    journal = MemoryJournal()
    rec = RecordingPresenter()
    asyncio.run(_run(turns, journal, rec))
    # every delivered output, of every layer, comes back from the journal, in order
    assert [o for _, o in replay(journal)] == [o for _, o in rec.records]


def test_replay_from_a_jsonl_file_and_state_at(tmp_path: Any) -> None:
    path = tmp_path / "j.jsonl"
    journal = JsonlJournal(path, fsync="turn")
    rec = RecordingPresenter()
    turns = [
        [
            MessageStart(message_id="m", model="x"),
            TextDelta(text="hi", index=0),
            MessageStop(stop_reason="end_turn"),
        ]
    ]
    asyncio.run(_run(turns, journal, rec))
    journal.close()
    inputs = [e.event for e in journal.entries()]
    assert [o for _, o in replay(path)] == [o for _, o in rec.records]
    # state_at(n) equals folding the first n events by hand
    for n in range(1, len(inputs) + 1):
        machine = create_conversation_machine()
        for event in inputs[:n]:
            machine.process("p", event)
        assert state_at(path, "p", n) == machine.state_of("p")
    with pytest.raises(ValueError, match=f"has {len(inputs)} journaled event"):
        state_at(path, "p", 99)
    with pytest.raises(ValueError, match="start at 1"):
        state_at(path, "p", 0)
