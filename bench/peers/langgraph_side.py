"""LangGraph's scenarios (``create_react_agent``), its model mocked at LangChain's own
boundary (a ``BaseChatModel`` subclass whose ``_generate`` / ``_astream`` answer without a
network)."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Sequence
from typing import Any

from _runner import STREAM_DELTAS, TEXT, TOOL_ARGS
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool as lc_tool

warnings.filterwarnings("ignore")
from langgraph.prebuilt import create_react_agent  # noqa: E402


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class FakeChat(BaseChatModel):
    """Answers ``TEXT``; with ``call_tool``, first calls ``add``; streamed, it yields
    ``STREAM_DELTAS``."""

    call_tool: bool = False
    stream_deltas: bool = False

    @property
    def _llm_type(self) -> str:
        return "fake"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self

    def _message(self, messages: list[BaseMessage]) -> AIMessage:
        if self.call_tool and messages[-1].type != "tool":
            call = {"name": "add", "args": dict(TOOL_ARGS), "id": "c1", "type": "tool_call"}
            return AIMessage(content="", tool_calls=[call])
        return AIMessage(content=TEXT)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._message(messages))])

    async def _agenerate(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> ChatResult:
        return self._generate(messages)

    async def _astream(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        for delta in STREAM_DELTAS:
            yield ChatGenerationChunk(message=AIMessageChunk(content=delta))


def build() -> Any:
    return create_react_agent(FakeChat(), [lc_tool(add)])


_single = create_react_agent(FakeChat(), [])
_tool = create_react_agent(FakeChat(call_tool=True), [lc_tool(add)])
_streamer = create_react_agent(FakeChat(), [])


async def single() -> None:
    result = await _single.ainvoke({"messages": [HumanMessage("What is 2 + 2?")]})
    assert result["messages"][-1].content == TEXT


async def tool() -> None:
    result = await _tool.ainvoke({"messages": [HumanMessage("What is 2 + 2?")]})
    assert result["messages"][-1].content == TEXT
    assert result["messages"][-2].content == "4", result["messages"]


async def conversation(turns: int) -> None:
    history: list[Any] = []
    for turn in range(turns):
        history.append(HumanMessage(f"Question {turn}?"))
        history = (await _single.ainvoke({"messages": history}))["messages"]
    assert len(history) == 2 * turns


async def stream() -> None:
    count = 0
    inputs = {"messages": [HumanMessage("Go.")]}
    async for chunk, _ in _streamer.astream(inputs, stream_mode="messages"):
        if chunk.content:
            count += 1
    assert count == len(STREAM_DELTAS), count
