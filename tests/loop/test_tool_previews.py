"""Tool-argument previews: ``tool_execution_update`` events with the arguments so far."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import InputJsonDelta, MessageStart, ToolUseStart, ToolUseStop
from agentcore.journal import MemoryJournal
from agentcore.loop import ToolExecutionStart, ToolExecutionUpdate, is_prefix, tool_previews
from agentcore.testing import assert_replays, check_processor, chunked, json_objects
from agentcore.tools import tool


def _call_events(call_id: str, index: int, chunks: list[str]) -> list[Any]:
    return [
        ToolUseStart(call_id, "write", index),
        *(InputJsonDelta(c, index) for c in chunks),
        ToolUseStop(call_id, index),
    ]


@settings(max_examples=200, deadline=None)
@given(st.data(), json_objects(10), json_objects(6))
def test_previews_of_any_chunking_are_prefixes_ending_with_the_arguments(
    data: st.DataObject, first: dict[str, Any], second: dict[str, Any]
) -> None:
    a = data.draw(chunked(json.dumps(first)))
    b = data.draw(chunked(json.dumps(second, ensure_ascii=False)))
    picks = data.draw(st.permutations([0] * len(a) + [1] * len(b)))  # interleaved, in order
    queues = [iter(a), iter(b)]
    deltas = [InputJsonDelta(next(queues[i]), i) for i in picks]
    events = [
        MessageStart("m", "model"),
        ToolUseStart("c0", "write", 0),
        ToolUseStart("c1", "write", 1),
        *deltas,
        ToolUseStop("c0", 0),
        ToolUseStop("c1", 1),
    ]
    processor, initial = tool_previews()
    state, outputs = check_processor(processor, initial(), events)  # pure: asserted per event
    assert state == {}
    for call_id, expected in (("c0", first), ("c1", second)):
        previews = [o.args for o in outputs if o.tool_call_id == call_id]
        assert all(type(o) is ToolExecutionUpdate and o.progress is None for o in outputs)
        assert previews[-1] == expected
        assert all(is_prefix(x, y) and x != y for x, y in itertools.pairwise(previews))


def test_the_last_preview_of_long_arguments_is_the_whole_of_them() -> None:
    args = {"path": "big.txt", "content": "x" * 5000}
    text = json.dumps(args)
    chunks = [text[i : i + 8] for i in range(0, len(text), 8)]
    processor, initial = tool_previews()
    _, outputs = check_processor(processor, initial(), _call_events("c0", 0, chunks))
    assert outputs[-1].args == args  # parsed at the stop though the throttle skipped it
    assert len(outputs) < len(chunks) // 4  # a long text is not parsed at every chunk


def test_a_new_message_forgets_calls_left_open() -> None:
    processor, initial = tool_previews()
    state, _ = processor(initial(), ToolUseStart("c0", "write", 0))
    state, _ = processor(state, MessageStart("m2", "model"))
    assert state == {}
    assert processor(state, InputJsonDelta('{"a": 1}', 0)) == ({}, ())


@tool
def write(path: str, content: str) -> str:
    """Write a file."""
    return f"wrote {len(content)} characters to {path}"


def test_an_agent_with_previews_delivers_them_before_the_call_runs_and_replays_them() -> None:
    args = {"path": "notes.txt", "content": "A long note, streamed in pieces."}
    driver = ScriptedDriver([tool_turn([("c1", "write", args)]), text_turn("Done.")])
    agent = Agent(
        driver, tools=[write], processors={"previews": tool_previews()}, journal=MemoryJournal()
    )
    delivered: list[Any] = []
    agent.subscribe(delivered.append)
    asyncio.run(agent.prompt("Write it"))
    updates = [o for o in delivered if type(o) is ToolExecutionUpdate]
    assert updates and updates[-1].args == args and updates[0].args != args
    start = next(i for i, o in enumerate(delivered) if type(o) is ToolExecutionStart)
    assert delivered.index(updates[-1]) < start
    assert_replays(agent, delivered)


def test_without_previews_no_update_is_delivered() -> None:
    driver = ScriptedDriver([tool_turn([("c1", "write", {"path": "a", "content": "b"})])])
    agent = Agent(driver, tools=[write], max_iterations=1)
    delivered: list[Any] = []
    agent.subscribe(delivered.append)
    asyncio.run(agent.prompt("Write it"))
    assert not [o for o in delivered if type(o) is ToolExecutionUpdate]
