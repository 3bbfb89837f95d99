"""``agent.use`` adds a plugin as what it declares (issue 25, item 3), never guessing from
its signature: ``@middleware``, ``@extension``, or ``kind=``; anything else is a clear
``TypeError``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.extensions import ExtensionAPI, extension, tool_logger
from agentcore.middleware import middleware


def _agent() -> Agent:
    return Agent(ScriptedDriver([text_turn("a"), text_turn("b")]))


def test_a_declared_middleware_wraps_the_run() -> None:
    seen: list[str] = []

    @middleware
    async def watch(action: Any, next: Any) -> Any:
        seen.append(action.type)
        return await next(action)

    agent = _agent()
    remove = agent.use(watch)
    asyncio.run(agent.run("1"))
    remove()
    asyncio.run(agent.run("2"))
    assert seen == ["loop_start", "model_call", "loop_end"]


def test_a_declared_extension_gets_the_api_whatever_its_signature() -> None:
    got: list[Any] = []

    @extension
    def ext(api: ExtensionAPI, label: str = "x") -> None:  # two parameters: still an extension
        got.append(api)

    _agent().use(ext)
    assert len(got) == 1 and isinstance(got[0], ExtensionAPI)


def test_kind_says_what_an_undeclared_function_is() -> None:
    called: list[str] = []

    def plain(api: Any) -> None:
        called.append("extension")

    _agent().use(plain, kind="extension")
    assert called == ["extension"]


@pytest.mark.parametrize(
    "plugin",
    [lambda api: None, lambda action, next: action, "not a plugin"],
    ids=["one parameter", "two parameters", "a string"],
)
def test_an_undeclared_plugin_is_refused_with_what_to_do(plugin: Any) -> None:
    with pytest.raises(TypeError, match=r"declares neither: decorate it with @middleware"):
        _agent().use(plugin)


def test_a_declared_middleware_that_is_no_middleware_is_refused() -> None:
    @middleware
    def sync_one(action: Any) -> Any:  # declared, but not async (action, next)
        return action

    with pytest.raises(TypeError, match=r"async function \(action, next\)"):
        _agent().use(sync_one)


def test_shipped_extensions_declare_themselves() -> None:
    logged: list[Any] = []
    agent = _agent()
    dispose = agent.use(tool_logger(logged.append))
    asyncio.run(agent.run("1"))
    dispose()
