"""``Agent.configure`` and ``Agent.from_config``: one checked, immutable ``AgentConfig``
that agents (and the registry's) are built from, the same as ``Agent(model, **options)``."""

from __future__ import annotations

import asyncio

import pytest

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import Usage
from agentcore.journal import MemoryJournal
from agentcore.pricing import ModelPrice


def test_an_agent_from_its_config_runs_as_one_built_from_the_options() -> None:
    options = {"system_prompt": "be brief", "price": ModelPrice(3, 15), "max_iterations": 4}

    async def answer(agent: Agent) -> tuple[str, float | None, str | None]:
        result = await agent.run("hello")
        await agent.aclose()
        return result.text, agent.state.cost, agent.config.system_prompt

    def driver() -> ScriptedDriver:
        return ScriptedDriver([text_turn("hi", usage=Usage(100, 20))])

    config = Agent.configure(driver(), **options)
    built = Agent.from_config(config)
    assert built.agent_config is config
    assert built.config.limits.max_iterations == 4
    direct = Agent(driver(), **options)  # type: ignore[arg-type]
    assert asyncio.run(answer(built)) == asyncio.run(answer(direct))
    assert built.config == direct.config


def test_configure_names_an_unknown_option() -> None:
    with pytest.raises(TypeError, match="'sytem_prompt'"):
        Agent.configure(ScriptedDriver([]), sytem_prompt="typo")


def test_resume_from_a_config_continues_the_journaled_conversation() -> None:
    journal = MemoryJournal()

    async def talk() -> tuple[int, str]:
        first = Agent(ScriptedDriver([text_turn("one")]), journal=journal, agent_id="a")
        await first.run("first")
        await first.aclose()
        config = Agent.configure(ScriptedDriver([text_turn("two")]), agent_id="a")
        again = await Agent.resume(journal, config=config)
        assert again.agent_config.agent_id == "a"
        result = await again.run("second")
        await again.aclose()
        return len(again.state.messages), result.text

    assert asyncio.run(talk()) == (4, "two")


def test_resume_takes_a_config_or_options_not_both() -> None:
    config = Agent.configure(ScriptedDriver([]), agent_id="a")
    with pytest.raises(TypeError, match="not both"):
        asyncio.run(Agent.resume(MemoryJournal(), config=config, system_prompt="x"))
