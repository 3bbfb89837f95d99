"""``agentcore a2a-serve`` in a subprocess, driven by the ``a2a-sdk``'s client: the card,
a streamed answer, each context journaled in its own lane of the JSONL journal."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time
import uuid

import httpx
from a2a.client import ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState

from agentcore.cli import main
from agentcore.journal import read_jsonl

from .conftest import bound

ROOT = pathlib.Path(__file__).parents[2]


async def test_the_command_serves_the_embedded_agent(tmp_path: pathlib.Path) -> None:
    sock, url = bound()
    port = sock.getsockname()[1]
    sock.close()
    journal = tmp_path / "a2a.jsonl"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentcore",
            "a2a-serve",
            "--port",
            str(port),
            "--journal",
            str(journal),
            "--name",
            "demo",
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                card = httpx.get(url + "/.well-known/agent-card.json", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.1)
        assert card.json()["name"] == "demo"
        client = await create_client(url, ClientConfig(streaming=True))
        message = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text="hi")])
        events = [e async for e in client.send_message(SendMessageRequest(message=message))]
        await client.close()
        final = events[-1].status_update.status
        assert final.state == TaskState.TASK_STATE_COMPLETED
        assert "hi" in final.message.parts[0].text
    finally:
        process.terminate()
        process.wait(10)
        assert process.stderr is not None
        process.stderr.close()
    lanes = {e.agent_id for e in read_jsonl(journal)}
    assert lanes == {f"a2a_{events[0].task.context_id}"}


def test_port_0_serves_and_advertises_the_port_it_got() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "agentcore", "a2a-serve", "--port", "0"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        url = line.split()[-1]
        assert line.startswith("agentcore a2a-serve: http://127.0.0.1:") and not url.endswith(":0/")
        card = httpx.get(url + ".well-known/agent-card.json", timeout=10).json()
        assert card["supportedInterfaces"][0]["url"] == url
    finally:
        process.terminate()
        process.wait(10)
        assert process.stderr is not None
        process.stderr.close()


def test_a_port_in_use_is_one_line(capsys) -> None:
    sock, _ = bound()
    with sock:
        port = sock.getsockname()[1]
        assert main(["a2a-serve", "--port", str(port)]) == 2
        assert main(["mcp-serve", "--transport", "http", "--port", str(port)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"agentcore a2a-serve: cannot listen on 127.0.0.1:{port}: Address already in use",
        f"agentcore mcp-serve: cannot listen on 127.0.0.1:{port}: Address already in use",
    ]
