"""A tool asks the user (``ctx.elicit``); the agent's run pauses until the application
answers with ``answer_elicitation``; the journal replays the pause and the answer exactly.

The MCP side (a server's ``elicitation/create`` reaching the same pause) is in
tests/mcp/test_mcp_toolsets.py; these tests use a local tool, so they run without a server.
"""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest

from agentcore import Agent, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.errors import AbortedError, InvalidEventError, ProtocolError
from agentcore.events import ToolResultMessage
from agentcore.journal import JsonlJournal, MemoryJournal, replay
from agentcore.loop import ElicitationAnswer, ElicitationRequest, history_problems
from agentcore.presenters.recording import RecordingPresenter
from agentcore.tools import ToolContext

FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ANSWERS: list[ElicitationAnswer] = []


@tool
async def greet(ctx: ToolContext) -> str:
    """Ask the user for their name, then greet them."""
    answer = await ctx.elicit(ElicitationRequest("greet", "What is your name?", schema=FORM))
    ANSWERS.append(answer)
    if answer.action != "accept":
        return f"no name ({answer.action})"
    return f"hello {answer.content['name']}"


@tool(timeout=0.3)
async def impatient(ctx: ToolContext) -> str:
    """Ask, but give up after 0.3 s."""
    answer = await ctx.elicit(ElicitationRequest("impatient", "Quick!", schema=FORM))
    return str(answer.action)


def _results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


def _agent(turns: list[Any], **options: Any) -> Agent:
    return Agent(ScriptedDriver(turns), tools=[greet, impatient], **options)


def test_a_tool_that_asks_pauses_the_run_until_the_answer(tmp_path: pathlib.Path) -> None:
    ANSWERS.clear()
    path = tmp_path / "journal.jsonl"
    recorder = RecordingPresenter()
    turns = [tool_turn([("g1", "greet", {})]), text_turn("Greeted Ada.")]

    async def main() -> tuple[Any, Agent, Any]:
        agent = _agent(turns, journal=JsonlJournal(path), presenters=[recorder], agent_id="a")
        paused = await agent.run("greet me")
        (asked,) = agent.state.pending_elicitations
        assert asked.tool_call_id == "g1" and asked.source == "greet"
        assert not agent.state.is_streaming and agent.state.pending_tool_calls
        await agent.answer_elicitation(asked.elicitation_id, "accept", {"name": "Ada"})
        await agent.drain()
        return paused, agent, asked

    paused, agent, asked = asyncio.run(main())
    assert paused.status == "awaiting_elicitation" and paused.output == ""
    assert asked.message == "What is your name?" and asked.schema == FORM
    assert [r.result for r in _results(agent)] == ["hello Ada"]
    assert agent.state.messages[-1].text == "Greeted Ada." and not agent.state.pending_elicitations
    (answer,) = ANSWERS
    assert (answer.action, answer.content) == ("accept", {"name": "Ada"})
    assert answer.elicitation_id == asked.elicitation_id
    types = [o.type for o in recorder.outputs()]
    assert types.index("elicitation_request") < types.index("elicitation_answer")
    assert [o for _, o in replay(path)] == recorder.outputs()  # the pause replays exactly
    assert history_problems(list(agent.state.messages)) == []


def test_an_answer_that_does_not_fit_raises_and_the_question_stays() -> None:
    async def main() -> Agent:
        agent = _agent([tool_turn([("g1", "greet", {})]), text_turn("ok")])
        await agent.run("greet me")
        (asked,) = agent.state.pending_elicitations
        with pytest.raises(ProtocolError, match="'name' is a required property"):
            await agent.answer_elicitation(asked.elicitation_id, "accept", {})
        with pytest.raises(ProtocolError, match="no elicitation with id 'nope'"):
            await agent.answer_elicitation("nope", "decline")
        with pytest.raises(InvalidEventError, match="action"):
            await agent.answer_elicitation(asked.elicitation_id, "maybe")  # type: ignore[arg-type]
        assert agent.state.pending_elicitations == (asked,)
        await agent.answer_elicitation(asked.elicitation_id, "decline")
        return agent

    agent = asyncio.run(main())
    assert [r.result for r in _results(agent)] == ["no name (decline)"]


def test_aborting_a_paused_run_cancels_the_question_and_the_call() -> None:
    ANSWERS.clear()
    recorder = RecordingPresenter()

    async def main() -> Agent:
        agent = _agent([tool_turn([("g1", "greet", {})])], presenters=[recorder])
        await agent.run("greet me")
        agent.abort()
        await agent.wait()
        await agent.drain()
        return agent

    agent = asyncio.run(main())
    assert isinstance(agent.state.error, AbortedError)
    assert ANSWERS == []  # the call was cancelled with the run, never resumed
    (result,) = _results(agent)
    assert result.is_error and result.details == {"error_code": "ABORTED"}
    answers = [o for o in recorder.outputs() if isinstance(o, ElicitationAnswer)]
    assert [a.action for a in answers] == ["cancel"] and not agent.state.pending_elicitations


def test_a_call_that_gives_up_closes_its_question_in_the_journal() -> None:
    journal = MemoryJournal()
    turns = [tool_turn([("i1", "impatient", {})]), text_turn("It timed out.")]

    async def main() -> tuple[Agent, Any]:
        agent = _agent(turns, journal=journal, agent_id="a")
        first = await agent.run("hurry")
        assert first.status == "awaiting_elicitation"
        await asyncio.sleep(0.5)  # the tool's timeout ends the call meanwhile
        await agent.wait()
        return agent, first

    agent, _ = asyncio.run(main())
    (result,) = _results(agent)
    assert result.is_error and "timed out" in str(result.result)
    assert agent.state.messages[-1].text == "It timed out."
    answers = [o for _, o in replay(journal) if isinstance(o, ElicitationAnswer)]
    assert [a.action for a in answers] == ["cancel"]


def test_a_resumed_agent_cancels_the_question_its_dead_process_asked(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "journal.jsonl"

    async def first() -> None:
        journal = JsonlJournal(path)
        agent = _agent([tool_turn([("g1", "greet", {})])], journal=journal, agent_id="a")
        await agent.run("greet me")
        assert agent.state.pending_elicitations
        agent._shell.journal = None  # the process dies here: nothing more is journaled
        journal.close()  # and the OS lets its lock go

    asyncio.run(first())

    async def second() -> Agent:
        agent = await Agent.resume(
            JsonlJournal(path), model=ScriptedDriver([text_turn("Sorry.")]), tools=[greet]
        )
        await agent.wait()
        return agent

    agent = asyncio.run(second())
    assert not agent.state.pending_elicitations
    (result,) = _results(agent)
    assert result.is_error and result.details == {"error_code": "INTERRUPTED"}
    assert agent.state.messages[-1].text == "Sorry."


def test_elicit_is_none_outside_an_agent() -> None:
    from agentcore.tools import AbortSignal, run_tool

    ctx = ToolContext("c", "greet", AbortSignal(), (), lambda _: None)
    assert ctx.elicit is None
    out = asyncio.run(run_tool(greet, {}, ctx))
    assert out.is_error and "NoneType" in str(out.content)
