"""Sessions on every backend: an agent continues a session another agent left, a run
with skip_memory_save is forgotten by an input the journal keeps, a session cut off
mid-run resumes when opened, and the seed's memory provider shape over a journal."""

from __future__ import annotations

import asyncio
import pathlib
from unittest.mock import ANY

import pytest

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.errors import ConfigurationError
from agentcore.events import MessageStart, TextDelta, Usage, UserMessage
from agentcore.journal import LaneBusyError, MemoryJournal, SqliteJournal
from agentcore.loop import AgentConfigured, AgentPrompt, LoopConfig, RunForgotten
from agentcore.sessions import JournalMemory, Session
from agentcore.testing import assert_replays
from tests.sessions.conftest import Backend


def _texts(messages: tuple[object, ...]) -> list[tuple[str, str]]:
    return [
        (m.type, getattr(m, "content", None) or getattr(m, "text", ""))  # type: ignore[attr-defined]
        for m in messages
    ]


def test_a_session_goes_on_across_agents_and_processes(backend: Backend) -> None:
    async def main() -> None:
        journal, snapshots = backend.open()
        first = Agent(
            ScriptedDriver([text_turn("Hello!")]),
            session=Session(journal, "s1", snapshots),
            snapshot_every=3,
        )
        assert first.agent_id == "s1"
        assert (await first.run("hi")).output == "Hello!"
        await first.aclose()
        journal.close()

        journal, snapshots = backend.open()  # a new process, the same storage
        second = Agent(
            ScriptedDriver([text_turn("Again!")]),
            journal=journal,
            session_id="s1",
            snapshots=snapshots,
        )
        assert _texts(second.state.messages) == [
            ("user_message", "hi"),
            ("assistant_message", "Hello!"),
        ]
        assert (await second.run("more")).output == "Again!"
        await second.aclose()
        assert _texts(second.state.messages)[2:] == [
            ("user_message", "more"),
            ("assistant_message", "Again!"),
        ]
        seqs = [e.seq for e in journal.entries("s1")]
        assert seqs == list(range(1, len(seqs) + 1))
        journal.close()

    asyncio.run(main())


def test_session_options_that_contradict_each_other_are_refused(tmp_path: pathlib.Path) -> None:
    journal = MemoryJournal()
    driver = ScriptedDriver([])
    with pytest.raises(ConfigurationError, match="needs the journal"):
        Agent(driver, session_id="s1")
    with pytest.raises(ConfigurationError, match="contradicts the session's id"):
        Agent(driver, journal=journal, session_id="s1", agent_id="other")
    with pytest.raises(ConfigurationError, match="contradicts session="):
        Agent(driver, session=Session(journal, "s1"), session_id="s2")
    with pytest.raises(ConfigurationError, match="not both"):
        Agent(driver, session=Session(journal, "s1"), journal=MemoryJournal())
    with pytest.raises(ConfigurationError, match="session must be a Session"):
        Agent(driver, session="s1")  # type: ignore[arg-type]
    first = Agent(driver, journal=journal, session_id="s1", messages=[UserMessage("u0", "earlier")])
    with pytest.raises(ConfigurationError, match="has a history already"):
        Agent(driver, journal=journal, session_id="s1", messages=[UserMessage("u1", "x")])
    with pytest.raises(ConfigurationError, match="already holds agent"):
        Agent(driver, journal=journal, agent_id="s1")  # without session=: a mistake
    with pytest.raises(LaneBusyError, match="'s1'"):
        Agent(driver, journal=journal, session_id="s1")  # the first one still writes it
    asyncio.run(first.aclose())
    again = Agent(driver, journal=journal, session_id="s1")
    assert _texts(again.state.messages) == [("user_message", "earlier")]
    journal.close()


