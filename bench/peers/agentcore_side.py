"""agentcore's scenarios, its model mocked at its own boundary (``FunctionDriver``), the
same texts, tool and deltas as the peers'.

The model functions are ``async``, so each model call takes the path a provider's driver
takes: the run's caller streams the call its prompt asks for, and a call asked for after a
tool's result streams in a task (docs/drivers.md); a sync function takes the same path."""

from __future__ import annotations

from typing import Any

from _runner import STREAM_DELTAS, TEXT, TOOL_ARGS

from agentcore import Agent, ModelRequest
from agentcore import tool as make_tool
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.events import (
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ToolResultMessage,
)


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


_ANSWER = text_turn(TEXT, chunk=len(TEXT))
_CALL = tool_turn([("c1", "add", TOOL_ARGS)])
_STREAM: list[StreamEvent] = [
    MessageStart("m1", "bench-model"),
    *(TextDelta(delta, 0) for delta in STREAM_DELTAS),
    MessageDelta(stop_reason="end_turn"),
    MessageStop("end_turn"),
]


async def _answer(request: ModelRequest) -> list[StreamEvent]:
    return _ANSWER


async def _tool_then_answer(request: ModelRequest) -> list[StreamEvent]:
    return _ANSWER if isinstance(request.messages[-1], ToolResultMessage) else _CALL


async def _stream(request: ModelRequest) -> list[StreamEvent]:
    return _STREAM


def build() -> Agent:
    return Agent(FunctionDriver(_answer), tools=[make_tool(add)])


_single = Agent(FunctionDriver(_answer))
_tool = Agent(FunctionDriver(_tool_then_answer), tools=[make_tool(add)])
_streamer = Agent(FunctionDriver(_stream))


async def single() -> None:
    _single.reset()
    result = await _single.run("What is 2 + 2?")
    assert result.output == TEXT, result


async def tool() -> None:
    _tool.reset()
    result = await _tool.run("What is 2 + 2?")
    assert result.output == TEXT, result
    assert sum(isinstance(m, ToolResultMessage) for m in result.messages) == 1, result


async def conversation(turns: int) -> None:
    _single.reset()
    for turn in range(turns):
        await _single.run(f"Question {turn}?")
    assert len(_single.conversation_state.loop.messages) == 2 * turns


async def stream() -> None:
    count = 0

    def on_token(text: Any) -> None:
        nonlocal count
        count += 1

    _streamer.reset()
    await _streamer.run("Go.", on_token=on_token)
    assert count == len(STREAM_DELTAS), count
