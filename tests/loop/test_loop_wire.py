"""Loop-layer events survive the wire form exactly, nested messages included."""

from __future__ import annotations

import asyncio
import json

from agentcore.agent import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import LAYERS, from_dict, to_dict
from agentcore.journal import MemoryJournal
from agentcore.presenters.recording import RecordingPresenter
from agentcore.tools import tool


@tool
async def echo(text: str) -> str:
    """Echo the text."""
    return text


def test_every_event_of_a_real_run_round_trips_through_json() -> None:
    presenter = RecordingPresenter()
    calls = [("t1", "nope", {}), ("t2", "echo", {"text": 5}), ("t3", "echo", {"text": "hi"})]
    journal = MemoryJournal()
    agent = Agent(
        ScriptedDriver([tool_turn(calls), text_turn("done"), text_turn("again")]),
        tools=[echo],
        presenters=[presenter],
        journal=journal,
    )
    agent.follow_up("one more thing")
    asyncio.run(agent.prompt("go"))
    events = [*presenter.outputs(), *(e.event for e in journal.entries())]
    loop_types = {e.type for e in events if LAYERS[e.type] == "loop"}
    assert {"agent_prompt", "agent_follow_up", "agent_message_end", "turn_end"} <= loop_types
    assert {"agent_configured"} <= loop_types
    assert {"tool_execution_start", "tool_execution_end", "agent_end"} <= loop_types
    for event in events:
        wire = json.loads(json.dumps(to_dict(event)))
        assert from_dict(wire) == event, event.type


def test_a_nested_message_keeps_its_own_timestamp() -> None:
    presenter = RecordingPresenter()
    asyncio.run(Agent(ScriptedDriver([text_turn("hi")]), presenters=[presenter]).prompt("x"))
    (end,) = [e for e in presenter.outputs(type="agent_message_end") if e.role == "assistant"]
    nested = to_dict(end)["data"]["message"]
    assert nested["type"] == "assistant_message"
    assert nested["timestamp"] == end.message.timestamp != 0
