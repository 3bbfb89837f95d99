"""``agentcore serve`` starting up: a damaged journal among healthy ones, a model that
cannot run, and ``--base-url`` pointing a model at another server.

Tests the private module ``agentcore._app.code.setup``: how ``agentcore code`` makes its
drivers at a base URL."""

from __future__ import annotations

import asyncio
import logging
import os
import pathlib
import socket
import subprocess
import sys
import time
from typing import Any

import httpx2
import pytest

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.journal import JsonlJournal

from .server_kit import free_port, serving

OPENAI_TEXT = pathlib.Path(__file__).parents[1] / "drivers" / "fixtures" / "openai" / "text.sse"

DAMAGED = {
    "empty": b"",
    "torn": b'{"agent_id":"torn","se',  # the first write cut short
    "garbage": b"\x00\xffnot json\n",
}


async def _healthy(directory: pathlib.Path, agent_id: str) -> None:
    journal = JsonlJournal(directory / f"{agent_id}.jsonl")
    agent = Agent(ScriptedDriver([text_turn("hi")]), journal=journal, agent_id=agent_id)
    await agent.run("hello")
    await agent.aclose()
    journal.close()


def _damaged_dir(root: pathlib.Path) -> pathlib.Path:
    asyncio.run(_healthy(root, "good"))
    asyncio.run(_healthy(root, "someone-else"))  # a journal of another agent, renamed
    (root / "someone-else.jsonl").rename(root / "foreign.jsonl")
    for name, data in DAMAGED.items():
        (root / f"{name}.jsonl").write_bytes(data)
    return root


def test_a_damaged_journal_keeps_only_its_own_agent_out(
    tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = _damaged_dir(tmp_path)
    bad = {"empty", "torn", "garbage", "foreign"}

    async def main() -> None:
        with caplog.at_level(logging.ERROR, logger="agentcore.serve"):
            async with (
                serving(journal_dir=directory) as base,
                httpx2.AsyncClient(timeout=10) as client,
            ):
                listed = (await client.get(f"{base}/agents")).json()
                assert [a["agent_id"] for a in listed["agents"]] == ["good"]
                unreadable = {u["agent_id"]: u["error"] for u in listed["unreadable"]}
                assert set(unreadable) == bad
                for name, reason in unreadable.items():
                    assert reason.count(str(directory / f"{name}.jsonl")) == 1
                assert "corrupt journal line" in unreadable["garbage"]
                for name in ("empty", "torn", "foreign"):
                    assert f"holds no entry of agent {name!r}" in unreadable[name]
                    assert " object at 0x" not in unreadable[name]
                state = await client.get(f"{base}/agents/torn/state")
                assert state.status_code == 503
                assert state.json()["error"].startswith(
                    f"agent 'torn' cannot be served: {directory}"
                )
                again = await client.post(f"{base}/agents", json={"agent_id": "torn"})
                assert again.status_code == 503  # never a new agent over the damaged file
                good = (await client.get(f"{base}/agents/good/state")).json()
                assert [m["type"] for m in good["messages"]] == [
                    "user_message",
                    "assistant_message",
                ]
                sent = await client.post(f"{base}/agents/good/messages", json={"text": "again"})
                assert sent.status_code == 202
        logged = " ".join(r.getMessage() for r in caplog.records)
        assert all(f"{name}.jsonl" in logged for name in bad)

    asyncio.run(main())


def test_agentcore_serve_starts_beside_a_torn_journal(tmp_path: pathlib.Path) -> None:
    """The reproduction: the command, one healthy journal and one cut short."""
    asyncio.run(_healthy(tmp_path, "good"))
    (tmp_path / "new-agent.jsonl").write_bytes(b'{"agent_id":"new-agent","se')
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "agentcore", "serve", "--port", str(port),
         "--journal-dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        listed = _get_when_up(server, f"http://127.0.0.1:{port}/agents")
        assert [a["agent_id"] for a in listed["agents"]] == ["good"]
        assert [u["agent_id"] for u in listed["unreadable"]] == ["new-agent"]
    finally:
        server.terminate()
        _, err = server.communicate(timeout=20)
    assert f"agent 'new-agent' not served: {tmp_path / 'new-agent.jsonl'}" in err


def _get_when_up(server: subprocess.Popen[str], url: str) -> Any:
    for _ in range(300):
        if server.poll() is not None:
            raise AssertionError(f"the server stopped: {server.communicate()[1]}")
        try:
            return httpx2.get(url).json()
        except httpx2.ConnectError:
            time.sleep(0.1)
    raise AssertionError("the server never answered")


# -- a model that cannot run -----------------------------------------------------------------


def _keyless() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}


