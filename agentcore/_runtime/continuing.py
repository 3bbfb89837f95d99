"""How an ``Agent`` continues a conversation a journal holds.

``Agent(session=...)`` takes anything shaped as ``SessionRef`` (``agentcore.sessions``'
``Session`` is one): the runtime names what it reads and never imports the sessions
folder, which builds on the runtime (DESIGN.md, Layout). ``open_session`` turns the
``session``/``session_id``/``journal`` options into a journal and an id;
``resumes_at_once`` says whether the loaded conversation was cut off mid-run.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .._core.errors import ConfigurationError
from .._journal.journal import Journal

if TYPE_CHECKING:
    from .._journal.snapshots import SnapshotStore

__all__ = ["SessionRef", "open_session", "resumes_at_once"]


@runtime_checkable
class SessionRef(Protocol):
    """A conversation kept in ``journal`` under ``session_id``, with ``snapshots`` to load
    it fast (or ``None``)."""

    @property
    def journal(self) -> Journal: ...

    @property
    def session_id(self) -> str: ...

    @property
    def snapshots(self) -> SnapshotStore | None: ...


def open_session(
    session: SessionRef | None,
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
        if not isinstance(session, SessionRef):
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
