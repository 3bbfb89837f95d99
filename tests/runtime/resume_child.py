"""A process that runs a tool-using agent on a JSONL journal, or resumes one from it.

    python resume_child.py run JOURNAL      # prints "ready", then runs the conversation
    python resume_child.py resume JOURNAL   # resumes, finishes, prints the history as JSON

The model is a deterministic function of the request (it counts the tool results it
was sent), so a run and a resumed run ask for the same calls; tools sleep a little, so a
process killed at a random moment is caught in every phase. The first tool result makes
the run steer once ("also check the weather"): an input accepted before a kill must be
in the final history.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from agentcore import Agent, BaseDriver, ModelRequest, tool
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    to_dict,
)
from agentcore.journal import JsonlJournal

PLAN = [
    [("lookup", {"key": "rates"}), ("charge", {"amount": 3})],
    [("lookup", {"key": "fees"})],
]


class CountingModel(BaseDriver):
    """Turn n asks for PLAN[n]'s calls; after the last, it answers in text."""

    async def receive(self, request: ModelRequest) -> AsyncIterator[Any]:  # type: ignore[override]
        done = sum(isinstance(m, ToolResultMessage) for m in request.messages)
        step = {0: 0, 2: 1}.get(done)
        yield MessageStart(f"msg_{done}", "counting-model", timestamp=1)
        for i in range(8):
            await asyncio.sleep(0.003)
            yield TextDelta(f"w{i} ", 0, timestamp=1)
        if step is None:
            yield MessageDelta(stop_reason="end_turn", timestamp=1)
            yield MessageStop("end_turn", timestamp=1)
            return
        for offset, (name, args) in enumerate(PLAN[step]):
            call_id = f"call_{step}_{offset}"
            yield ToolUseStart(call_id, name, offset + 1, timestamp=1)
            await asyncio.sleep(0.003)
            yield InputJsonDelta(json.dumps(args), offset + 1, timestamp=1)
            yield ToolUseStop(call_id, offset + 1, timestamp=1)
        yield MessageDelta(stop_reason="tool_use", timestamp=1)
        yield MessageStop("tool_use", timestamp=1)


@tool(idempotent=True)
async def lookup(key: str) -> str:
    """Look a value up (safe to repeat)."""
    await asyncio.sleep(0.03)
    return f"{key}: 42"


@tool
async def charge(amount: int) -> str:
    """Charge an amount (never repeated)."""
    await asyncio.sleep(0.04)
    return f"charged {amount}"


def _options() -> dict[str, Any]:
    return {"model": CountingModel(), "tools": [lookup, charge], "max_iterations": 10}


async def run(path: str) -> None:
    agent = Agent(journal=JsonlJournal(path), agent_id="child", **_options())
    steered = False

    def steer_once(_: Any) -> None:
        nonlocal steered
        if not steered:
            steered = True
            agent.steer("also check the weather")

    agent.subscribe("tool_execution_end", steer_once)
    print("ready", flush=True)
    await agent.prompt("work out the total")
    print(json.dumps([to_dict(m) for m in agent.state.messages]), flush=True)


async def resume(path: str) -> None:
    journal = JsonlJournal(path)
    agent = await Agent.resume(journal, agent_id="child", **_options())
    await agent.wait()
    print(json.dumps([to_dict(m) for m in agent.state.messages]), flush=True)


if __name__ == "__main__":
    mode, journal_path = sys.argv[1], sys.argv[2]
    asyncio.run(run(journal_path) if mode == "run" else resume(journal_path))
