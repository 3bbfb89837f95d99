"""A session: one agent's conversation in a journal, and the seed's memory shape over it.

``Session(journal, session_id, snapshots)`` names a conversation in any journal (memory,
JSONL, SQLite, PostgreSQL); ``Agent(model, session=...)`` (or ``journal=`` with
``session_id=``) continues it when the journal holds it and starts it otherwise. The
session id is the agent's ``agent_id``: the key of its entries.

``Session`` is what ``Agent`` reads as its ``SessionRef`` (``agentcore._runtime.continuing``):
the runtime never imports this folder, which builds on it. A session loads through
``load_conversation`` (``agentcore._journal.resume``).

``JournalMemory`` offers the seed's ``MemoryProvider`` (``load``, ``save``, ``clear``) over
a journal, for code written against it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from .._edges.clock import ms_clock
from .._journal.journal import Journal
from .._journal.resume import load_conversation
from .._journal.snapshots import SnapshotStore
from .._loop.conversation import conversation_processor, create_initial_conversation_state
from .._loop.events import AgentConfigured, AgentReset
from .._loop.state import LoopConfig

__all__ = ["JournalMemory", "Session"]


@attrs.frozen
class Session:
    """A conversation kept in ``journal`` under ``session_id`` (its agent's ``agent_id``),
    with ``snapshots`` to load it fast (optional)."""

    journal: Journal = attrs.field()
    session_id: str = attrs.field(validator=attrs.validators.instance_of(str))
    snapshots: SnapshotStore | None = None

    @journal.validator
    def _is_a_journal(self, _attribute: Any, value: Any) -> None:
        if not isinstance(value, Journal):
            raise TypeError(f"Session needs a Journal, got {value!r}")


class JournalMemory:
    """The seed's ``MemoryProvider`` over a journal: a session's history, by session id.

    ``load`` folds the session (from the newest snapshot in ``snapshots`` when given) and
    returns its messages (``[]`` for an unknown session). ``save`` journals an
    ``agent_reset`` holding ``messages``, so the session's history becomes them (a new
    session first gets an ``agent_configured`` with the default configuration, as every
    journal starts). ``clear`` journals an empty ``agent_reset``: the history is
    forgotten, the journal keeps the past (``Sessions.delete`` erases it). Entries are
    timestamped with ``clock`` (ms).
    """

    def __init__(
        self,
        journal: Journal,
        *,
        snapshots: SnapshotStore | None = None,
        clock: Callable[[], int] = ms_clock,
    ) -> None:
        self.journal = journal
        self.snapshots = snapshots
        self._clock = clock

    async def load(self, session_id: str) -> list[Any]:
        if not self.journal.last_seq(session_id):
            return []
        state = load_conversation(
            self.journal,
            session_id,
            conversation_processor,
            create_initial_conversation_state(),
            self.snapshots,
        )
        return list(state.loop.messages)

    async def save(self, session_id: str, messages: Sequence[Any]) -> None:
        now = self._clock()
        if not self.journal.last_seq(session_id):
            self.journal.append(session_id, AgentConfigured(LoopConfig().to_wire(), timestamp=now))
        self.journal.append(session_id, AgentReset(tuple(messages), timestamp=now))
        self.journal.sync()

    async def clear(self, session_id: str) -> None:
        if self.journal.last_seq(session_id):
            self.journal.append(session_id, AgentReset((), timestamp=self._clock()))
            self.journal.sync()
