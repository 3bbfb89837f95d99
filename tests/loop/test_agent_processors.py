"""A user's own processor plugged into an Agent: it sees every input and output, its
outputs are delivered in order, its state replays with the rest."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.errors import ConfigurationError
from agentcore.events import AssistantMessage, ErrorMessage, event_type
from agentcore.journal import MemoryJournal
from agentcore.loop import EFFECTS
from agentcore.testing import assert_replays


@event_type("test_word_count", "custom")
@attrs.frozen(slots=True)
class WordCount:
    """Emitted by the test processor after each assistant message."""

    type: ClassVar[str] = "test_word_count"
    words: int
    total: int
    timestamp: int = attrs.field(default=0, kw_only=True)


def word_counter(state: tuple[int, tuple[str, ...]], event: Any) -> tuple[Any, tuple[Any, ...]]:
    """Counts the words of every assistant message; remembers every type it saw."""
    total, seen = state
    seen = (*seen, event.type)
    if type(event) is AssistantMessage:
        words = len(event.text.split())
        return (total + words, seen), (WordCount(words, total + words, timestamp=event.timestamp),)
    return (total, seen), ()


@tool
async def echo(text: str) -> str:
    """Echo the text."""
    return text


def _agent(turns: list[Any], journal: Any = None, **kw: Any) -> tuple[Agent, list[Any]]:
    agent = Agent(
        ScriptedDriver(turns),
        tools=[echo],
        processors={"words": (word_counter, lambda: (0, ()))},
        journal=journal,
        **kw,
    )
    delivered: list[Any] = []
    agent.subscribe(delivered.append)
    return agent, delivered


def test_a_processor_sees_everything_and_its_outputs_are_delivered_after_the_step() -> None:
    journal = MemoryJournal()
    agent, delivered = _agent(
        [tool_turn([("t1", "echo", {"text": "a b"})]), text_turn("one two three")], journal
    )
    asyncio.run(agent.prompt("go"))
    counts = [o for o in delivered if type(o) is WordCount]
    assert [(c.words, c.total) for c in counts] == [(0, 0), (3, 3)]
    # each count is delivered after the outputs of the built-in processors for that step
    first = delivered.index(counts[0])
    assert type(delivered[first - 1]) is not WordCount
    # it saw every input and every output, in delivery order, its own excepted
    total, seen = agent.conversation_state.words
    inputs = [e.event.type for e in journal.entries()]
    assert [t for t in seen if t in {"agent_configured", "agent_prompt"}] == [
        t for t in inputs if t in {"agent_configured", "agent_prompt"}
    ]
    others = [o.type for o in delivered if type(o) is not WordCount]
    assert [t for t in seen if t not in {"agent_configured", "agent_prompt"}] == [
        t for t in others if t not in {"agent_configured", "agent_prompt"}
    ]
    assert total == 3
    assert_replays(agent, delivered)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(alphabet="ab ", min_size=1, max_size=12), min_size=1, max_size=4))
def test_its_state_replays_for_any_conversation(replies: list[str]) -> None:
    journal = MemoryJournal()
    agent, delivered = _agent([text_turn(r) for r in replies], journal)

    async def run() -> None:
        for i in range(len(replies)):
            await agent.prompt(f"m{i}")

    asyncio.run(run())
    assert agent.conversation_state.words[0] == sum(len(r.split()) for r in replies)
    assert_replays(agent, delivered)


def test_a_failing_processor_is_reported_and_the_agent_goes_on() -> None:
    def broken(state: int, event: Any) -> tuple[int, tuple[Any, ...]]:
        if type(event) is AssistantMessage:
            raise ValueError("cannot count")
        return state + 1, ()

    agent = Agent(
        ScriptedDriver([text_turn("hi"), text_turn("again")]), processors={"b": (broken, lambda: 0)}
    )
    delivered: list[Any] = []
    agent.subscribe(delivered.append)
    asyncio.run(agent.prompt("one"))
    asyncio.run(agent.prompt("two"))
    errors = [o for o in delivered if type(o) is ErrorMessage and o.code == "PROCESSOR_ERROR"]
    assert len(errors) == 2 and "processor 'b' failed on assistant_message" in errors[0].message
    assert "ValueError: cannot count" in errors[0].message
    assert agent.state.messages[-1].text == "again"
    assert all(type(o) not in EFFECTS for o in delivered)


def test_processor_mistakes_are_named() -> None:
    with pytest.raises(ConfigurationError, match="taken by the built-in loop"):
        Agent(ScriptedDriver([]), processors={"loop": (word_counter, lambda: (0, ()))})
    with pytest.raises(
        ConfigurationError, match=r"processors\['x'\] must be \(processor, initial_state"
    ):
        Agent(ScriptedDriver([]), processors={"x": word_counter})  # type: ignore[dict-item]
