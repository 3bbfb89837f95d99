"""pydantic-ai's scenarios, its model mocked at its own boundary (``FunctionModel``)."""

from __future__ import annotations

from typing import Any

from _runner import STREAM_DELTAS, TEXT, TOOL_ARGS
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(TEXT)])


def _tool_then_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    last = messages[-1]
    if any(getattr(part, "part_kind", "") == "tool-return" for part in last.parts):
        return ModelResponse(parts=[TextPart(TEXT)])
    return ModelResponse(parts=[ToolCallPart("add", dict(TOOL_ARGS), tool_call_id="c1")])


async def _stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
    for delta in STREAM_DELTAS:
        yield delta


def build() -> Agent[None, str]:
    return Agent(FunctionModel(_answer), tools=[add])


_single = Agent(FunctionModel(_answer))
_tool = Agent(FunctionModel(_tool_then_answer), tools=[add])
_streamer = Agent(FunctionModel(stream_function=_stream))


async def single() -> None:
    result = await _single.run("What is 2 + 2?")
    assert result.output == TEXT


async def tool() -> None:
    result = await _tool.run("What is 2 + 2?")
    assert result.output == TEXT


async def conversation(turns: int) -> None:
    history: list[ModelMessage] = []
    for turn in range(turns):
        result = await _single.run(f"Question {turn}?", message_history=history)
        history = result.all_messages()
    assert len(history) == 2 * turns


async def stream() -> None:
    count = 0
    async with _streamer.run_stream("Go.") as result:
        async for _ in result.stream_text(delta=True, debounce_by=None):
            count += 1
    assert count == len(STREAM_DELTAS), count
