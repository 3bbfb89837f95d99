"""``DurableClient``: submit runs to durable agents, send them inputs, read their events.

Every command (a prompt, a steer, a follow-up, an approval, an abort) is stamped here,
appended durably to the agent's inbox, and followed by one ``agentcore_advance``
workflow enqueued on the ``agentcore`` queue under the agent's partition (DBOS runs one
advance of an agent at a time, on any worker). The workflow that takes the command
folds it: a steer sent during a run reaches that run before its next model call; a
prompt sent during a run waits for the run to end (the agent's prompts are a queue,
as ``Agent.receive``'s are). The client needs no agent definition: workers hold them.

A ``DurableRun`` is the advance a command started: ``result()`` waits for it (the agent
at rest: its status, the last reply's text, the run's error), ``events()`` yields every
output its fold delivered (each layer, in order, decoded), ``live()`` the model's stream
events while they stream. ``history(agent_id)`` is the agent's conversation, folded from
its journal.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import attrs

from .._core.errors import InvalidEventError, ProtocolError
from .._core.events import UserMessage
from .._core.machine import MealyMachine
from .._core.wire import from_dict, to_dict
from .._edges.clock import ms_clock, new_id
from .._journal.replay import replay
from .._journal.resume import fold_state, journal_events
from .._journal.sql.postgres import PostgresJournal
from .._loop.conversation import create_conversation, create_conversation_machine
from .._loop.elicitations import answer_problem
from .._loop.events import (
    AgentAbort,
    AgentContinue,
    AgentFollowUp,
    AgentPrompt,
    AgentSteer,
    ElicitationAction,
    ElicitationAnswer,
    ToolApproval,
)
from .._loop.state import LoopConfig
from .asking import EVENTS
from .conversation import LIVE
from .notices import Notices
from .store import ENDED, Store
from .worker import QUEUE, WORKFLOW, dbos_url

__all__ = ["DurableClient", "DurableRun"]

_ACTIVE = frozenset({"ENQUEUED", "PENDING", "DELAYED"})
"""DBOS's statuses of a workflow that has not ended."""


class DurableRun:
    """The advance workflow one command started (module docstring)."""

    def __init__(self, client: DurableClient, agent_id: str, workflow_id: str) -> None:
        self.agent_id = agent_id
        self.workflow_id = workflow_id
        self._client = client

    def __repr__(self) -> str:
        return f"DurableRun({self.agent_id!r}, {self.workflow_id!r})"

    async def result(self, timeout: float | None = None) -> dict[str, Any]:
        """Wait for the advance to end: ``{"agent_id", "status", "seq", "text", "error"}``
        (``status``: ``completed``, ``awaiting_approval``, ``aborted``, or ``failed``
        when the run ended with an error, where ``Agent.run`` would raise it: ``error``
        holds its ``code`` and ``message``). ``TimeoutError`` after ``timeout`` seconds; a workflow
        that failed raises its error."""
        handle: Any = await self._client.dbos.retrieve_workflow_async(self.workflow_id)

        async def ended() -> bool:
            return (await handle.get_status()).status not in _ACTIVE

        await asyncio.wait_for(self._client.endings.wait(self.workflow_id, ended), timeout)
        result: dict[str, Any] = await handle.get_result()
        return result

    async def events(self) -> AsyncIterator[Any]:
        """Every output the advance delivered, decoded, until it ends."""
        stream = self._client.dbos.read_stream_async(
            self.workflow_id, EVENTS, polling_interval_sec=0.05
        )
        async for batch in stream:
            for output in batch:
                yield from_dict(output)

    async def live(self) -> AsyncIterator[dict[str, Any]]:
        """The model calls' stream events while they stream: ``{"agent_id", "call",
        "attempt", "after", "events"}`` batches (``events`` in wire form; ``after`` is the
        journal's end when the call began: its events will be the inputs after it, in
        order, if this attempt completes). A worker that died
        mid-call leaves a batch or more of an attempt that the next attempt repeats:
        the journal (and ``events()``) holds the attempt that completed."""
        stream = self._client.dbos.read_stream_async(
            self.workflow_id, LIVE, polling_interval_sec=0.02
        )
        async for batch in stream:
            yield batch


