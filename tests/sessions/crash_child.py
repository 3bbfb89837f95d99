"""A process that runs the tool-using agent of ``tests/runtime/resume_child.py`` on a SQL
journal, or resumes it; for the SIGKILL tests.

    python crash_child.py run sqlite|postgres BATCH      # prints "ready", runs
    python crash_child.py resume sqlite|postgres BATCH   # resumes, prints the history

The database is ``AGENTCORE_CRASH_DB`` (a file path or a connection string). While it
runs, the child writes ``ack <seq>`` once ``append`` returned and ``sync`` once ``sync``
returned, each with one ``write`` to stdout, so the parent knows what was accepted
before the kill.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from agentcore import Agent
from agentcore.events import to_dict
from agentcore.journal import Journal, JournalEntry, PostgresJournal, SqliteJournal
from tests.runtime.resume_child import _options


def open_journal(kind: str, batch: int) -> Journal:
    where = os.environ["AGENTCORE_CRASH_DB"]
    if kind == "sqlite":
        return SqliteJournal(where, fsync="turn", batch=batch)
    return PostgresJournal(where, fsync="turn", batch=batch)


class Acknowledging:
    """A journal that tells stdout what it accepted."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def append(self, agent_id: str, event: Any) -> int:
        seq = self.journal.append(agent_id, event)
        os.write(1, f"ack {seq}\n".encode())
        return seq

    def entries(self, agent_id: str | None = None, *, after: int = 0) -> Iterator[JournalEntry]:
        return self.journal.entries(agent_id, after=after)

    def last_seq(self, agent_id: str) -> int:
        return self.journal.last_seq(agent_id)

    def sync(self) -> None:
        self.journal.sync()
        os.write(1, b"sync\n")

    def close(self) -> None:
        self.journal.close()


async def run(kind: str, batch: int) -> None:
    journal = Acknowledging(open_journal(kind, batch))
    agent = Agent(journal=journal, agent_id="child", **_options())
    steered = False

    def steer_once(_: Any) -> None:
        nonlocal steered
        if not steered:
            steered = True
            agent.steer("also check the weather")

    agent.subscribe("tool_execution_end", steer_once)
    os.write(1, b"ready\n")
    await agent.prompt("work out the total")
    await agent.aclose()
    history = json.dumps([to_dict(m) for m in agent.state.messages])
    os.write(1, f"history {history}\n".encode())


async def resume(kind: str, batch: int) -> None:
    journal = open_journal(kind, batch)
    agent = await Agent.resume(journal, agent_id="child", **_options())
    await agent.wait()
    await agent.aclose()
    print(json.dumps([to_dict(m) for m in agent.state.messages]), flush=True)
    journal.close()


if __name__ == "__main__":
    mode, kind, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
    asyncio.run(run(kind, batch) if mode == "run" else resume(kind, batch))
