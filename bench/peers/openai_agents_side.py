"""OpenAI Agents' scenarios, its model mocked at its own boundary (a ``Model`` subclass
whose ``get_response`` / ``stream_response`` answer without a network)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from _runner import STREAM_DELTAS, TEXT, TOOL_ARGS
from agents import Agent, Model, ModelResponse, Runner, Usage, function_tool
from agents.tracing import set_tracing_disabled
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
)

set_tracing_disabled(True)


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _message(text: str) -> ResponseOutputMessage:
    part = ResponseOutputText(text=text, type="output_text", annotations=[], logprobs=[])
    return ResponseOutputMessage(
        id="m1", type="message", role="assistant", status="completed", content=[part]
    )


_CALL = ResponseFunctionToolCall(
    id="c1", call_id="c1", type="function_call", name="add", arguments=json.dumps(TOOL_ARGS)
)


class MockModel(Model):
    """Answers ``TEXT``; with ``call_tool``, first calls ``add``; streamed, it yields
    ``STREAM_DELTAS``."""

    def __init__(self, call_tool: bool = False) -> None:
        self.call_tool = call_tool

    def _output(self, input: Any) -> list[Any]:
        last = input[-1] if isinstance(input, list) and input else {}
        if self.call_tool and last.get("type") != "function_call_output":
            return [_CALL]
        return [_message(TEXT)]

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        return ModelResponse(output=self._output(input), usage=Usage(), response_id=None)

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        for number, delta in enumerate(STREAM_DELTAS):
            yield ResponseTextDeltaEvent(
                type="response.output_text.delta",
                item_id="m1",
                output_index=0,
                content_index=0,
                delta=delta,
                logprobs=[],
                sequence_number=number,
            )
        response = Response(
            id="r1",
            created_at=0,
            model="mock",
            object="response",
            output=[_message("".join(STREAM_DELTAS))],
            tool_choice="none",
            tools=[],
            top_p=None,
            parallel_tool_calls=False,
            status="completed",
        )
        yield ResponseCompletedEvent(
            type="response.completed", response=response, sequence_number=len(STREAM_DELTAS)
        )


def build() -> Agent[Any]:
    return Agent(name="a", model=MockModel(), tools=[function_tool(add)])


_single = Agent(name="a", model=MockModel())
_tool = Agent(name="a", model=MockModel(call_tool=True), tools=[function_tool(add)])
_streamer = Agent(name="a", model=MockModel())


async def single() -> None:
    result = await Runner.run(_single, "What is 2 + 2?")
    assert result.final_output == TEXT


async def tool() -> None:
    result = await Runner.run(_tool, "What is 2 + 2?")
    assert result.final_output == TEXT
    outputs = [item.output for item in result.new_items if item.type == "tool_call_output_item"]
    assert outputs == [4], outputs


async def conversation(turns: int) -> None:
    history: list[Any] = []
    for turn in range(turns):
        history.append({"role": "user", "content": f"Question {turn}?"})
        history = (await Runner.run(_single, history)).to_input_list()
    assert len(history) == 2 * turns


async def stream() -> None:
    count = 0
    result = Runner.run_streamed(_streamer, "Go.")
    async for event in result.stream_events():
        if event.type == "raw_response_event" and event.data.type == "response.output_text.delta":
            count += 1
    assert count == len(STREAM_DELTAS), count
