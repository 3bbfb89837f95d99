"""A process that runs an agent on a batching SQLite journal (``batch=16``) whose model asks
for two tool calls at once, ``lookup`` (idempotent) and ``charge`` (not), or resumes it.

    python batch_kill_child.py run DB LEDGER      # prints "ready", runs
    python batch_kill_child.py resume DB LEDGER   # resumes, finishes, prints the history

Each execution of a tool appends one line to ``LEDGER`` (its side effect), so the parent
counts how often each ran across a SIGKILL and the resume.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from agentcore import Agent, tool
from agentcore.drivers.scripted import FunctionDriver, Pause, text_turn, tool_turn
from agentcore.events import ToolResultMessage, to_dict
from agentcore.journal import SqliteJournal

DB, LEDGER = sys.argv[2], sys.argv[3]


def _effect(line: str) -> None:
    with open(LEDGER, "a") as f:
        f.write(line + "\n")


@tool(idempotent=True)
async def lookup(key: str) -> str:
    """Look a value up (safe to repeat)."""
    _effect(f"lookup {key}")
    await asyncio.sleep(0.02)
    return f"{key}: 42"


@tool
async def charge(amount: int) -> str:
    """Charge an amount (never twice)."""
    await asyncio.sleep(0.05)  # wide windows before and after the effect, for the kills
    _effect(f"charge {amount}")
    await asyncio.sleep(0.05)
    return f"charged {amount}"


def model(request: Any) -> Any:
    if not any(isinstance(m, ToolResultMessage) for m in request.messages):
        calls = [("l1", "lookup", {"key": "rates"}), ("c1", "charge", {"amount": 100})]
        return [Pause(0.01), *tool_turn(calls, text="Paying the invoice now. " * 6)]
    return [Pause(0.01), *text_turn("Paid. " * 12, chunk=4)]


def _options() -> dict[str, Any]:
    return {"model": FunctionDriver(model), "tools": [lookup, charge]}


async def main(mode: str) -> None:
    journal = SqliteJournal(DB, batch=16)
    if mode == "run":
        agent = Agent(journal=journal, agent_id="A", **_options())
        print("ready", flush=True)
        await agent.prompt("pay the invoice")
    elif not journal.last_seq("A"):  # killed before the batch was first written
        print("[]", flush=True)
        return
    else:
        agent = await Agent.resume(journal, agent_id="A", **_options())
        await agent.wait()
    await agent.aclose()
    journal.close()
    print(json.dumps([to_dict(m) for m in agent.state.messages]), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
