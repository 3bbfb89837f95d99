"""Agent.resume: a new agent rebuilt from the journal performs again what was in flight."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentcore import Agent, tool
from agentcore.drivers.scripted import Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.errors import ConfigurationError
from agentcore.events import AssistantMessage, ToolResultMessage, UserMessage
from agentcore.journal import JsonlJournal, MemoryJournal, MemorySnapshots, replay
from agentcore.loop import history_problems

CALLS: list[str] = []


@tool(idempotent=True)
async def lookup(key: str) -> str:
    """An idempotent lookup (slow enough to be caught running)."""
    CALLS.append(f"lookup {key}")
    await asyncio.sleep(0.05)
    return f"value of {key}"


@tool
async def charge(amount: int) -> str:
    """Not idempotent: never run twice."""
    CALLS.append(f"charge {amount}")
    await asyncio.sleep(0.05)
    return f"charged {amount}"


def _stop_midway(journal: Any, turns: list[Any], until: str) -> None:
    """Run an agent until ``until`` is delivered, then drop it as a dead process would:
    nothing is closed, nothing more is fed."""

    async def main() -> None:
        agent = Agent(ScriptedDriver(turns), tools=[lookup, charge], journal=journal, agent_id="a")
        reached = asyncio.Event()
        agent.subscribe(until, lambda _: reached.set())
        task = asyncio.create_task(agent.prompt("go"))
        await reached.wait()
        task.cancel()  # the process "dies": its state is lost, the journal stays
        agent._shell.journal = None  # nothing after the death reaches the journal
        journal.release("a")  # as the OS lets a dead process's lanes go

    asyncio.run(main())


def test_resume_runs_an_idempotent_call_again_and_answers_the_other() -> None:
    CALLS.clear()
    journal = MemoryJournal()
    turns = [tool_turn([("l1", "lookup", {"key": "k"}), ("c1", "charge", {"amount": 5})])]
    _stop_midway(journal, turns, "tool_execution_start")
    assert sorted(CALLS) == ["charge 5", "lookup k"]

    async def resumed() -> Agent:
        agent = await Agent.resume(
            journal, model=ScriptedDriver([text_turn("done")]), tools=[lookup, charge]
        )
        await agent.wait()
        return agent

    agent = asyncio.run(resumed())
    assert sorted(CALLS) == ["charge 5", "lookup k", "lookup k"]  # charge never ran twice
    results = {m.tool_call_id: m for m in agent.state.messages if isinstance(m, ToolResultMessage)}
    assert results["l1"].result == "value of k" and not results["l1"].is_error
    assert results["c1"].is_error and results["c1"].details == {"error_code": "INTERRUPTED"}
    assert "was not run again" in str(results["c1"].result)
    assert agent.state.messages[-1].text == "done"
    assert history_problems(agent.state.messages) == []


def test_resume_reissues_a_model_call_and_flushes_what_it_had_streamed() -> None:
    journal = MemoryJournal()
    turns = [[*text_turn("Hello wor", chunk=3)[:3], Pause(5)]]
    _stop_midway(journal, turns, "text_delta")
    seen: list[Any] = []

    async def resumed() -> Agent:
        agent = await Agent.resume(
            journal, model=ScriptedDriver([text_turn("Hello world")]), presenters=[], agent_id="a"
        )
        agent.subscribe(seen.append)
        await agent.wait()
        return agent

    agent = asyncio.run(resumed())
    replies = [m for m in agent.state.messages if isinstance(m, AssistantMessage)]
    assert [m.text for m in replies] == ["Hello world"]  # the cut-off reply is not history
    assert [type(m) for m in agent.state.messages] == [UserMessage, AssistantMessage]
    # the replayed journal (old and new entries) gives the flushed partial reply
    flushed = [o for _, o in replay(journal) if type(o) is AssistantMessage and o.incomplete]
    assert flushed and flushed[0].text.startswith("Hel")
    assert agent.state.iterations == 0 and agent.state.error is None


def test_resume_keeps_a_pause_for_approval_and_queued_messages(tmp_path: Any) -> None:
    @tool(requires_approval=True)
    async def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    path = tmp_path / "journal.jsonl"

    async def first() -> None:
        journal = JsonlJournal(path)
        agent = Agent(
            ScriptedDriver([tool_turn([("d1", "delete", {"path": "/x"})])]),
            tools=[delete],
            journal=journal,
            agent_id="a",
        )
        await agent.prompt("clean up")
        agent.follow_up("and then summarise")
        journal.close()  # the process ends, its journal's lock with it

    asyncio.run(first())

    async def second() -> Agent:
        agent = await Agent.resume(
            JsonlJournal(path),
            model=ScriptedDriver([text_turn("Deleted."), text_turn("Summary.")]),
            tools=[delete],
        )
        assert [c.tool_call_id for c in agent.state.pending_approvals] == ["d1"]
        assert [m.content for m in agent.state.follow_ups] == ["and then summarise"]
        await agent.approve("d1")
        return agent

    agent = asyncio.run(second())
    assert [m.text for m in agent.state.messages if isinstance(m, AssistantMessage)][-2:] == [
        "Deleted.",
        "Summary.",
    ]


def test_snapshots_change_no_result() -> None:
    journal = MemoryJournal()
    snapshots = MemorySnapshots()
    turns = [text_turn(f"reply {i}") for i in range(6)]

    async def first() -> Agent:
        agent = Agent(
            ScriptedDriver(turns),
            journal=journal,
            snapshots=snapshots,
            snapshot_every=7,
            agent_id="a",
        )
        for i in range(6):
            await agent.prompt(f"m{i}")
        return agent

    live = asyncio.run(first())
    assert snapshots.latest("a") is not None

    async def back(store: Any) -> Agent:
        # a new process over the same entries (the live agent still holds its lane)
        copy = MemoryJournal(journal.entries())
        return await Agent.resume(copy, model=ScriptedDriver([]), snapshots=store)

    with_snapshots, without = asyncio.run(back(snapshots)), asyncio.run(back(None))
    assert with_snapshots.conversation_state == without.conversation_state
    assert with_snapshots.state.messages == live.state.messages


def test_resume_needs_a_journal_with_the_agent() -> None:
    journal = MemoryJournal()
    with pytest.raises(ConfigurationError, match="holds agents \\[\\]"):
        asyncio.run(Agent.resume(journal, model=ScriptedDriver([])))
    with pytest.raises(ConfigurationError, match="no entry of agent 'x'"):
        asyncio.run(Agent.resume(journal, model=ScriptedDriver([]), agent_id="x"))
    Agent(ScriptedDriver([]), journal=journal, agent_id="a")
    with pytest.raises(ConfigurationError, match=r"already holds agent 'a'.*Agent.resume"):
        Agent(ScriptedDriver([]), journal=journal, agent_id="a")
