"""``Agent(...)`` checks cheaply and builds on first use: whatever it defers, a bad option
still raises at construction, with the error ``Agent.configure`` gives, and the agent it
builds later is the one the options describe.

Tests the private module ``agentcore._runtime.agent``: what Agent(...) defers.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import textwrap
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn


async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def sub(a: int, b: int) -> int:
    """Subtract two numbers."""
    return a - b


ADD, SUB = tool(add), tool(sub)
DRIVER = ScriptedDriver([])

MODELS = st.sampled_from([DRIVER, "scripted/any", object(), [DRIVER], None])
TOOLS = st.sampled_from([(), [ADD], (ADD, SUB), [ADD, ADD], "add", [add], [object()], ADD])
PROMPTS = st.sampled_from([None, "be brief", ["a", "b"], 3])
EXTRA = st.sampled_from(
    [
        {},
        {"deps": {"k": 1}},
        {"max_iterations": 0},
        {"max_iterations": 3},
        {"temperature": "hot"},
        {"max_iterations": 10.0},  # equal to the default 10, not an int
        {"model_retries": False},  # equal to the default 0, a bool
        {"close_timeout": 5},
    ]
)


def _outcome(build: Any) -> tuple[str, Any]:
    try:
        return "built", build()
    except (TypeError, ValueError) as exc:  # ConfigurationError is a ValueError
        return type(exc).__name__, str(exc)


@settings(max_examples=150, deadline=None)
@given(MODELS, TOOLS, PROMPTS, EXTRA)
def test_an_agent_raises_at_construction_what_its_config_raises(
    model: Any, tools: Any, system_prompt: Any, extra: dict[str, Any]
) -> None:
    options = {"tools": tools, "system_prompt": system_prompt, **extra}
    expected = _outcome(lambda: Agent.configure(model, **options))
    got = _outcome(lambda: Agent(model, **options))
    if expected[0] != "built":
        assert got == expected
        return
    assert got[0] == "built", got
    config, wanted = got[1].agent_config, expected[1]
    if isinstance(model, list):  # a fallback chain: a new driver each time
        assert repr(config.model) == repr(wanted.model)
        config = attrs.evolve(config, model=wanted.model)
    assert config == wanted


def test_an_agent_built_on_first_use_runs_as_one_built_at_once() -> None:
    async def talk(agent: Agent) -> tuple[str, int, tuple[str, ...], int]:
        before = agent.created_at
        result = await agent.run("hello")
        await agent.aclose()
        return result.text, len(agent.state.messages), tuple(agent.config.tools_by_name), before

    def options() -> dict[str, Any]:
        return {"tools": [ADD], "system_prompt": "be brief"}

    deferred = Agent(ScriptedDriver([text_turn("hi")]), **options())
    created = deferred.created_at
    at_once = Agent.from_config(Agent.configure(ScriptedDriver([text_turn("hi")]), **options()))
    text, count, names, before = asyncio.run(talk(deferred))
    assert before == created  # the construction time, not the first use's
    assert (text, count, names) == asyncio.run(talk(at_once))[:3]


def test_the_deferral_check_reads_every_option_in_order() -> None:
    """``Agent.__init__`` lists the values of every option but ``tools``,
    ``system_prompt`` and ``deps`` in a ``fixed`` tuple, compared with their defaults
    in ``_FIXED``'s order: an option left out would be dropped by a deferred agent."""
    from agentcore._runtime import agent as module

    source = textwrap.dedent(inspect.getsource(Agent.__init__))
    assigned = next(
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == "fixed"
    )
    assert isinstance(assigned.value, ast.Tuple)
    listed = tuple(element.id for element in assigned.value.elts)  # type: ignore[attr-defined]
    options = [
        name
        for name, p in inspect.signature(Agent.__init__).parameters.items()
        if p.kind is p.KEYWORD_ONLY and name not in ("tools", "system_prompt", "deps")
    ]
    assert listed == module._FIXED == tuple(options)
