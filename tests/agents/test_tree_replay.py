"""Replay of a tree equals the live run, whatever the children's timings (property test).

Children stream with random pauses between their events, some call a tool that takes a
random time, some spawn a grandchild, and the root may be aborted at a random moment: the
root's presenter must get exactly what ``replay_tree`` folds back from the journal (a
JSONL file, so every lineage is read back from its wire form), and every history of the
tree must be one a provider accepts.
"""

from __future__ import annotations

import asyncio
import pathlib
import tempfile
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import ModelRequest, tool
from agentcore.agents import AgentDefinition, AgentRegistry, SubagentEvent, node_of, replay_tree
from agentcore.drivers.scripted import FunctionDriver, Pause, tool_turn
from agentcore.events import MessageDelta, MessageStart, MessageStop, TextDelta, ToolResultMessage
from agentcore.journal import JsonlJournal
from agentcore.loop import history_problems
from agentcore.presenters.recording import RecordingPresenter

PAUSES = st.sampled_from([0.0, 0.0, 0.0005, 0.001, 0.003])


@st.composite
def child_plans(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "chunks": draw(st.lists(PAUSES, min_size=1, max_size=6)),
        "tool": draw(st.none() | PAUSES),
        "grandchild": draw(st.booleans()),
    }


@tool
async def wait(seconds: float) -> str:
    """Wait a while."""
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


def _reply(pauses: list[float], label: str) -> list[Any]:
    items: list[Any] = [MessageStart(f"m_{label}", "scripted")]
    for i, pause in enumerate(pauses):
        items += [Pause(pause), TextDelta(f"{label}-{i} ", 0)]
    return [*items, MessageDelta(stop_reason="end_turn"), MessageStop("end_turn")]


def _child_model(plan: dict[str, Any], label: str) -> Any:
    def model(request: ModelRequest) -> Any:
        done = sum(isinstance(m, ToolResultMessage) for m in request.messages)
        if done == 0 and plan["grandchild"]:
            args = {"agents": [{"agent_type": "leaf", "prompt": "below"}]}
            return tool_turn([(f"g_{label}", "spawn_agents", args)], message_id=f"g_{label}")
        if done <= int(plan["grandchild"]) and plan["tool"] is not None:
            return tool_turn(
                [(f"w_{label}", "wait", {"seconds": plan["tool"]})], message_id=f"w_{label}"
            )
        return _reply(plan["chunks"], label)

    return model


async def _run(plans: list[dict[str, Any]], abort_after: float | None, path: pathlib.Path) -> None:
    spawn = {"agents": [{"agent_type": f"c{i}", "prompt": "go"} for i in range(len(plans))]}

    def root(request: ModelRequest) -> Any:
        if request.messages[-1].type == "user_message":
            return tool_turn([("spawn", "spawn_agents", spawn)])
        return _reply([0.0], "root")

    scripts: dict[str, Any] = {"root": root, "leaf": lambda request: _reply([0.001, 0.0], "leaf")}
    definitions = [
        AgentDefinition("root", "t/root", spawnable_agents=[f"c{i}" for i in range(len(plans))]),
        AgentDefinition("leaf", "t/leaf"),
    ]
    for i, plan in enumerate(plans):
        scripts[f"c{i}"] = _child_model(plan, f"c{i}")
        definitions.append(
            AgentDefinition(f"c{i}", f"t/c{i}", tools=["wait"], spawnable_agents=["leaf"])
        )
    registry = AgentRegistry(
        definitions,
        tools=[wait],
        driver_factory=lambda name: FunctionDriver(scripts[name.removeprefix("t/")]),
    )
    presenter = RecordingPresenter()
    journal = JsonlJournal(path)
    agent = registry.create("root", journal=journal, presenters=[presenter], agent_id="root")
    run = asyncio.create_task(agent.prompt("go"))
    if abort_after is not None:
        await asyncio.sleep(abort_after)
        agent.abort()
    await asyncio.wait_for(run, 20)
    node = node_of(agent)
    await asyncio.wait_for(node.wait(), 20)
    for n in node.walk():
        assert history_problems(n.agent.state.messages) == [], n.agent.agent_id
    await node.aclose()
    journal.close()
    live = presenter.outputs()
    assert [o for _, o in replay_tree(path, "root")] == live
    lanes = {o.agent_id for o in live if isinstance(o, SubagentEvent)}
    if abort_after is None:
        assert {f"root/spawn.{i}" for i in range(len(plans))} <= lanes


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(child_plans(), min_size=1, max_size=4),
    st.none() | st.sampled_from([0.0, 0.002, 0.005, 0.01]),
)
def test_replay_of_a_tree_equals_the_live_run(plans: list[dict[str, Any]], abort: float | None):
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(_run(plans, abort, pathlib.Path(directory) / "tree.jsonl"))
