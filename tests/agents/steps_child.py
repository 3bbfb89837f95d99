"""A tree whose worker is scripted by a ``handle_steps`` generator; as a process, it runs the
tree on a JSONL journal or resumes it from one.

    python steps_child.py run JOURNAL sync|async     # prints "ready", runs, prints the result
    python steps_child.py resume JOURNAL sync|async  # resumes the tree, finishes, prints it

The planner gives the worker a task. The worker's generator yields a tool call, two calls
at once (one to ``charge``, which is not idempotent), ``STEP``, ``STEP_ALL``, ``STEP``
again after the model ended its turn (a new run), and a last tool call (appended to the
model's reply) before it returns; it decides on what it receives. Models are functions of
the request and stream with small pauses, tools take a little time, so a process killed
at a random moment is caught in every phase. The result printed is one JSON object:
``histories`` (agent id -> wire forms of its messages) and ``seen`` (what the worker's
generator received, shaped by ``received``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from agentcore import BaseDriver, ModelRequest, tool
from agentcore.agents import (
    STEP,
    STEP_ALL,
    AgentDefinition,
    AgentRegistry,
    StepContext,
    ToolCall,
    node_of,
)
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
from agentcore.journal import Journal, JsonlJournal
from agentcore.loop import create_conversation_machine

PAUSE = {"value": 0.003}
"""Seconds between two streamed chunks (the in-process tests set 0)."""

PLANS: dict[str, list[Any]] = {
    "planner": [
        [("t1", "task", {"description": "d", "prompt": "sum it up", "subagent_type": "worker"})],
        "the plan is done",
    ],
    "worker": [
        [("w1", "lookup", {"key": "f1"})],
        [("w2", "lookup", {"key": "f2"})],
        "both read",
        "summary ready",
    ],
}


class Model(BaseDriver):
    """Reply n (the model's own replies in the request) is ``PLANS[label][n]``."""

    def __init__(self, label: str) -> None:
        self.label = label

    async def receive(self, request: ModelRequest) -> AsyncIterator[Any]:  # type: ignore[override]
        n = sum(isinstance(m, AssistantMessage) and m.model == self.label for m in request.messages)
        plan = PLANS[self.label]
        step = plan[min(n, len(plan) - 1)]
        yield MessageStart(f"{self.label}_{n}", self.label, timestamp=1)
        for i in range(3):
            await asyncio.sleep(PAUSE["value"])
            yield TextDelta(f"{self.label} {i}. ", 0, timestamp=1)
        if isinstance(step, str):
            yield TextDelta(step, 0, timestamp=1)
            yield MessageDelta(stop_reason="end_turn", usage={"output_tokens": 5}, timestamp=1)
            yield MessageStop("end_turn", timestamp=1)
            return
        for offset, (call_id, name, args) in enumerate(step):
            yield ToolUseStart(call_id, name, offset + 1, timestamp=1)
            yield InputJsonDelta(json.dumps(args), offset + 1, timestamp=1)
            yield ToolUseStop(call_id, offset + 1, timestamp=1)
        yield MessageDelta(stop_reason="tool_use", usage={"output_tokens": 3}, timestamp=1)
        yield MessageStop("tool_use", timestamp=1)


@tool(idempotent=True)
async def lookup(key: str) -> str:
    """Look a value up (safe to repeat)."""
    await asyncio.sleep(5 * PAUSE["value"])
    return f"{key}: 42"


@tool
async def charge(amount: int) -> str:
    """Charge an amount (never repeated)."""
    await asyncio.sleep(8 * PAUSE["value"])
    return f"charged {amount}"


def received(value: Any) -> Any:
    """What a yield received, as JSON (the agent state as its messages' types)."""
    if isinstance(value, StepContext):
        return ["start", value.prompt, value.params, len(value.agent_state.messages)]
    results = [(r.result, r.is_error) for r in value.tool_results]
    kinds = [m.type for m in value.agent_state.messages]
    return ["result", value.steps_complete, results, kinds]


def _script(seen: list[Any], context: StepContext) -> Any:
    """The worker's plan as a generator of (what to yield, what to note about its answer)."""
    seen.append(context)
    answer = yield ToolCall("lookup", {"key": "rates"})
    seen.append(answer)
    rate = answer.tool_result.result.split(": ")[1]  # a decision on what it received
    answer = yield [ToolCall("charge", {"amount": int(rate)}), ToolCall("lookup", {"key": "fees"})]
    seen.append(answer)
    answer = yield STEP
    seen.append(answer)
    answer = yield STEP_ALL
    seen.append(answer)
    answer = yield STEP  # the model ended its turn: a new run
    seen.append(answer)
    answer = yield ToolCall("lookup", {"key": answer.agent_state.messages[-1].text[-13:]})
    seen.append(answer)


def steps(seen: list[Any], variant: str) -> Any:
    """The worker's ``handle_steps``: ``_script`` as a sync or an async generator."""

    def sync_steps(context: StepContext) -> Any:
        return (yield from _script(seen, context))

    async def async_steps(context: StepContext) -> Any:
        script = _script(seen, context)
        value = None
        while True:
            try:
                action = script.send(value)
            except StopIteration:
                return
            await asyncio.sleep(0)
            value = yield action

    return sync_steps if variant == "sync" else async_steps


def registry(seen: list[Any], variant: str) -> AgentRegistry:
    return AgentRegistry(
        [
            AgentDefinition("planner", "t/planner", spawnable_agents=["worker"], tools=["task"]),
            AgentDefinition(
                "worker", "t/worker", tools=["lookup", "charge"], handle_steps=steps(seen, variant)
            ),
        ],
        tools=[lookup, charge],
        driver_factory=lambda name: Model(name[2:]),
    )


def histories(agent: Any, journal: Journal) -> dict[str, list[Any]]:
    """Every lane's history: the agents in memory, and those the resumed tree did not
    need (children that had finished before the kill) folded from the journal."""
    found = {n.agent.agent_id: list(n.agent.state.messages) for n in node_of(agent).walk()}
    machine = create_conversation_machine()
    for entry in journal.entries():
        if entry.agent_id not in found:
            machine.process(entry.agent_id, entry.event)
    for lane in {e.agent_id for e in journal.entries()} - set(found):
        found[lane] = list(machine.state_of(lane).loop.messages)
    return found


def _print(agent: Any, journal: Journal, seen: list[Any]) -> None:
    lanes = {a: [to_dict(m) for m in h] for a, h in histories(agent, journal).items()}
    print(json.dumps({"histories": lanes, "seen": [received(v) for v in seen]}), flush=True)


async def run(path: str, variant: str) -> None:
    seen: list[Any] = []
    journal = JsonlJournal(path)
    agent = registry(seen, variant).create("planner", journal=journal, agent_id="root")
    print("ready", flush=True)
    await agent.prompt("plan it")
    await node_of(agent).wait()
    _print(agent, journal, seen)


async def resume(path: str, variant: str) -> None:
    seen: list[Any] = []
    journal = JsonlJournal(path)
    if not journal.last_seq("root"):
        print(json.dumps({"histories": {}, "seen": []}), flush=True)
        return
    agent = await registry(seen, variant).resume("planner", journal, agent_id="root")
    await node_of(agent).wait()
    _print(agent, journal, seen)


if __name__ == "__main__":
    mode, journal_path, kind = sys.argv[1:4]
    asyncio.run(run(journal_path, kind) if mode == "run" else resume(journal_path, kind))