def _refusal(*argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "agentcore", *argv],
        capture_output=True,
        text=True,
        env=_keyless(),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2, (argv, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("model", ["openai/gpt-4.1", "anthropic/claude-sonnet-4-5", "nowhere/x"])
def test_serve_refuses_a_model_that_cannot_run_as_chat_and_code_do(
    model: str, tmp_path: pathlib.Path
) -> None:
    port = str(free_port())
    served = _refusal("serve", "--port", port, "--model", model)
    coded = _refusal("code", "--model", model, "--sessions-dir", str(tmp_path))
    chatted = _refusal("chat", "--model", model)
    reason = served.removeprefix("agentcore serve: ")
    assert reason != served and coded == f"agentcore code: {reason}"
    assert chatted.startswith(f"agentcore chat: {reason}")
    key_error = "API key" in reason
    assert chatted.endswith("(on the command line: --api-key KEY)") is key_error
    with socket.socket() as sock:  # nothing was left listening
        sock.bind(("127.0.0.1", int(port)))


# -- --base-url ------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["chat", "serve", "code"])
def test_every_command_that_runs_a_model_takes_base_url(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentcore.cli import build_parser

    parser = build_parser()
    args = parser.parse_args([command, "--model", "openai/m", "--base-url", "http://h:1/v1"])
    assert args.base_url == "http://h:1/v1"
    with pytest.raises(SystemExit):
        parser.parse_args([command, "--help"])
    assert "--base-url URL" in capsys.readouterr().out


def test_serve_runs_its_model_at_the_base_url(tmp_path: pathlib.Path) -> None:
    """``serve --model openai/... --base-url`` reaches an OpenAI-compatible server there
    (no key: the address is loopback), for every agent it serves."""

    async def main() -> None:
        replies = [sse_response(OPENAI_TEXT), sse_response(OPENAI_TEXT)]
        async with ReplayServer(replies) as upstream:
            port = free_port()
            server = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "agentcore", "serve", "--port", str(port),
                "--model", "openai/local-model", "--base-url", upstream.base_url + "/v1",
                env=_keyless(), stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            base = f"http://127.0.0.1:{port}"
            try:
                async with httpx2.AsyncClient(timeout=10) as client:
                    for _ in range(300):
                        try:
                            made = await client.post(f"{base}/agents", json={})
                            break
                        except httpx2.ConnectError:
                            await asyncio.sleep(0.1)
                    assert made.json()["model"] == "openai/local-model"
                    agent = made.json()["agent_id"]
                    await client.post(f"{base}/agents/{agent}/messages", json={"text": "hi"})
                    for _ in range(300):
                        state = (await client.get(f"{base}/agents/{agent}/state")).json()
                        if not state["running"] and len(state["messages"]) == 2:
                            break
                        await asyncio.sleep(0.05)
                    reply = state["messages"][-1]["data"]
                    assert reply["parts"][0]["text"] == "Hello, world!"
            finally:
                server.terminate()
                await server.wait()
            assert [r.path for r in upstream.requests] == ["/v1/chat/completions"]

    asyncio.run(main())


def test_base_url_needs_a_model() -> None:
    assert _refusal("serve", "--base-url", "http://127.0.0.1:1/v1").endswith("name the model")


def test_definition_needs_a_database_url() -> None:
    assert _refusal("serve", "--definition", "support") == (
        "agentcore serve: --definition is the definition durable agents run: give "
        "--database-url too"
    )


def test_code_runs_its_model_and_explorer_at_the_base_url(tmp_path: pathlib.Path) -> None:
    from agentcore._app.code.setup import make_driver, subagent_registry

    url = "http://127.0.0.1:9/v1"
    driver, _ = make_driver("openai/local-model", base_url=url)
    assert driver.base_url.rstrip("/") == url  # type: ignore[attr-defined]
    explorer = subagent_registry("openai/local-model", str(tmp_path), base_url=url)
    assert explorer.driver_factory is not None
    child = explorer.driver_factory("openai/local-model")
    assert child.base_url.rstrip("/") == url  # type: ignore[attr-defined]


def test_the_top_level_help_says_what_the_command_does() -> None:
    from agentcore.cli import build_parser

    text = build_parser().format_help()
    assert "without a key" not in text.splitlines()[2] and "``" not in text
    for command in ("chat", "code", "serve", "worker", "replay", "inspect"):
        assert command in text


def test_an_agent_on_a_model_that_cannot_run_is_refused_when_created() -> None:
    """Not at its first message, on the page, in the Python API's words."""

    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            made = await client.post(f"{base}/agents", json={"model": "nowhere/x"})
            assert made.status_code == 400
            error = made.json()["error"]
            assert error.startswith("model 'nowhere/x' cannot run: unknown provider 'nowhere'")
            assert (await client.get(f"{base}/agents")).json()["agents"] == []

    asyncio.run(main())
