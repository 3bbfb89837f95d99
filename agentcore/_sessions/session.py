"""A session is one agent's journal: opening it, folding it, and the seed's memory shape.

``Session(journal, session_id, snapshots)`` names a conversation in any journal (memory,
JSONL, SQLite, PostgreSQL); ``Agent(model, session=...)`` (or ``journal=`` with
``session_id=``) continues it when the journal holds it and starts it otherwise. The
session id is the agent's ``agent_id``: the key of its entries.

``load_conversation`` is the fold both ``Agent.resume`` and a session use: the newest
usable snapshot, then the entries after it. A snapshot that cannot be loaded (damaged,
or made by an agent with other processors) is passed over for a full fold: snapshots
change how long a load takes, never what it gives.

``JournalMemory`` offers the seed's ``MemoryProvider`` (``load``, ``save``, ``clear``) over
a journal, for code written against it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .._core.errors import ConfigurationError
from .._core.processor import AnyProcessor
from .._journal.journal import Journal
from .._journal.resume import fold_state, journal_events, load_state
from .._journal.snapshots import SnapshotStore
from .._loop.conversation import conversation_processor, create_initial_conversation_state
from .._loop.events import AgentConfigured, AgentReset
from .._loop.state import LoopConfig
from .._runtime.outlet import ms_clock

if TYPE_CHECKING:
    from .._journal.conversation import Conversation

__all__ = [
    "Detached",
    "JournalMemory",
    "Session",
    "load_conversation",
    "open_session",
    "resumes_at_once",
]


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


def open_session(
    session: Session | None,
    session_id: str | None,
    journal: Journal | None,
    snapshots: SnapshotStore | None,
    agent_id: str | None,
) -> tuple[Journal | None, SnapshotStore | None, str | None, bool]:
    """``Agent``'s ``session``/``session_id`` options as ``(journal, snapshots, agent_id,
    whether the journal already holds the conversation)``. Raises ``ConfigurationError``
    for options that contradict each other."""
    if session is None and session_id is None:
        return journal, snapshots, agent_id, False
    if session is not None:
        if not isinstance(session, Session):
            raise ConfigurationError(f"session must be a Session, got {session!r}")
        if session_id is not None and session_id != session.session_id:
            raise ConfigurationError(
                f"session_id={session_id!r} contradicts session={session.session_id!r}"
            )
        if journal is not None and journal is not session.journal:
            raise ConfigurationError("pass the journal in the Session or as journal=, not both")
        journal, session_id = session.journal, session.session_id
        snapshots = snapshots if snapshots is not None else session.snapshots
    if journal is None:
        raise ConfigurationError(
            f"session_id={session_id!r} needs the journal that keeps the session: journal="
        )
    if not isinstance(session_id, str):
        raise ConfigurationError(f"session_id must be a string, got {session_id!r}")
    if agent_id is not None and agent_id != session_id:
        raise ConfigurationError(
            f"agent_id={agent_id!r} contradicts the session's id {session_id!r} (a session "
            "is its agent's journal: leave agent_id out)"
        )
    return journal, snapshots, session_id, journal.last_seq(session_id) > 0


def load_conversation(
    journal: Journal,
    agent_id: str,
    processor: AnyProcessor,
    template: Any,
    snapshots: SnapshotStore | None = None,
) -> Any:
    """The conversation state of ``agent_id`` after its last entry: ``template`` (a fresh
    state of ``processor``) with the newest usable snapshot loaded, then the entries after
    it folded (module docstring)."""
    state, after = template, 0
    if snapshots is not None:
        found = snapshots.latest(agent_id, at_most=journal.last_seq(agent_id))
        if found is not None:
            try:
                state, after = load_state(found[1], template), found[0]
            except Exception:  # unusable: fold it all (the journal is the truth)
                state, after = template, 0
    return fold_state(processor, state, journal_events(journal, agent_id, after))


def resumes_at_once(state: Any) -> bool:
    """Whether a conversation loaded in this state was cut off mid-run (a model call or
    tool calls in flight, an approval pending), so the agent must feed ``agent_resume``.
    Raises ``ConfigurationError`` when that would perform effects with no event loop
    running."""
    phase = state.loop.phase
    if phase == "idle":
        return False
    if phase != "approval":
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise ConfigurationError(
                "this session was cut off in the middle of a run: open it from async code "
                "(the run resumes at once) or with await Agent.resume(...)"
            ) from None
    return True


class Detached:
    """What a run with ``skip_memory_save`` sets aside: the shell's journal, snapshot
    store and state. ``restore`` puts them back, so the agent forgets the run as its
    journal never saw it."""

    __slots__ = ("_journal", "_snapshots", "_state")

    def __init__(self, shell: Conversation) -> None:
        self._journal, self._snapshots, self._state = shell.journal, shell.snapshots, shell.state
        shell.journal = shell.snapshots = None

    def restore(self, shell: Conversation) -> None:
        shell.journal, shell.snapshots, shell.state = self._journal, self._snapshots, self._state


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
