"""The terminal chat: commands, streaming to the presenter, interrupting a turn."""

from __future__ import annotations

import asyncio
from typing import Any

from agentcore._chat import chat, console_events
from agentcore.agent import Agent
from agentcore.cli import build_parser
from agentcore.events import (
    ConversationEnd,
    ConversationInterrupted,
    ErrorMessage,
    MessageStart,
    TextDelta,
    ToolCallMessage,
    ToolResultMessage,
)
from agentcore.loop import AgentEnd, AgentMessageStart, AgentMessageUpdate, ToolExecutionStart
from agentcore.tools import tool
from drivers.scripted import Pause, ScriptedDriver, text_turn, tool_turn


@tool
async def now() -> str:
    """The time."""
    return "noon"


def _session(agent: Agent, lines: list[str | None]) -> tuple[list[Any], str]:
    presented: list[Any] = []
    written: list[str] = []
    pending = list(lines)

    async def read_line() -> str | None:
        await asyncio.sleep(0)
        return pending.pop(0) if pending else None

    status = asyncio.run(chat(agent, read_line, presented.append, written.append))
    assert status == 0
    return presented, "".join(written)


def test_chat_streams_replies_and_tools_then_quits() -> None:
    turns = [tool_turn([("t1", "now", {})]), text_turn("It is noon.")]
    agent = Agent(ScriptedDriver(turns), tools=[now])
    presented, written = _session(agent, ["what time is it?", "", "/quit", "never read"])
    text = "".join(e.text for e in presented if isinstance(e, TextDelta))
    assert text == "It is noon."
    assert [type(e) for e in presented if isinstance(e, ToolCallMessage | ToolResultMessage)] == [
        ToolCallMessage,
        ToolResultMessage,
    ]
    assert isinstance(presented[-1], ConversationEnd) and presented[-1].reason == "completed"
    assert "/quit" in written


def test_reset_clear_and_unknown_commands() -> None:
    agent = Agent(ScriptedDriver([text_turn("one"), text_turn("two")]))
    _, written = _session(agent, ["hi", "/reset", "/clear", "/nope", "again"])
    assert "(conversation forgotten)" in written
    assert "\x1b[2J" in written
    assert "unknown command '/nope'" in written
    assert [m.content for m in agent.state.messages if hasattr(m, "content")] == ["again"]


def test_interrupting_a_turn_keeps_the_chat_going() -> None:
    slow = [*text_turn("partial reply here", chunk=2)[:3], Pause(5)]
    agent = Agent(ScriptedDriver([slow, text_turn("second answer")]))
    agent.subscribe(
        lambda e: isinstance(e, AgentMessageUpdate) and len(agent.journal) < 8 and agent.abort()
    )
    presented, _ = _session(agent, ["first", "second"])
    kinds = [type(e).__name__ for e in presented]
    assert "ConversationInterrupted" in kinds
    assert agent.state.messages[-1].text == "second answer"


def test_console_events_mapping() -> None:
    assert console_events(AgentMessageStart("assistant")) == (MessageStart("", ""),)
    assert console_events(AgentMessageStart("user")) == ()
    assert console_events(ToolExecutionStart("t", "now", {"a": 1}))[0].tool_call.input == {"a": 1}
    error = console_events(AgentEnd("error", "TIMEOUT", "too slow"))
    assert error[0] == ErrorMessage("too slow", "TIMEOUT")
    aborted = console_events(AgentEnd("aborted", "ABORTED", "x"))
    assert isinstance(aborted[0], ConversationInterrupted)


def test_chat_command_is_registered_with_its_options() -> None:
    import agentcore._chat  # noqa: F401  (registers the command)

    args = build_parser().parse_args(["chat", "--model", "ollama/qwen3", "--base-url", "http://x"])
    assert (args.model, args.base_url) == ("ollama/qwen3", "http://x")
