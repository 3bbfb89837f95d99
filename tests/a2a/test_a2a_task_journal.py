"""A2A tasks come from the journal: ``agentcore a2a-serve --journal`` killed (SIGKILL) and
started again on the same file, and the ``a2a-sdk``'s own client gets its tasks back:
a finished one with its answer, a paused one it then answers, and one that was running,
reported ``FAILED`` saying the server stopped, its context going on at the next message.

Tests the private module ``agentcore._a2a.tasks``: the task records in their own lane, and
the text a stopped task ends with."""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, create_client
from a2a.types import (
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskState,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._a2a.tasks import STOPPED, TASK_LANE, A2ATaskRecord
from agentcore.a2a import JournalTaskStore
from agentcore.journal import MemoryJournal, read_jsonl

from .conftest import bound

ROOT = pathlib.Path(__file__).parents[2]


@contextlib.contextmanager
def a2a_serve(journal: pathlib.Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``agentcore a2a-serve`` on a free 127.0.0.1 port, ready (its card answers)."""
    sock, url = bound()
    port = sock.getsockname()[1]
    sock.close()
    command = ["a2a-serve", "--port", str(port), "--journal", str(journal), "--delay", "0.02"]
    process = subprocess.Popen(
        [sys.executable, "-m", "agentcore", *command], cwd=ROOT, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url + "/.well-known/agent-card.json", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.1)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(10)
        assert process.stderr is not None
        process.stderr.close()


def _message(text: str, **ids: str) -> Message:
    return Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text=text)], **ids)


async def _send(client: Any, message: Message) -> list[Any]:
    return [e async for e in client.send_message(SendMessageRequest(message=message))]


def _answer(task: Any) -> str:
    return "".join(p.text for a in task.artifacts for p in a.parts)


async def test_tasks_outlive_a_killed_server(tmp_path: pathlib.Path) -> None:
    journal = tmp_path / "a2a.jsonl"
    with a2a_serve(journal) as (url, process):
        client = await create_client(url, ClientConfig(streaming=True))
        done = (await _send(client, _message("hello there")))[0].task
        paused = await _send(client, _message("delete notes.txt"))
        assert paused[-1].status_update.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        stream = client.send_message(SendMessageRequest(message=_message("tell me a story")))
        running = None
        async for event in stream:
            running = running or event.task
            if event.WhichOneof("payload") == "artifact_update":
                break
        process.send_signal(signal.SIGKILL)  # mid-stream: the task was WORKING
        process.wait(10)
        await stream.aclose()
        await client.close()
    assert running is not None

    with a2a_serve(journal) as (url, _):
        client = await create_client(url, ClientConfig(streaming=True))
        finished = await client.get_task(GetTaskRequest(id=done.id))
        assert finished.status.state == TaskState.TASK_STATE_COMPLETED
        assert "hello there" in _answer(finished)
        assert finished.history[0].parts[0].text == "hello there"

        waiting = await client.get_task(GetTaskRequest(id=paused[0].task.id))
        assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        ids = {"context_id": waiting.context_id, "task_id": waiting.id}
        approved = await _send(client, _message("yes", **ids))
        final = approved[-1].status_update.status
        assert final.state == TaskState.TASK_STATE_COMPLETED
        assert "notes.txt" in final.message.parts[0].text

        stopped = await client.get_task(GetTaskRequest(id=running.id))
        assert stopped.status.state == TaskState.TASK_STATE_FAILED
        assert stopped.status.message.parts[0].text == STOPPED
        with pytest.raises(Exception, match="terminal state"):
            _ = [e async for e in client.subscribe(SubscribeToTaskRequest(id=running.id))]
        again = await _send(client, _message("hello again", context_id=running.context_id))
        assert again[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
        await client.close()
    entries = list(read_jsonl(journal))
    cut_off = [e.event for e in entries if e.agent_id == f"a2a_{running.context_id}"]
    aborts = [e for e in cut_off if e.type == "agent_abort"]
    assert [a.reason for a in aborts] == [STOPPED]  # the re-performed run, not re-told
    records = list(read_jsonl(tmp_path / "a2a.tasks.jsonl"))
    assert {r.agent_id for r in records} == {TASK_LANE}
    assert {r.event.task["id"] for r in records} >= {done.id, running.id, waiting.id}


async def test_only_state_changes_and_settled_tasks_are_journaled() -> None:
    """A running task's chunks stay in memory (its conversation holds them); every state
    change, and every save of a paused or finished task, is a record."""
    from a2a.server.context import ServerCallContext
    from a2a.types import Artifact, Task, TaskStatus

    journal = MemoryJournal()
    store = JournalTaskStore(journal)
    context = ServerCallContext()
    task = Task(id="t1", context_id="c1", status=TaskStatus(state=TaskState.TASK_STATE_WORKING))
    for chunk in ("a", "b", "c"):
        task.artifacts.append(Artifact(artifact_id=chunk, parts=[Part(text=chunk)]))
        await store.save(task, context)
    assert len(list(journal.entries(TASK_LANE))) == 1
    task.status.state = TaskState.TASK_STATE_COMPLETED
    await store.save(task, context)
    await store.save(task, context)
    records = [e.event for e in journal.entries(TASK_LANE)]
    assert all(isinstance(r, A2ATaskRecord) for r in records)
    assert len(records) == 3
    store.close()
    again = JournalTaskStore(journal)
    back = await again.get("t1", context)
    assert back is not None and _answer(back) == "abc"
    assert back.status.state == TaskState.TASK_STATE_COMPLETED
    again.close()


_STATES = [
    TaskState.TASK_STATE_SUBMITTED,
    TaskState.TASK_STATE_WORKING,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(_STATES), st.text(max_size=3))))
def test_a_restarted_store_gives_every_task_as_last_saved(
    saves: list[tuple[str, int, str]],
) -> None:
    """Property: after any saves, a new store on the journal gives each task as it was
    last saved when it was paused or finished, and ``FAILED`` with ``STOPPED`` when it
    was running (its chunks since its last state change are its conversation's); its
    context is said cut off once."""
    from a2a.server.context import ServerCallContext
    from a2a.types import Artifact, Task, TaskStatus

    async def run() -> None:
        journal, context = MemoryJournal(), ServerCallContext()
        store = JournalTaskStore(journal)
        last: dict[str, Task] = {}
        for task_id, state, chunk in saves:
            task = Task(id=task_id, context_id="c", status=TaskStatus(state=state))
            if task_id in last:
                task.artifacts.extend(last[task_id].artifacts)
            task.artifacts.append(Artifact(artifact_id=chunk, parts=[Part(text=chunk)]))
            await store.save(task, context)
            last[task_id] = task
        store.close()
        again = JournalTaskStore(journal)
        for task_id, saved in last.items():
            back = await again.get(task_id, context)
            assert back is not None
            if saved.status.state in (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING):
                assert back.status.state == TaskState.TASK_STATE_FAILED
                assert back.status.message.parts[0].text == STOPPED
            else:
                assert back == saved
        assert await again.get("z", context) is None
        running = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)
        was_running = any(t.status.state in running for t in last.values())
        assert await again.cut_off("c") is was_running  # its run is to be ended, once
        assert await again.cut_off("c") is False
        again.close()

    asyncio.run(run())
