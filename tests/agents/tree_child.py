"""A process that runs a tree of agents on a JSONL journal, or resumes the tree from it.

    python tree_child.py run JOURNAL      # prints "ready", runs the tree, prints histories
    python tree_child.py resume JOURNAL   # resumes the tree, finishes, prints histories

The planner spawns a finder and an editor in parallel, then continues the finder's task
by its task id; the editor spawns a checker. Every model is a deterministic function of
its request and streams with small pauses, and tools take a little time, so a process
killed at a random moment is caught in every phase. ``charge`` is not idempotent: a call
to it caught running is answered ``INTERRUPTED`` on resume. The histories are printed as
one JSON object: agent id -> the wire forms of its messages.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from agentcore import BaseDriver, ModelRequest, tool
from agentcore.agents import AgentDefinition, AgentRegistry, node_of
from agentcore.events import (
    AssistantMessage,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolUseStart,
    ToolUseStop,
    to_dict,
)
from agentcore.journal import JsonlJournal
from agentcore.loop import create_conversation_machine


class Model(BaseDriver):
    """Reply n (counted by the replies in the request) is ``plan[n]``: text, or calls."""

    def __init__(self, name: str, plan: list[Any]) -> None:
        self.label = name
        self.plan = plan

    async def receive(self, request: ModelRequest) -> AsyncIterator[Any]:  # type: ignore[override]
        n = sum(isinstance(m, AssistantMessage) for m in request.messages)
        step = self.plan[min(n, len(self.plan) - 1)]
        yield MessageStart(f"{self.label}_{n}", self.label, timestamp=1)
        for i in range(4):
            await asyncio.sleep(0.003)
            yield TextDelta(f"{self.label} says {i}. ", 0, timestamp=1)
        if isinstance(step, str):
            yield TextDelta(step, 0, timestamp=1)
            yield MessageDelta(stop_reason="end_turn", usage={"output_tokens": 5}, timestamp=1)
            yield MessageStop("end_turn", timestamp=1)
            return
        for offset, (call_id, name, args) in enumerate(step):
            yield ToolUseStart(call_id, name, offset + 1, timestamp=1)
            await asyncio.sleep(0.002)
            yield InputJsonDelta(json.dumps(args), offset + 1, timestamp=1)
            yield ToolUseStop(call_id, offset + 1, timestamp=1)
        yield MessageDelta(stop_reason="tool_use", usage={"output_tokens": 3}, timestamp=1)
        yield MessageStop("tool_use", timestamp=1)


PLANS: dict[str, list[Any]] = {
    "planner": [
        [
            (
                "spawn",
                "spawn_agents",
                {
                    "agents": [
                        {"agent_type": "finder", "prompt": "find the rates"},
                        {"agent_type": "editor", "prompt": "edit the report"},
                    ]
                },
            )
        ],
        [
            (
                "again",
                "task",
                {
                    "description": "look again",
                    "prompt": "and the fees",
                    "subagent_type": "finder",
                    "task_id": "spawn.0",
                },
            )
        ],
        "the plan is done",
    ],
    "finder": [
        [("f1", "lookup", {"key": "rates"}), ("f2", "charge", {"amount": 3})],
        "rates found",
        "fees found too",
    ],
    "editor": [
        [("e1", "spawn_agents", {"agents": [{"agent_type": "checker", "prompt": "check"}]})],
        "report edited",
    ],
    "checker": [[("c1", "lookup", {"key": "style"})], "all checked"],
}


@tool(idempotent=True)
async def lookup(key: str) -> str:
    """Look a value up (safe to repeat)."""
    await asyncio.sleep(0.02)
    return f"{key}: 42"


@tool
async def charge(amount: int) -> str:
    """Charge an amount (never repeated)."""
    await asyncio.sleep(0.03)
    return f"charged {amount}"


REGISTRY = AgentRegistry(
    [
        AgentDefinition(
            "planner",
            "t/planner",
            spawnable_agents=["finder", "editor"],
            tools=["spawn_agents", "task"],
        ),
        AgentDefinition("finder", "t/finder", tools=["lookup", "charge"]),
        AgentDefinition("editor", "t/editor", spawnable_agents=["checker"]),
        AgentDefinition("checker", "t/checker", tools=["lookup"]),
    ],
    tools=[lookup, charge],
    driver_factory=lambda name: Model(name[2:], PLANS[name[2:]]),
)


def _print(agent: Any, journal: JsonlJournal) -> None:
    """Every lane's history: the agents in memory, and those the resumed tree did not need
    (children that had finished before the kill) folded from the journal."""
    histories = {
        node.agent.agent_id: [to_dict(m) for m in node.agent.state.messages]
        for node in node_of(agent).walk()
    }
    machine = create_conversation_machine()
    for entry in journal.entries():
        if entry.agent_id not in histories:
            machine.process(entry.agent_id, entry.event)
    for lane in {e.agent_id for e in journal.entries()} - set(histories):
        histories[lane] = [to_dict(m) for m in machine.state_of(lane).loop.messages]
    print(json.dumps(histories), flush=True)


async def run(path: str) -> None:
    journal = JsonlJournal(path)
    agent = REGISTRY.create("planner", journal=journal, agent_id="root")
    print("ready", flush=True)
    await agent.prompt("plan it")
    await node_of(agent).wait()
    _print(agent, journal)


async def resume(path: str) -> None:
    journal = JsonlJournal(path)
    if not journal.last_seq("root"):
        print(json.dumps({}), flush=True)
        return
    agent = await REGISTRY.resume("planner", journal, agent_id="root")
    await node_of(agent).wait()
    _print(agent, journal)


if __name__ == "__main__":
    mode, journal_path = sys.argv[1], sys.argv[2]
    asyncio.run(run(journal_path) if mode == "run" else resume(journal_path))
