"""A2A tasks kept in a journal: the SDK's ``TaskStore`` on a journal lane.

The SDK's request handler saves a task at every event of its run (each streamed chunk
too) and reads it back for ``GetTask``, ``ListTasks``, ``SubscribeToTask`` and the next
message of an ``INPUT_REQUIRED`` task. ``JournalTaskStore`` answers from memory and
journals, in the lane ``a2a_tasks``, one ``A2ATaskRecord`` (the task's A2A JSON form) per
save that changes the task's state or saves a task that is paused or finished. The chunks
of a running task are not journaled as task records: its conversation's lane holds them.
Give it a journal beside the conversations' (``agentcore a2a-serve --journal a2a.jsonl``
keeps them in ``a2a.tasks.jsonl``): only a process that imported ``agentcore.a2a`` reads
an ``a2a_task`` record, and the conversations' file stays readable by every tool.

A new store on the same journal (a restarted server) reads the lane back, so clients get
their tasks, and answer an ``INPUT_REQUIRED`` one (the conversation is resumed with the
approval or question pending). A task journaled ``SUBMITTED`` or ``WORKING`` was running
when its server stopped: it is read back ``FAILED``, its status message saying so, and
resubscribing to it is refused as for any finished task; the run its conversation performs
again on resuming is aborted when the context's next message comes (``server``).
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

import attrs
from a2a.helpers.proto_helpers import new_text_message
from a2a.server.context import ServerCallContext
from a2a.server.tasks import InMemoryTaskStore, TaskStore
from a2a.types import ListTasksRequest, ListTasksResponse, Task, TaskState
from google.protobuf.json_format import MessageToDict, ParseDict  # type: ignore[import-untyped]

from .._core.checks import JSONValue, checked
from .._core.events import event_type
from .._journal.journal import Journal
from .._journal.lanes import claim_lane, release_lane

__all__ = ["A2ATaskRecord", "JournalTaskStore", "STOPPED", "TASK_LANE"]

TASK_LANE = "a2a_tasks"
"""The journal lane the A2A tasks are recorded in."""

_RUNNING = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)
STOPPED = "the server stopped while this task ran; send a new message in its context to go on"
"""The status message of a task that was running when its server stopped."""


@event_type("a2a_task", "a2a")
@attrs.frozen(slots=True)
@checked
class A2ATaskRecord:
    """An A2A task as it was saved (its A2A JSON form: ``id``, ``contextId``, ``status``,
    ``history``, ``artifacts``), journaled in the lane ``a2a_tasks``."""

    type: ClassVar[str] = "a2a_task"
    task: JSONValue
    timestamp: int = attrs.field(default=0, kw_only=True)


class JournalTaskStore(TaskStore):
    """The SDK's ``TaskStore`` on ``journal`` (module docstring). It holds the lane
    ``a2a_tasks`` from its first use until ``close()``, so two servers on one journal are
    refused (``LaneBusyError``) rather than mixing their tasks."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._memory = InMemoryTaskStore()
        self._journaled: dict[str, int] = {}
        """The state each task was last journaled in."""
        self._loaded = self._closed = False
        self._loading = asyncio.Lock()
        self._cut_off: set[str] = set()
        """The contexts whose task ran when the server stopped, until ``cut_off`` says so."""

    async def _ready(self) -> None:
        """Claim the lane and read it back, on first use (two requests at once: once)."""
        async with self._loading:
            if not self._loaded:
                await self._load()

    async def _load(self) -> None:
        claim_lane(self.journal, TASK_LANE)
        self._loaded = True
        tasks: dict[str, Task] = {}
        for entry in self.journal.entries(TASK_LANE):
            task = ParseDict(entry.event.task, Task(), ignore_unknown_fields=True)
            tasks[task.id] = task
        for task in tasks.values():
            if task.status.state in _RUNNING:
                _stopped(task)
                self._cut_off.add(task.context_id)
            self._journaled[task.id] = task.status.state
            await self._memory.save(task, ServerCallContext())

    async def cut_off(self, context_id: str) -> bool:
        """Whether a task of the context was running when the server stopped (said once:
        the caller ends the run its conversation performs again)."""
        await self._ready()
        if context_id not in self._cut_off:
            return False
        self._cut_off.discard(context_id)
        return True

    async def save(self, task: Task, context: ServerCallContext) -> None:
        await self._ready()
        state = task.status.state
        if state not in _RUNNING or self._journaled.get(task.id) != state:
            self.journal.append(TASK_LANE, A2ATaskRecord(MessageToDict(task)))
            self._journaled[task.id] = state
        await self._memory.save(task, context)

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        await self._ready()
        return await self._memory.get(task_id, context)

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        await self._ready()
        return await self._memory.list(params, context)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        """Forget the task here; its records stay in the journal (append-only), so a
        restarted server knows it again."""
        await self._ready()
        await self._memory.delete(task_id, context)

    def close(self) -> None:
        """Let the lane go (idempotent); the journal stays open (its owner closes it)."""
        if self._loaded and not self._closed:
            self._closed = True
            release_lane(self.journal, TASK_LANE)


def _stopped(task: Task) -> None:
    """Mark ``task``, running when its server stopped, ``FAILED`` saying so."""
    if task.status.HasField("message"):
        task.history.append(task.status.message)
    task.status.state = TaskState.TASK_STATE_FAILED
    task.status.message.CopyFrom(
        new_text_message(STOPPED, context_id=task.context_id, task_id=task.id)
    )
