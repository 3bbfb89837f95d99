"""Scripted models for trees of agents: each definition's model is a function of the request."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from agentcore import ModelRequest
from agentcore.agents import AgentDefinition, AgentRegistry
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests in a fresh event loop (``asyncio.run``)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
    return True


def spawner(calls: Sequence[tuple[str, str, Mapping[str, Any]]], answer: str = "done") -> Any:
    """A model that asks for ``calls`` when prompted, then answers ``answer`` followed by
    what the calls returned."""

    def model(request: ModelRequest) -> Any:
        last = request.messages[-1]
        if last.type == "user_message":
            return tool_turn(calls, model="planner-model")
        return text_turn(f"{answer}: {last.result}", model="planner-model")

    return model


def talker(*texts: str, usage: Mapping[str, int] | None = None, model: str = "child-model") -> Any:
    """A model that answers with each of ``texts`` in turn (the last one again after)."""
    said: list[str] = []

    def reply(request: ModelRequest) -> Any:
        text = texts[min(len(said), len(texts) - 1)]
        said.append(text)
        return text_turn(text, chunk=4, model=model, usage=usage)

    return reply


class Team:
    """A registry whose definitions' models ``t/<id>`` are played by ``scripts[id]``."""

    def __init__(self) -> None:
        self.requests: dict[str, list[ModelRequest]] = {}

    def registry(
        self,
        definitions: Sequence[AgentDefinition],
        scripts: Mapping[str, Callable[[ModelRequest], Any]],
        *,
        delay: float = 0.0,
        **options: Any,
    ) -> AgentRegistry:
        def factory(name: str) -> FunctionDriver:
            agent_type = name.removeprefix("t/")
            script = scripts[agent_type]

            def recorded(request: ModelRequest) -> Any:
                self.requests.setdefault(agent_type, []).append(request)
                return script(request)

            return FunctionDriver(recorded, delay=delay, name=agent_type)

        return AgentRegistry(definitions, driver_factory=factory, **options)


@pytest.fixture
def team() -> Team:
    return Team()


def define(agent_type: str, **fields: Any) -> AgentDefinition:
    return AgentDefinition(agent_type, f"t/{agent_type}", **fields)


@pytest.fixture
def helpers() -> Any:
    class H:
        spawner = staticmethod(spawner)
        talker = staticmethod(talker)
        define = staticmethod(define)

    return H
