"""The terminal chat: commands, the agent's presenters, interrupting a turn.

Tests the private module ``agentcore._app.chat``: the chat command's read-answer loop."""

from __future__ import annotations

import asyncio
from typing import Any

from agentcore._app.chat import chat
from agentcore.agent import Agent
from agentcore.cli import build_parser
from agentcore.drivers.scripted import Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.events import (
    ConversationEnd,
    ConversationInterrupted,
    TextDelta,
    ToolCallMessage,
    ToolResultMessage,
    TurnResponse,
)
from agentcore.presenters.recording import RecordingPresenter
from agentcore.tools import tool


@tool
async def now() -> str:
    """The time."""
    return "noon"


def _agent(turns: list[Any]) -> tuple[Agent, RecordingPresenter]:
    presenter = RecordingPresenter()
    return Agent(ScriptedDriver(turns), tools=[now], presenters=[presenter]), presenter


def _session(agent: Agent, lines: list[str | None]) -> str:
    written: list[str] = []
    pending = list(lines)

    async def read_line() -> str | None:
        await asyncio.sleep(0)
        return pending.pop(0) if pending else None

    status = asyncio.run(chat(agent, read_line, written.append))
    assert status == 0
    return "".join(written)


def test_chat_streams_replies_tools_and_turn_footers_then_quits() -> None:
    turns = [tool_turn([("t1", "now", {})], usage={"output_tokens": 3})]
    turns.append(text_turn("It is noon.", usage={"output_tokens": 4}))
    agent, presenter = _agent(turns)
    written = _session(agent, ["what time is it?", "", "/quit", "never read"])
    text = "".join(e.text for e in presenter.outputs(type=TextDelta))
    assert text == "It is noon."
    assert [type(e) for e in presenter.outputs(type=(ToolCallMessage, ToolResultMessage))] == [
        ToolCallMessage,
        ToolResultMessage,
    ]
    (footer,) = presenter.outputs(type=TurnResponse)
    assert footer.usage.output_tokens == 7 and footer.stop_reason == "end_turn"
    (end,) = presenter.outputs(type=ConversationEnd)
    assert end.reason == "completed"
    assert presenter.types()[-1] == "agent_end"
    assert "/quit" in written


def test_reset_clear_and_unknown_commands() -> None:
    agent, _ = _agent([text_turn("one"), text_turn("two")])
    written = _session(agent, ["hi", "/reset", "/clear", "/nope", "again"])
    assert "(conversation forgotten)" in written
    assert "\x1b[2J" in written
    assert "unknown command '/nope'" in written
    assert [m.content for m in agent.state.messages if hasattr(m, "content")] == ["again"]


def test_interrupting_a_turn_keeps_the_chat_going() -> None:
    slow = [*text_turn("partial reply here", chunk=2)[:3], Pause(5)]
    agent, presenter = _agent([slow, text_turn("second answer")])
    updates: list[Any] = []

    def abort_on_second_delta(event: Any) -> None:
        if isinstance(event, TextDelta) and len(updates) < 2:
            updates.append(event)
            if len(updates) == 2:
                agent.abort()

    agent.subscribe(abort_on_second_delta)
    _session(agent, ["first", "second"])
    assert presenter.outputs(type=ConversationInterrupted)
    assert agent.state.messages[-1].text == "second answer"
    assert agent.state.messages[1].incomplete


def test_chat_command_is_registered_with_its_options() -> None:
    import agentcore._app.chat  # noqa: F401  (registers the command)

    args = build_parser().parse_args(["chat", "--model", "ollama/qwen3", "--base-url", "http://x"])
    assert (args.model, args.base_url) == ("ollama/qwen3", "http://x")


def test_chat_fails_before_the_first_prompt_without_a_key_or_a_provider(
    capsys: Any, monkeypatch: Any
) -> None:
    from agentcore.cli import main

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr("builtins.input", lambda *_: (_ for _ in ()).throw(AssertionError("read")))
    assert main(["chat", "--model", "anthropic/claude-sonnet-4-5"]) == 2
    err = capsys.readouterr().err
    assert "ANTHROPIC_API_KEY" in err and "--api-key KEY" in err
    assert main(["chat", "--model", "nowhere/model"]) == 2
    assert "unknown provider 'nowhere'" in capsys.readouterr().err