def test_a_run_with_skip_memory_save_is_forgotten_by_a_journaled_input(backend: Backend) -> None:
    """The run's exchange leaves the conversation's memory; the journal stays append-only
    and truthful: the run, then the ``run_forgotten`` that dropped it, and what it spent
    still counts."""

    async def main() -> None:
        journal, snapshots = backend.open()
        used = Usage(10, 5)
        turns = [text_turn(t, usage=used) for t in ("One", "Secret", "Two")]
        driver = ScriptedDriver(turns)
        agent = Agent(driver, session=Session(journal, "s1", snapshots))
        await agent.run("first")
        entries = list(journal.entries("s1"))
        before = agent.state
        result = await agent.run("forget me", skip_memory_save=True)
        assert result.output == "Secret"
        assert _texts(result.messages) == [
            ("user_message", "forget me"),
            ("assistant_message", "Secret"),
        ]
        after = list(journal.entries("s1"))
        assert after[: len(entries)] == entries  # append-only
        assert after[-1].event == RunForgotten(len(before.messages), timestamp=ANY)
        assert agent.state.messages == before.messages
        assert agent.state.usage == before.usage + used  # what it spent still counts
        await agent.prompt("second")
        assert [t for _, t in _texts(agent.state.messages)] == ["first", "One", "second", "Two"]
        assert [t for _, t in _texts(driver.requests[2].messages)] == ["first", "One", "second"]
        await agent.aclose()
        journal.close()
        journal, snapshots = backend.open()
        again = Agent(ScriptedDriver([]), session=Session(journal, "s1", snapshots))
        assert [t for _, t in _texts(again.state.messages)] == ["first", "One", "second", "Two"]
        journal.close()

    asyncio.run(main())


def test_replay_equals_live_across_a_forgotten_run(tmp_path: pathlib.Path) -> None:
    async def main() -> None:
        journal = SqliteJournal(tmp_path / "s.db")
        delivered: list[object] = []
        driver = ScriptedDriver([text_turn("One"), text_turn("Skipped"), text_turn("Two")])
        agent = Agent(driver, journal=journal, session_id="s1")
        agent.subscribe(delivered.append)
        await agent.prompt("a")
        mark = len(delivered)
        await agent.prompt("b", skip_memory_save=True)
        assert len(delivered) > mark  # the forgotten run is delivered, and journaled
        await agent.prompt("c")
        assert "b" not in [getattr(m, "content", None) for m in agent.state.messages]
        assert_replays(agent, delivered)
        await agent.aclose()

    asyncio.run(main())


def _cut_off(journal: object) -> None:
    """A journal whose run stopped while the model was streaming (a killed process)."""
    config = LoopConfig().to_wire()
    for event in [
        AgentConfigured(config, timestamp=1),
        AgentPrompt((UserMessage("u1", "hi", timestamp=2),), timestamp=2),
        MessageStart("m1", "scripted-model", timestamp=3),
        TextDelta("Hal", 0, timestamp=4),
    ]:
        journal.append("s1", event)  # type: ignore[attr-defined]


def test_a_session_cut_off_mid_run_resumes_when_opened(backend: Backend) -> None:
    journal, snapshots = backend.open()
    _cut_off(journal)
    with pytest.raises(ConfigurationError, match="cut off in the middle of a run"):
        Agent(ScriptedDriver([]), session=Session(journal, "s1", snapshots))

    async def main() -> None:
        agent = Agent(ScriptedDriver([text_turn("Hello")]), session=Session(journal, "s1"))
        await agent.wait()
        assert _texts(agent.state.messages) == [
            ("user_message", "hi"),
            ("assistant_message", "Hello"),
        ]
        await agent.aclose()

    asyncio.run(main())
    journal.close()


def test_journal_memory_is_the_seeds_memory_provider(backend: Backend) -> None:
    async def main() -> None:
        journal, snapshots = backend.open()
        memory = JournalMemory(journal, snapshots=snapshots, clock=lambda: 7)
        assert await memory.load("s1") == []
        await memory.clear("s1")  # nothing to clear: nothing journaled
        assert journal.last_seq("s1") == 0
        history = [UserMessage("u1", "remember me", timestamp=1)]
        await memory.save("s1", history)
        assert await memory.load("s1") == history
        agent = Agent(ScriptedDriver([text_turn("I do")]), session=Session(journal, "s1"))
        await agent.run("do you?")
        await agent.aclose()
        loaded = await memory.load("s1")
        assert _texts(tuple(loaded)) == [
            ("user_message", "remember me"),
            ("user_message", "do you?"),
            ("assistant_message", "I do"),
        ]
        await memory.clear("s1")
        assert await memory.load("s1") == []
        assert journal.last_seq("s1") > 2  # the past is still journaled
        journal.close()

    asyncio.run(main())
