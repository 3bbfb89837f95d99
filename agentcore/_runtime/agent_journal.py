"""An agent's journal lane, mixed into ``Agent``: ``Agent.resume`` and taking over a
conversation a journal holds (one writer per lane: claimed here, released in
``aclose``), and the journal's durability points (each failure reported, never raised).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Self

import attrs

from .._core.errors import ConfigurationError
from .._core.processor import AnyProcessor
from .._journal.conversation import Conversation
from .._journal.journal import Journal
from .._journal.lanes import claim_lane, flush_journal, release_lane
from .._loop.conversation import ConversationState
from .._loop.events import AgentConfigured, AgentResume
from .._loop.state import LoopConfig
from .agent_config import AgentConfig
from .continuing import resumes_at_once
from .delivery import EngineFailure
from .options import only_agent
from .outlet import Outlet

if TYPE_CHECKING:
    from .._journal.snapshots import SnapshotStore

__all__ = ["JournalLane"]


class JournalLane:
    """``resume``, taking over and syncing a journal, over the members ``Agent`` defines."""

    agent_id: str
    config: LoopConfig
    processor: AnyProcessor
    _shell: Conversation
    _outlet: Outlet

    if TYPE_CHECKING:

        def __init__(self, model: Any, **options: Any) -> None: ...
        def initial_state(self) -> ConversationState: ...
        @classmethod
        def configure(cls, model: Any, **options: Any) -> AgentConfig: ...
        @classmethod
        def from_config(cls, config: AgentConfig) -> Self: ...

    @classmethod
    async def resume(
        cls,
        journal: Journal,
        *,
        agent_id: str | None = None,
        snapshots: SnapshotStore | None = None,
        before_resume: Callable[[Self], Awaitable[object]] | None = None,
        config: AgentConfig | None = None,
        **options: Any,
    ) -> Self:
        """The agent whose conversation ``journal`` holds, rebuilt in this process.

        ``options`` are ``Agent``'s (the model, the tools to run, presenters...); the
        journal supplies the conversation: history, queues, pending approvals, usage,
        turn and step counters. ``agent_id`` may be left out when the journal holds one
        agent. With ``snapshots``, the newest snapshot at or before the journal's end is
        loaded and only the entries after it are folded.

        Then what was in flight when the process stopped is performed again, by the
        policy of docs/journal.md ("Resume"): a model call is issued again (a reply it had
        streamed is flushed as incomplete first); a running tool call runs again if its
        tool is ``idempotent``, and is otherwise answered with an ``INTERRUPTED`` error
        result. ``await agent.wait()`` waits for a resumed run to end. If ``options``
        configure the loop differently from the journal, the new configuration is
        journaled and decides from now on. ``before_resume(agent)`` is awaited once the
        journal is folded, before anything is performed again (an ``AgentRegistry``
        rebuilds a ``handle_steps`` generator there); if it raises, nothing in flight is
        performed again and the error propagates. ``config`` (``Agent.configure``'s, its
        ``agent_id`` the default) stands for ``snapshots`` and ``options``.
        """
        if config is not None:
            if options or snapshots is not None:
                raise TypeError("Agent.resume takes config= or Agent's options, not both")
            agent_id = config.agent_id if agent_id is None else agent_id
        agent_id = agent_id if agent_id is not None else only_agent(journal)
        if not journal.last_seq(agent_id):
            where = getattr(journal, "path", None) or repr(journal)
            raise ConfigurationError(f"journal {where} holds no entry of agent {agent_id!r}")
        if config is None:
            config = cls.configure(agent_id=agent_id, snapshots=snapshots, **options)
        agent = cls.from_config(attrs.evolve(config, agent_id=agent_id))
        agent._take_over(journal)
        if before_resume is not None:
            try:
                await before_resume(agent)
            except BaseException:
                release_lane(journal, agent_id)  # no agent came of it: its lane is free
                raise
        agent._shell.feed(AgentResume())
        return agent

    def _take_over(self, journal: Journal) -> None:
        """Continue the conversation ``journal`` holds for this agent: fold it (from the
        newest snapshot), journal from now on, and journal this agent's configuration
        when it differs from the journal's."""
        from .._journal.resume import load_conversation  # with the snapshots, on first use

        shell = self._shell
        claim_lane(journal, self.agent_id)  # one writer per agent: refused here
        try:
            state = load_conversation(
                journal, self.agent_id, self.processor, self.initial_state(), shell.snapshots
            )
        except BaseException:
            release_lane(journal, self.agent_id)
            raise
        shell.state, shell.journal = state, journal
        wire = self.config.to_wire()
        if state.loop.config.to_wire() != wire:
            shell.feed(AgentConfigured(wire))

    def _continue_session(self, journal: Journal) -> None:
        """Load the session ``journal`` holds for this agent; resume a run it cut off."""
        self._take_over(journal)
        try:
            cut_off = resumes_at_once(self._shell.state)
        except BaseException:
            release_lane(journal, self.agent_id)
            raise
        if cut_off:
            self._shell.feed(AgentResume())

    @property
    def journal(self) -> Journal | None:
        """The journal every input is appended to (``None`` when there is none)."""
        journal: Journal | None = self._shell.journal
        return journal

    def _sync_journal(self) -> None:
        """A durability point of the journal (a run ended or paused, the agent closed)."""
        self._on_journal(lambda journal: journal.sync())

    def _release_journal(self) -> None:
        """Let the agent's lane in its journal go (it was this agent's since it opened the
        journal): another writer may open it now."""
        self._on_journal(lambda journal: release_lane(journal, self.agent_id))

    def _journal_barrier(self) -> None:
        """Before a tool call that is not idempotent runs: the journal writes what it holds
        back, so after a crash it shows the call was asked for (and resume answers it
        ``INTERRUPTED`` instead of running it again)."""
        self._on_journal(flush_journal)

    def _on_journal(self, act: Callable[[Journal], object]) -> None:
        """``act(journal)`` when the agent has one; a failure is reported, as every journal
        failure."""
        journal = self._shell.journal
        if journal is not None:
            try:
                act(journal)
            except Exception as exc:
                self._outlet.report(EngineFailure("journal", repr(journal), exc, None))
