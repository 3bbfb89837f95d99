"""Sub-agents: what spawning a child costs, and how fast 100 children stream into a parent.

Printed, each the best of a few rounds (a busy machine inflates a figure, never lowers it):

- per child, for a parent asking in one reply for 100 ``task`` calls whose children each
  answer one short reply: the whole cost (the parent's share, building the child
  ``Agent``, its lineage, prompting it, tagging its events into the parent's stream, its
  outcome); the same with 100 calls of a plain tool that builds and prompts an ``Agent``
  itself; and the difference: the overhead of spawning (target: under 1 ms);
- events per second reaching one presenter of the parent while 100 children stream 200
  text deltas each at once (every event tagged as a ``SubagentEvent``).

Run with ``python -m bench subagents``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from agentcore import Agent, tool
from agentcore.agents import AgentDefinition, AgentRegistry, SubagentEvent, TreeLimits
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn

CHILDREN = 100
DELTAS = 200
ROUNDS = 5


class Counter:
    """A presenter that only counts what it is given (and the tagged events)."""

    def __init__(self) -> None:
        self.count = 0
        self.tagged = 0

    def present(self, agent_id: str, output: Any) -> None:
        self.count += 1
        if type(output) is SubagentEvent:
            self.tagged += 1


def _registry(reply: list[Any], tool_name: str) -> AgentRegistry:
    """A parent asking in one reply for ``CHILDREN`` calls of ``tool_name`` (the ``task``
    tool, or a plain tool that runs an agent itself)."""
    args = {"description": "work", "prompt": "go", "subagent_type": "child"}
    calls = [(f"c{i}", tool_name, args) for i in range(CHILDREN)]

    def parent(request: Any) -> Any:
        if request.messages[-1].type == "user_message":
            return tool_turn(calls)
        return text_turn("done")

    def factory(name: str) -> Any:
        return FunctionDriver(parent if name == "b/parent" else (lambda request: reply))

    @tool(name="plain_child")
    async def plain_child(description: str, prompt: str, subagent_type: str) -> str:
        """Run an agent without the spawning machinery: the baseline."""
        agent = Agent(FunctionDriver(lambda request: reply), presenters=[Counter()])
        await agent.prompt(prompt)
        return agent.state.messages[-1].text

    return AgentRegistry(
        [
            AgentDefinition("parent", "b/parent", spawnable_agents=["child"], tools=[tool_name]),
            AgentDefinition("child", "b/child"),
        ],
        tools=[plain_child],
        driver_factory=factory,
        limits=TreeLimits(max_agents=CHILDREN, max_running=CHILDREN),
    )


async def _run(reply: list[Any], tool_name: str) -> tuple[float, Counter]:
    counter = Counter()
    agent = _registry(reply, tool_name).create("parent", presenters=[counter])
    start = time.perf_counter()
    await agent.prompt("go")
    elapsed = time.perf_counter() - start
    assert agent.state.error is None
    results = [m for m in agent.state.messages if m.type == "tool_result_message"]
    assert len(results) == CHILDREN and not any(r.is_error for r in results)
    return elapsed, counter


def _overhead() -> None:
    reply = text_turn("ok")
    spawned = min(asyncio.run(_run(reply, "task"))[0] for _ in range(ROUNDS)) / CHILDREN
    plain = min(asyncio.run(_run(reply, "plain_child"))[0] for _ in range(ROUNDS)) / CHILDREN
    extra = spawned - plain
    print(f"per child, task tool (build, run, tag, outcome): {spawned * 1e3:6.3f} ms  (best)")
    print(f"per child, a tool running a plain Agent:         {plain * 1e3:6.3f} ms  (best)")
    print(
        f"  overhead of spawning a child:                  {extra * 1e3:6.3f} ms  "
        f"[{'OK' if extra < 1e-3 else 'SLOW'}, < 1 ms]"
    )


def _streaming() -> None:
    reply = text_turn("x" * DELTAS, chunk=1)
    best = None
    for _ in range(ROUNDS):
        elapsed, counter = asyncio.run(_run(reply, "task"))
        rate = counter.count / elapsed
        best = rate if best is None else max(best, rate)
        events = counter.count
    print(
        f"{CHILDREN} children x {DELTAS} deltas into one parent presenter: "
        f"{best:,.0f} events/s ({events:,} events, best)"
    )


def main() -> None:
    _overhead()
    _streaming()


if __name__ == "__main__":
    main()
