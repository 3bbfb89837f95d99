"""Agno's scenarios, its model mocked at its own boundary (a ``Model`` subclass whose
``ainvoke`` / ``ainvoke_stream`` answer without a network)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from _runner import STREAM_DELTAS, TEXT, TOOL_ARGS
from agno.agent import Agent
from agno.models.base import Model
from agno.models.message import Message
from agno.models.response import ModelResponse


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@dataclass
class MockModel(Model):
    """Answers ``TEXT``; with ``call_tool``, first calls ``add``; with ``stream``, streams
    ``STREAM_DELTAS``."""

    id: str = "mock"
    name: str = "Mock"
    provider: str = "Mock"
    call_tool: bool = False

    def _answer(self, messages: list[Message]) -> ModelResponse:
        if self.call_tool and messages[-1].role != "tool":
            call = {
                "id": "c1",
                "type": "function",
                "function": {"name": "add", "arguments": json.dumps(TOOL_ARGS)},
            }
            return ModelResponse(role="assistant", tool_calls=[call])
        return ModelResponse(role="assistant", content=TEXT)

    def invoke(self, messages: list[Message], assistant_message: Message, **_: Any) -> Any:
        return self._answer(messages)

    async def ainvoke(self, messages: list[Message], assistant_message: Message, **_: Any) -> Any:
        return self._answer(messages)

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        for delta in STREAM_DELTAS:
            yield ModelResponse(role="assistant", content=delta)

    async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ModelResponse]:
        for delta in STREAM_DELTAS:
            yield ModelResponse(role="assistant", content=delta)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]


def build() -> Agent:
    return Agent(model=MockModel(), tools=[add], telemetry=False)


_single = Agent(model=MockModel(), telemetry=False)
_tool = Agent(model=MockModel(call_tool=True), tools=[add], telemetry=False)
_streamer = Agent(model=MockModel(), telemetry=False)


async def single() -> None:
    result = await _single.arun("What is 2 + 2?")
    assert result.content == TEXT, result.content


async def tool() -> None:
    result = await _tool.arun("What is 2 + 2?")
    assert result.content == TEXT, result.content
    assert [t.result for t in result.tools or ()] == ["4"], result.tools


async def conversation(turns: int) -> None:
    history: list[Message] = []
    for turn in range(turns):
        history.append(Message(role="user", content=f"Question {turn}?"))
        result = await _single.arun(list(history))
        history.append(Message(role="assistant", content=result.content))
    assert len(history) == 2 * turns


async def stream() -> None:
    count = 0
    async for event in _streamer.arun("Go.", stream=True):
        if getattr(event, "event", "") == "RunContent" and event.content:
            count += 1
    assert count == len(STREAM_DELTAS), count
