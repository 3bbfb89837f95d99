"""``DurableAgent``: one durable agent behind the ``Agent`` API, for a process that serves it.

A ``DurableAgent`` runs nothing: workers do. It sends commands through a
``DurableClient`` and *follows* the agent: it folds the agent's journal (read from
PostgreSQL every ``poll`` seconds while a run it started is in flight, every
``idle_poll`` seconds otherwise, and at once when a run it started ends) and delivers
every output to its presenters, exactly as the replay of that journal gives them. While
a model call streams on a worker, the call's events arrive on the run's ``live`` stream
(``DurableRun.live``) before the step has ended; they are folded ahead of the journal
(the processor is pure and the state immutable) and their outputs delivered at once,
numbered with the sequence numbers the events will have in the journal. When the
journal catches up, the entries it holds are those events (the attempt that streamed
is the one that completed): they are not delivered twice.

A worker that dies mid-stream leaves the live events of an attempt that the journal
does not hold: the next attempt is different. Then ``on_rewind(first, last)`` is told
the sequence numbers whose outputs went out for nothing (a ``Feed`` ends its readers,
whose clients reconnect and are replayed from the journal) and the journal's events are
delivered.

``journal`` is a view for readers (``entries``, ``last_seq``): the journal as folded so
far, then the events folded ahead of it. So a ``Feed`` that replays it to a client that
just connected sees what the other clients saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .._core.agent_processor import activity_of
from .._core.state_machine import AgentState
from .._core.wire import from_dict, to_dict
from .._journal.conversation import Conversation
from .._journal.read import JournalEntry
from .._loop.conversation import AgentSnapshot, create_conversation, snapshot_of
from .._loop.events import EFFECTS, ElicitationAction
from .._loop.state import LoopConfig
from .client import DurableClient, DurableRun

__all__ = ["DurableAgent"]

_log = logging.getLogger("agentcore.durable")


class FollowedJournal:
    """The journal as a ``DurableAgent`` has folded it, then what it folded ahead."""

    def __init__(self, agent_id: str) -> None:
        self.agent_id = agent_id
        self.journaled: list[JournalEntry] = []
        self.ahead: list[Any] = []

    @property
    def end(self) -> int:
        """The last journaled entry folded."""
        return self.journaled[-1].seq if self.journaled else 0

    def entries(self, agent_id: str | None = None, *, after: int = 0) -> Iterator[JournalEntry]:
        if agent_id not in (None, self.agent_id):
            return
        yield from (e for e in self.journaled if e.seq > after)
        end = self.end
        for i, event in enumerate(self.ahead, end + 1):
            if i > after:
                yield JournalEntry(self.agent_id, i, event)

    def last_seq(self, agent_id: str) -> int:
        return self.end + len(self.ahead) if agent_id == self.agent_id else 0

    def append(self, agent_id: str, event: Any) -> int:
        raise TypeError(
            f"the journal of durable agent {agent_id!r} is written by its workers; send "
            "it commands (DurableClient) instead"
        )

    def sync(self) -> None:
        """Nothing to write."""

    def close(self) -> None:
        """Nothing to release: the client owns the connections."""


class DurableAgent:
    """Durable agent ``agent_id`` (running ``definition``) seen from this process (module
    docstring). ``presenters`` get every output, in journal order. Call ``start()``
    before anything else, ``aclose()`` at the end."""

    def __init__(
        self,
        client: DurableClient,
        agent_id: str,
        definition: str,
        *,
        presenters: Sequence[Any] = (),
        on_rewind: Callable[[int, int], object] | None = None,
        poll: float = 0.1,
        idle_poll: float = 2.0,
    ) -> None:
        self.client = client
        self.agent_id = agent_id
        self.definition = definition
        self.presenters = tuple(presenters)
        self.on_rewind = on_rewind
        self.poll, self.idle_poll = poll, idle_poll
        self.journal = FollowedJournal(agent_id)
        processor, initial = create_conversation()
        self._conversation = Conversation(processor, initial(LoopConfig()), agent_id=agent_id)
        self._streamed: Conversation | None = None
        """The journal's state, then the live events folded ahead of it."""
        self._attempt: tuple[int, int] | None = None
        self._runs: list[DurableRun] = []
        self._sending: asyncio.Future[Any] | None = None
        self._wake = asyncio.Event()
        self._caught_up = asyncio.Event()
        self._follower: asyncio.Task[None] | None = None
        self._tails: set[asyncio.Task[None]] = set()
        self._reading = asyncio.Lock()

    # -- what it holds ----------------------------------------------------------------------

    @property
    def conversation_state(self) -> Any:
        """The state folded so far (the journal's, then what streams ahead of it)."""
        return (self._conversation if self._streamed is None else self._streamed).state

    @property
    def state(self) -> AgentSnapshot:
        return snapshot_of(self.conversation_state)

    @property
    def activity(self) -> AgentState:
        return activity_of(self.conversation_state.core)

    # -- lifecycle --------------------------------------------------------------------------

    async def load(self) -> None:
        """Fold the journal so far; its outputs are not delivered (before ``start``)."""
        entries = await asyncio.to_thread(self._read, 0)
        self.journal.journaled.extend(entries)
        self._conversation.catch_up(e.event for e in entries)

    def start(self) -> None:
        """Follow the journal (and the live streams of the runs this object starts)."""
        if self._follower is None:
            self._follower = asyncio.get_running_loop().create_task(self._follow())

    async def aclose(self) -> None:
        """Stop following; idempotent. Runs go on on the workers."""
        tasks = [t for t in (self._follower, *self._tails) if t is not None]
        self._follower = None
        self._tails.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task

    destroy = aclose

    # -- commands ---------------------------------------------------------------------------

    async def prompt(self, message: str | Any | Sequence[Any], **limits: Any) -> None:
        """Submit a run and wait for it (and for the agent's outputs up to its end)."""
        await self._settled()
        run = await self.client.submit(self.agent_id, self.definition, message, **limits)
        await self._wait(self._started(run))

    async def approve(self, tool_call_id: str) -> None:
        await self._settled()
        await self._wait(self._started(await self.client.approve(self.agent_id, tool_call_id)))

    async def reject(self, tool_call_id: str, reason: str | None = None) -> None:
        await self._settled()
        run = await self.client.reject(self.agent_id, tool_call_id, reason)
        await self._wait(self._started(run))

    async def answer_elicitation(
        self,
        elicitation_id: str,
        action: ElicitationAction = "accept",
        content: Mapping[str, Any] | None = None,
    ) -> None:
        """Answer a question a tool call asked on a worker (``DurableClient``'s); returns
        when the run it paused ends."""
        await self._settled()
        client, agent_id = self.client, self.agent_id
        run = await client.answer_elicitation(agent_id, elicitation_id, action, content)
        await self._wait(self._started(run))

    def steer(self, message: str | Any) -> None:
        """Send ``message`` as a steer (sent in order with this agent's other commands)."""
        self._send(self.client.steer, message)

    def follow_up(self, message: str | Any) -> None:
        self._send(self.client.follow_up, message)

    def abort(self, reason: str = "user") -> None:
        """Abort the running run (a streaming model call is cut within a quarter second)."""
        self._send(self.client.abort, reason)

    interrupt = abort

    async def wait(self) -> None:
        """Return once the runs this agent started have ended and their outputs are out."""
        await self._settled()
        for run in list(self._runs):
            await self._wait(run)

    # -- following --------------------------------------------------------------------------

    def _send(self, command: Any, argument: Any) -> None:
        previous = self._sending

        async def send() -> None:
            if previous is not None:
                with contextlib.suppress(Exception):
                    await previous
            self._started(await command(self.agent_id, argument))

        self._sending = asyncio.ensure_future(send())
        self._sending.add_done_callback(_logged)

    async def _settled(self) -> None:
        """Wait for the commands sent before (so commands reach the inbox in order)."""
        if self._sending is not None:
            with contextlib.suppress(Exception):
                await self._sending

    def _started(self, run: DurableRun) -> DurableRun:
        self._runs.append(run)
        tail = asyncio.get_running_loop().create_task(self._tail(run))
        self._tails.add(tail)
        tail.add_done_callback(self._tails.discard)
        return run

    async def _wait(self, run: DurableRun) -> None:
        result = await run.result()
        while self.journal.end < result["seq"]:
            self._caught_up.clear()
            self._wake.set()
            await self._caught_up.wait()
        if run in self._runs:
            self._runs.remove(run)

    async def _tail(self, run: DurableRun) -> None:
        async for batch in run.live():
            if batch["after"] > self.journal.end:  # the call began after what we read
                await self._catch_up()
            self._ahead(batch)

    async def _follow(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._wake.wait(), self.poll if self._runs else self.idle_poll
                )
            self._wake.clear()
            try:
                await self._catch_up()
            except Exception:  # the database is away: try again on the next beat
                _log.exception("reading the journal of %s failed", self.agent_id)
                continue
            self._caught_up.set()

    async def _catch_up(self) -> None:
        """Fold the journal's new entries (one reader at a time)."""
        async with self._reading:
            for entry in await asyncio.to_thread(self._read, self.journal.end):
                self._journaled(entry)

    def _read(self, after: int) -> list[JournalEntry]:
        return list(self.client.journal.entries(self.agent_id, after=after))

    def _journaled(self, entry: JournalEntry) -> None:
        """Fold a journal entry; deliver its outputs unless they went out ahead."""
        journal = self.journal
        ahead = journal.ahead
        outputs = self._conversation.replayed(entry.event)
        if ahead and to_dict(ahead[0]) == to_dict(entry.event):
            journal.journaled.append(entry)
            ahead.pop(0)
            if not ahead:
                self._streamed = self._attempt = None
            return
        if ahead:
            self._rewind(entry.seq)
        journal.journaled.append(entry)
        self._deliver(outputs)

    def _ahead(self, batch: dict[str, Any]) -> None:
        """Fold a live batch ahead of the journal (module docstring)."""
        journal = self.journal
        attempt = (batch["after"], batch["attempt"])
        if batch["after"] != journal.end:
            return  # the journal is past it already, or we are behind it: it will come
        if self._attempt != attempt:
            if journal.ahead:  # another attempt of the call streamed ahead before
                self._rewind(journal.end + 1)
            main = self._conversation
            self._attempt = attempt
            self._streamed = Conversation(main.processor, main.state, agent_id=self.agent_id)
        assert self._streamed is not None
        for wire in batch["events"]:
            event = from_dict(wire)
            journal.ahead.append(event)
            self._deliver(self._streamed.replayed(event))

    def _rewind(self, seq: int) -> None:
        """Outputs from ``seq`` on went out for events the journal does not hold."""
        journal = self.journal
        last = journal.end + len(journal.ahead)
        journal.ahead.clear()
        self._streamed = self._attempt = None
        if self.on_rewind is not None:
            self.on_rewind(seq, last)

    def _deliver(self, outputs: Sequence[Any]) -> None:
        for output in outputs:
            if type(output) in EFFECTS:
                continue
            for presenter in self.presenters:
                try:
                    presenter.present(self.agent_id, output)
                except Exception:  # a failing presenter never stops the others
                    _log.exception("presenter %r failed", presenter)


def _logged(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        _log.error("a command to a durable agent failed", exc_info=task.exception())
