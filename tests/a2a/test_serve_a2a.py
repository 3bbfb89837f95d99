"""``agentcore serve --a2a``: one server gives the page, the HTTP API and A2A at ``/a2a/``,
driven by the ``a2a-sdk``'s own client; the serve guard (token, ``Host``) guards A2A, its
agent card public as the page is; each A2A context is one of the server's agents, and a
restarted server knows the tasks."""

from __future__ import annotations

import contextlib
import pathlib
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
from a2a.client import ClientConfig, create_client
from a2a.types import GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState

from .conftest import bound

ROOT = pathlib.Path(__file__).parents[2]
TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@contextlib.contextmanager
def serve(journal_dir: pathlib.Path, *extra: str) -> Iterator[str]:
    """``agentcore serve --a2a`` on a free 127.0.0.1 port, ready (its page answers)."""
    sock, url = bound()
    port = sock.getsockname()[1]
    sock.close()
    command = ["serve", "--a2a", "--port", str(port), "--journal-dir", str(journal_dir), *extra]
    process = subprocess.Popen(
        [sys.executable, "-m", "agentcore", *command],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url + "/", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and process.poll() is None, process.stderr
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)
        assert process.stderr is not None
        process.stderr.close()


def _message(text: str, **ids: str) -> Message:
    return Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text=text)], **ids)


async def _send(client: Any, message: Message) -> list[Any]:
    return [e async for e in client.send_message(SendMessageRequest(message=message))]


async def test_serve_a2a_gives_page_api_and_a2a(tmp_path: pathlib.Path) -> None:
    with serve(tmp_path, "--token", TOKEN) as url:
        card = httpx.get(url + "/a2a/.well-known/agent-card.json")
        assert card.status_code == 200
        assert card.json()["supportedInterfaces"][0]["url"] == url + "/a2a/"
        assert httpx.get(url + "/").status_code == 200  # the page, on the same server
        unauthorized = httpx.post(url + "/a2a/", json={"jsonrpc": "2.0", "id": 1, "method": "x"})
        assert unauthorized.status_code == 401
        rebound = httpx.get(url + "/a2a/.well-known/agent-card.json", headers={"host": "evil.com"})
        assert rebound.status_code == 403

        authed = httpx.AsyncClient(headers=AUTH)
        client = await create_client(
            url + "/a2a", ClientConfig(streaming=True, httpx_client=authed)
        )
        events = await _send(client, _message("hello over a2a"))
        final = events[-1].status_update.status
        assert final.state == TaskState.TASK_STATE_COMPLETED
        assert "hello over a2a" in final.message.parts[0].text
        task = events[0].task
        paused = await _send(client, _message("delete notes.txt", context_id=task.context_id))
        assert paused[-1].status_update.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        await client.close()
        await authed.aclose()

        agent_id = f"a2a_{task.context_id}"  # the context is one of the server's agents
        listed = httpx.get(url + "/agents", headers=AUTH).json()["agents"]
        assert agent_id in {a["agent_id"] for a in listed}
        state = httpx.get(url + f"/agents/{agent_id}/state", headers=AUTH).json()
        said = [m["data"]["content"] for m in state["messages"] if m["type"] == "user_message"]
        assert said[:2] == ["hello over a2a", "delete notes.txt"]
        assert [c["tool_name"] for c in state["pending_approvals"]] == ["delete_file"]
    assert (tmp_path / "a2a" / "tasks.jsonl").exists()

    with serve(tmp_path, "--token", TOKEN) as url:  # restarted: the tasks are known
        authed = httpx.AsyncClient(headers=AUTH)
        client = await create_client(
            url + "/a2a", ClientConfig(streaming=True, httpx_client=authed)
        )
        known = await client.get_task(GetTaskRequest(id=task.id))
        assert known.status.state == TaskState.TASK_STATE_COMPLETED
        waiting = await client.get_task(GetTaskRequest(id=paused[0].task.id))
        assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        ids = {"context_id": waiting.context_id, "task_id": waiting.id}
        approved = await _send(client, _message("yes", **ids))
        assert approved[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
        await client.close()
        await authed.aclose()


def test_serve_a2a_refuses_durable_agents(tmp_path: pathlib.Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentcore", "serve", "--a2a", "--database-url", "postgresql://x/y"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--a2a serves the agents of this process" in done.stderr
