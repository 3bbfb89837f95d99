"""A process that runs a conversation with handoffs on a JSONL journal, or resumes it.

    python handoff_child.py run JOURNAL      # prints "ready", runs, prints the history
    python handoff_child.py resume JOURNAL   # resumes, finishes, prints the history

Triage hands off to billing, which looks an invoice up (an idempotent tool, so a call
caught running runs again), hands back to triage, which answers. Every model is a
deterministic function of its request and streams with small pauses, so a process killed
at a random moment is caught in every phase, mid-handoff included. The history is
printed as one JSON list of wire forms.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from agentcore import BaseDriver, ModelRequest, tool
from agentcore.agents import AgentDefinition, AgentRegistry, Handoff
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

PLANS: dict[str, list[Any]] = {
    "triage": [
        [("h1", "transfer_to_billing", {"summary": "the user wants invoice 7"})],
        "triage again: all sorted",
    ],
    "billing": [
        [("l1", "lookup", {"key": "invoice 7"})],
        [("h2", "transfer_to_triage", {})],
    ],
}


class Model(BaseDriver):
    """Reply n of an agent (n counted by the tool results after its own handoff into
    the conversation) is ``plan[n]``: text, or calls."""

    def __init__(self, name: str) -> None:
        self.label = name

    async def receive(self, request: ModelRequest) -> AsyncIterator[Any]:  # type: ignore[override]
        results = [m for m in request.messages if isinstance(m, ToolResultMessage)]
        n = {"triage": min(len(results), 1), "billing": len(results) - 1}[self.label]
        step = PLANS[self.label][n]
        yield MessageStart(f"{self.label}_{n}", self.label, timestamp=1)
        for i in range(4):
            await asyncio.sleep(0.003)
            yield TextDelta(f"{self.label} {i}. ", 0, timestamp=1)
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


@tool(idempotent=True)
async def lookup(key: str) -> str:
    """Look an invoice up (safe to repeat)."""
    await asyncio.sleep(0.02)
    return f"{key}: paid"


REGISTRY = AgentRegistry(
    [
        AgentDefinition("triage", "t/triage", handoffs=[Handoff("billing", history="summary")]),
        AgentDefinition("billing", "t/billing", tools=["lookup"], handoffs=["triage"]),
    ],
    tools=[lookup],
    driver_factory=lambda name: Model(name[2:]),
)


async def run(path: str) -> None:
    agent = REGISTRY.create("triage", journal=JsonlJournal(path), agent_id="chat")
    print("ready", flush=True)
    await agent.prompt("where is invoice 7?")
    print(json.dumps([to_dict(m) for m in agent.state.messages]), flush=True)


async def resume(path: str) -> None:
    journal = JsonlJournal(path)
    if not journal.last_seq("chat"):
        print(json.dumps([]), flush=True)
        return
    agent = await REGISTRY.resume("triage", journal, agent_id="chat")
    await agent.wait()
    print(json.dumps([to_dict(m) for m in agent.state.messages]), flush=True)


if __name__ == "__main__":
    mode, journal_path = sys.argv[1], sys.argv[2]
    asyncio.run(run(journal_path) if mode == "run" else resume(journal_path))