class DurableClient:
    """A client of the workers serving ``database_url`` (a ``postgresql://`` URL).

    The DBOS system database must exist (a worker creates it when first launched).
    ``clock`` stamps commands. Close with ``close()`` or ``async with``.
    """

    def __init__(
        self,
        database_url: str,
        *,
        app_version: str = "agentcore-1",
        clock: Callable[[], int] = ms_clock,
    ) -> None:
        from dbos import DBOSClient

        self.url = dbos_url(database_url)
        self.app_version = app_version
        self._clock = clock
        self.store = Store(self.url, max_connections=2)
        self.journal = PostgresJournal(self.url, max_connections=2)
        self.dbos = DBOSClient(system_database_url=self.url, system_database_pool_size=4)
        self.endings = Notices(self.url, ENDED)
        """Wakes ``result()`` when its workflow ends (a trigger the workers install)."""
        self.endings.listening(5)

    async def __aenter__(self) -> DurableClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the connections; idempotent."""
        self.endings.close()
        self.dbos.destroy()
        self.journal.close()
        self.store.close()

    # -- commands -------------------------------------------------------------------------

    async def submit(
        self,
        agent_id: str,
        definition: str,
        message: str | Any | Sequence[Any],
        **limits: Any,
    ) -> DurableRun:
        """Prompt agent ``agent_id`` (created, running ``definition``, by its first
        prompt); ``limits`` as ``AgentPrompt``'s (``max_iterations``...). The run starts
        when the agent is at rest (it queues behind a run in progress)."""
        await asyncio.to_thread(self.store.adopt, agent_id, definition)
        messages = message if isinstance(message, list | tuple) else [message]
        now = self._clock()
        prompt = AgentPrompt(tuple(self._message(m, now) for m in messages), **limits)
        return await self.send(agent_id, prompt)

    async def steer(self, agent_id: str, message: str | Any) -> DurableRun:
        """Deliver ``message`` before the running run's next model call (or the next
        run's first, when none runs)."""
        return await self.send(agent_id, AgentSteer(self._message(message, self._clock())))

    async def follow_up(self, agent_id: str, message: str | Any) -> DurableRun:
        """Deliver ``message`` when the agent would otherwise stop."""
        return await self.send(agent_id, AgentFollowUp(self._message(message, self._clock())))

    async def approve(self, agent_id: str, tool_call_id: str) -> DurableRun:
        return await self.send(agent_id, ToolApproval(tool_call_id, True))

    async def reject(
        self, agent_id: str, tool_call_id: str, reason: str | None = None
    ) -> DurableRun:
        return await self.send(agent_id, ToolApproval(tool_call_id, False, reason))

    async def answer_elicitation(
        self,
        agent_id: str,
        elicitation_id: str,
        action: ElicitationAction = "accept",
        content: Mapping[str, Any] | None = None,
    ) -> DurableRun:
        """Answer a question a tool call asked on a worker (an ``elicitation_request`` in
        ``events()``; the run waits, paused, inside its advance): ``accept`` with
        ``content`` (the form's fields), ``decline`` or ``cancel``, as
        ``Agent.answer_elicitation``. The step that waits takes the answer within a tenth
        of a second, the call goes on, and the run with it (``result()`` of the advance
        that asked). ``ProtocolError`` for an id nothing waits for, or content that does
        not fit the form (naming what is wrong); ``InvalidEventError`` for an unknown
        action."""
        if action not in ("accept", "decline", "cancel"):
            raise InvalidEventError(
                f"elicitation action must be 'accept', 'decline' or 'cancel', got {action!r}"
            )
        answer = ElicitationAnswer(action, content, elicitation_id)
        waiting = self._state(agent_id).loop.run
        pending = () if waiting is None else waiting.elicitations
        request = next((p for p in pending if p.elicitation_id == elicitation_id), None)
        if request is None:
            ids = [p.elicitation_id for p in pending]
            raise ProtocolError(
                f"agent {agent_id!r}: no elicitation with id {elicitation_id!r} awaits an "
                f"answer; waiting: {ids}"
            )
        problem = answer_problem(request, answer)
        if problem is not None:
            raise ProtocolError(f"agent {agent_id!r}, elicitation {elicitation_id!r}: {problem}")
        return await self.send(agent_id, answer)

    async def abort(self, agent_id: str, reason: str = "user") -> DurableRun:
        """Abort the running run: a model call streaming now is cut within a quarter of a
        second, tools running now finish first (their results are kept)."""
        return await self.send(agent_id, AgentAbort(reason))

    async def continue_(self, agent_id: str) -> DurableRun:
        return await self.send(agent_id, AgentContinue())

    async def send(self, agent_id: str, command: Any) -> DurableRun:
        """Append ``command`` (a loop command event) to the agent's inbox and enqueue an
        advance for it. ``KeyError`` for an agent never prompted."""
        definition = await asyncio.to_thread(self.store.definition_of, agent_id)
        if command.timestamp == 0:
            command = attrs.evolve(command, timestamp=self._clock())
        text = json.dumps(to_dict(command))
        n = await asyncio.to_thread(self.store.post, agent_id, command.type, text)
        workflow_id = f"{agent_id}:{n}"
        await self.dbos.enqueue_async(
            {
                "workflow_name": WORKFLOW,
                "queue_name": QUEUE,
                "workflow_id": workflow_id,
                "queue_partition_key": agent_id,
                "app_version": self.app_version,
            },
            agent_id,
            definition,
        )
        return DurableRun(self, agent_id, workflow_id)

    # -- reading --------------------------------------------------------------------------

    def history(self, agent_id: str) -> tuple[Any, ...]:
        """The agent's conversation (its messages), folded from its journal now."""
        return tuple(self._state(agent_id).loop.messages)

    def _state(self, agent_id: str) -> Any:
        """The agent's conversation state, folded from its journal now."""
        self.journal.forget(agent_id)
        processor, initial = create_conversation()
        events = journal_events(self.journal, agent_id)
        return fold_state(processor, initial(LoopConfig()), events)

    def replay(
        self, agent_id: str, machine_factory: Callable[[], MealyMachine] | None = None
    ) -> list[Any]:
        """Every output the agent's journal replays to (``agentcore.journal.replay``)."""
        self.journal.forget(agent_id)
        entries = list(self.journal.entries(agent_id))
        factory = machine_factory or create_conversation_machine
        return [output for _, output in replay(entries, machine_factory=factory)]

    async def wait_idle(self, runs: Sequence[DurableRun], timeout: float | None = None) -> None:
        """Wait for every run of ``runs``."""
        started = time.monotonic()
        for run in runs:
            left = None if timeout is None else max(0.0, timeout - (time.monotonic() - started))
            await run.result(left)

    def _message(self, message: str | Any, now: int) -> Any:
        if isinstance(message, str):
            return UserMessage(f"msg_{new_id()}", message, timestamp=now)
        return message
