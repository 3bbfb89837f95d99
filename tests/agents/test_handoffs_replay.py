"""Replay of a conversation with handoffs equals the live run (property test).

Three agents that may all hand off to each other play random chains of handoffs over
several user prompts, streaming with random pauses, with random history filters: what
the presenter got live must be exactly what ``replay`` folds back from the JSONL journal
(so every handoff is read back from its wire form), whoever speaks at the end must be who
the chains say, and a resumed conversation must go on with that agent.
"""

from __future__ import annotations

import asyncio
import pathlib
import tempfile
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import ModelRequest
from agentcore.agents import AgentDefinition, AgentRegistry, Handoff, node_of
from agentcore.drivers.scripted import FunctionDriver, Pause, tool_turn
from agentcore.events import MessageDelta, MessageStart, MessageStop, TextDelta
from agentcore.journal import JsonlJournal, replay
from agentcore.loop import history_problems
from agentcore.presenters.recording import RecordingPresenter

AGENTS = ("a", "b", "c")
PAUSES = st.sampled_from([0.0, 0.0, 0.0005, 0.002])
FILTERS = st.sampled_from(["all", "summary", 1, 3])


@st.composite
def chains(draw: st.DrawFn) -> list[tuple[str, float]]:
    """Handoff targets for one prompt (never the current speaker), with pauses."""
    return draw(
        st.lists(st.tuples(st.sampled_from(AGENTS), PAUSES), max_size=4).map(
            lambda hops: [hop for i, hop in enumerate(hops) if i == 0 or hop[0] != hops[i - 1][0]]
        )
    )


def _reply(text: str, pause: float) -> list[Any]:
    return [
        MessageStart(f"m_{text}", "scripted"),
        Pause(pause),
        TextDelta(text[:3], 0),
        Pause(pause),
        TextDelta(text[3:], 0),
        MessageDelta(stop_reason="end_turn"),
        MessageStop("end_turn"),
    ]


def _registry(actions: Iterator[tuple[str, Any]], filters: dict[str, Any]) -> AgentRegistry:
    def model(name: str) -> Any:
        def play(request: ModelRequest) -> Any:
            kind, value = next(actions)
            if kind == "text":
                return _reply(f"{name} answers", value)
            args = {"summary": f"{name} says hi"} if filters[name] == "summary" else {}
            return tool_turn([(f"h{len(request.messages)}", f"transfer_to_{value}", args)])

        return play

    definitions = [
        AgentDefinition(
            name,
            f"t/{name}",
            handoffs=[Handoff(o, history=filters[name]) for o in AGENTS if o != name],
        )
        for name in AGENTS
    ]
    drivers = {name: model(name) for name in AGENTS}
    return AgentRegistry(
        definitions, driver_factory=lambda m: FunctionDriver(drivers[m.removeprefix("t/")])
    )


async def _run(prompts: list[list[tuple[str, float]]], filters: dict[str, Any], path: pathlib.Path):
    speaking = "a"
    plan: list[tuple[str, Any]] = []
    for chain in prompts:
        for target, _ in chain:
            if target != speaking:
                plan.append(("handoff", target))
                speaking = target
        plan.append(("text", chain[-1][1] if chain else 0.0))
    actions = iter(plan)
    presenter = RecordingPresenter()
    journal = JsonlJournal(path)
    agent = _registry(actions, filters).create(
        "a", journal=journal, presenters=[presenter], agent_id="chat", max_iterations=20
    )
    for _ in prompts:
        await agent.run("go")
    assert node_of(agent).speaking.id == speaking
    assert history_problems(agent.state.messages) == []
    await agent.aclose()
    journal.close()
    assert [o for _, o in replay(path, agent_id="chat")] == presenter.outputs()
    more = iter([("text", 0.0)])
    resumed = await _registry(more, filters).resume("a", JsonlJournal(path))
    assert node_of(resumed).speaking.id == speaking
    result = await resumed.run("again")
    assert result.output == f"{speaking} answers"
    await resumed.aclose()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(chains(), min_size=1, max_size=3),
    st.fixed_dictionaries({name: FILTERS for name in AGENTS}),
)
def test_replay_with_handoffs_equals_the_live_run(
    prompts: list[list[tuple[str, float]]], filters: dict[str, Any]
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(_run(prompts, filters, pathlib.Path(directory) / "chat.jsonl"))
