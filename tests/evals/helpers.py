"""A small recorded session (a tool call, then an answer) and configurations around it."""

from __future__ import annotations

import asyncio
from typing import Any

from agentcore import Agent, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.evals import Case, record_case
from agentcore.journal import MemoryJournal


def adder(offset: int = 0) -> Any:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b + offset

    return add


def turns(answer: str = "3") -> list[Any]:
    return [tool_turn([("c1", "add", {"a": 1, "b": 2})]), text_turn(answer)]


def config(
    *, answer: str = "3", offset: int = 0, system_prompt: str = "You add."
) -> dict[str, Any]:
    return {
        "model": ScriptedDriver(turns(answer)),
        "tools": [adder(offset)],
        "system_prompt": system_prompt,
    }


def recorded_case(**expect: Any) -> Case:
    async def record() -> MemoryJournal:
        journal = MemoryJournal()
        agent = Agent(journal=journal, agent_id="adder", **config())
        await agent.run("add 1 and 2")
        await agent.aclose()
        return journal

    return record_case(asyncio.run(record()), expect=[expect] if expect else [])
