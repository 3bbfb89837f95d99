"""After a run ends, for any reason (a limit, a final answer given by a tool, a provider
error, a truncated or garbled stream), the agent's activity is idle (or error) and the
last state change said so: nothing polling for "idle" waits forever (the attack run's
repro: a run stopped at ``max_iterations`` right after tool results stayed ``thinking``).

Tests the private module ``agentcore._core.agent_processor``: the core's summary of a state."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import Agent, tool
from agentcore._core.agent_processor import summary
from agentcore.drivers.scripted import FunctionDriver, Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.events import (
    ConversationClose,
    ConversationStart,
    ErrorReceived,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolUseStart,
    UserMessage,
)
from agentcore.processors import (
    activity_of,
    agent_processor,
    create_initial_agent_engine_state,
)
from agentcore.state_machine import AgentState, AgentStateMachine

NOT_WORKING = (AgentState.IDLE, AgentState.ERROR)


@tool
async def lookup(key: str = "") -> str:
    """Look something up."""
    return "42"


@tool
async def slow(key: str = "") -> str:
    """Takes a while."""
    await asyncio.sleep(0.3)
    return "late"


@dataclasses.dataclass
class City:
    name: str


def _calls(n: int) -> list[Any]:
    return [tool_turn([(f"c{i}", "lookup", {})]) for i in range(n)]


def _truncated(request: Any) -> list[Any]:
    return [MessageStart("m1", "x"), TextDelta("half a rep", 0)]  # no message_stop


def _garbled(request: Any) -> list[Any]:
    return [TextDelta("no message was started", 0), MessageStop(), ToolUseStart("c9", "lookup", 0)]


async def _ended(agent: Agent, go: Callable[[], Any]) -> list[AgentState]:
    changes: list[AgentState] = []
    agent.on_state_change(lambda change: changes.append(change.current))
    with contextlib.suppress(Exception):  # a run that raises still ends
        await go()
    return changes


SCENARIOS: dict[str, Callable[[], tuple[Agent, Callable[[Agent], Any]]]] = {
    "max_iterations after tool results": lambda: (
        Agent(ScriptedDriver([*_calls(3), text_turn("done")]), tools=[lookup], max_iterations=1),
        lambda a: a.prompt("go"),
    ),
    "max_tokens on a reply asking for tools": lambda: (
        Agent(
            ScriptedDriver([tool_turn([("c1", "lookup", {})], usage={"input_tokens": 900})]),
            tools=[lookup],
            max_tokens=10,
        ),
        lambda a: a.prompt("go"),
    ),
    "timeout while a tool runs": lambda: (
        Agent(
            ScriptedDriver([tool_turn([("c1", "slow", {})]), text_turn("done")]),
            tools=[slow],
            timeout=0.1,
        ),
        lambda a: a.prompt("go"),
    ),
    "a final answer given by the output tool": lambda: (
        Agent(ScriptedDriver([tool_turn([("c1", "final_result", {"name": "Oslo"})])])),
        lambda a: a.run("city?", output_type=City, output_mode="tool"),
    ),
    "a provider error after tool results": lambda: (
        Agent(
            ScriptedDriver(
                [*_calls(1), [MessageStart("m2", "x"), ErrorReceived("boom", "PROVIDER_ERROR")]]
            ),
            tools=[lookup],
        ),
        lambda a: a.prompt("go"),
    ),
    "a truncated stream": lambda: (Agent(FunctionDriver(_truncated)), lambda a: a.prompt("go")),
    "a garbled stream": lambda: (Agent(FunctionDriver(_garbled)), lambda a: a.prompt("go")),
}


def test_every_way_a_run_ends_leaves_the_agent_not_working() -> None:
    async def main() -> None:
        for name, build in SCENARIOS.items():
            agent, go = build()
            changes = await _ended(agent, functools.partial(go, agent))
            await agent.aclose()
            assert agent.state.activity in NOT_WORKING, (name, agent.state.activity, changes)
            assert changes and changes[-1] in NOT_WORKING, (name, changes)

    asyncio.run(main())


def test_the_limit_stop_of_the_repro_goes_back_to_idle_and_the_next_run_starts_afresh() -> None:
    async def main() -> None:
        agent = Agent(ScriptedDriver([*_calls(3), text_turn("done")]), tools=[lookup])
        changes = await _ended(agent, lambda: agent.prompt("go", max_iterations=1))
        assert agent.state.error is not None and "max_iterations=1" in agent.state.error.message
        assert changes[-1] is AgentState.IDLE
        await agent.continue_()
        assert agent.state.activity is AgentState.IDLE and agent.state.error is None
        assert agent.state.messages[-1].text == "done"

    asyncio.run(main())


def test_conversation_close_ends_an_active_conversation_silently() -> None:
    """The core's side: ``conversation_close`` ends a conversation still active, and its
    turn, emitting nothing (the event itself, delivered before ``agent_end``, is the
    transition); on one already ended it changes nothing."""
    state = create_initial_agent_engine_state()
    for event in (UserMessage("u1", "go"), MessageStart("m1", "x")):
        state, _ = agent_processor(state, event)
    state, _ = agent_processor(state, ToolUseStart("c1", "lookup", 0))
    state, _ = agent_processor(state, UserMessage("u2", "a steer: the conversation goes on"))
    assert activity_of(state) is not AgentState.IDLE and summary(state)["state"]["active"]
    closed, outputs = agent_processor(state, ConversationClose("error"))
    assert outputs == () and activity_of(closed) is AgentState.IDLE
    assert not summary(closed)["state"]["active"] and summary(closed)["turns"]["open_turn"] is None
    again, outputs = agent_processor(closed, ConversationClose("completed"))
    assert outputs == () and again == closed
    machine = AgentStateMachine()  # the fold of delivered outputs agrees
    machine.process(ConversationStart("u1"))
    machine.process(ConversationClose("error"))
    assert machine.state is AgentState.IDLE


TURNS = st.lists(st.sampled_from(["tool", "text", "error", "truncated"]), min_size=1, max_size=5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=TURNS, max_iterations=st.integers(1, 4))
def test_whatever_the_model_does_a_finished_run_is_not_working(
    turns: list[str], max_iterations: int
) -> None:
    """Any script of replies (tool calls, text, provider errors, cut-off streams) under
    any iteration limit: when ``prompt`` returns, the agent is idle or in error."""
    script: list[Any] = []
    for i, kind in enumerate(turns):
        if kind == "tool":
            script.append(tool_turn([(f"c{i}", "lookup", {})]))
        elif kind == "text":
            script.append(text_turn(f"reply {i}"))
        elif kind == "error":
            script.append([MessageStart(f"m{i}", "x"), ErrorReceived("boom", "PROVIDER_ERROR")])
        else:
            script.append([MessageStart(f"m{i}", "x"), TextDelta("cut", 0), Pause(0)])
    script.append(text_turn("spare"))

    async def main() -> None:
        agent = Agent(ScriptedDriver(script), tools=[lookup], max_iterations=max_iterations)
        changes = await _ended(agent, lambda: agent.prompt("go"))
        assert agent.state.activity in NOT_WORKING, (turns, changes)
        await agent.aclose()

    asyncio.run(main())
