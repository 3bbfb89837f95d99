"""The journal lane a durable workflow's fold writes, and the presenters it delivers to."""

from __future__ import annotations

from typing import Any

from .._journal.read import JournalError
from .._journal.sql.postgres import PostgresJournal
from .._runtime.outlet import Outlet
from .definitions import Definition

__all__ = ["Lane", "presenters_outlet"]


class Lane:
    """The journal as the workflow's fold writes it: every input gets the next sequence
    number and is appended only past what the journal holds (``fresh``; a recovered
    workflow folds its recorded steps again), checked against the journal's answer.
    ``now`` is the latest input's time (what the workflow's own inputs are stamped with,
    so a replayed workflow stamps them the same)."""

    def __init__(self, journal: PostgresJournal) -> None:
        self.journal = journal
        self.seq = self.written = self.now = 0
        self.fresh = False

    def append(self, agent_id: str, event: Any) -> int:
        self.seq += 1
        self.now = max(self.now, event.timestamp)
        self.fresh = self.seq > self.written
        if self.fresh:
            seq = self.journal.append(agent_id, event)
            if seq != self.seq:
                raise JournalError(
                    f"agent {agent_id!r}: journal at {seq}, expected {self.seq} (another "
                    "process writes this agent's journal)"
                )
            self.written = seq
        return self.seq


def presenters_outlet(agent_id: str, definition: Definition) -> Outlet | None:
    """The conversation's presenters (the definition's), and the extensions' ``event``
    hooks (the template agent's subscribers, reached through ``Agent.relay``)."""
    extensions = bool(definition.options.get("extensions"))
    if not definition.presenters and not extensions:
        return None
    outlet = Outlet(agent_id, definition.presenters, 10_000)
    if extensions:
        outlet.subscribe(definition.template.relay)
    return outlet
