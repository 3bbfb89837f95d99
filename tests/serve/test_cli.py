"""``agentcore serve`` on the command line: the exposure rules, and a real start.

Tests the private modules ``agentcore._app.serve``, ``agentcore._app.serve_model`` and
``agentcore._serve.server``: the ``agentcore serve`` command and its demo."""

from __future__ import annotations

import io
import socket
import subprocess
import sys
import time
from typing import Any

import httpx2
import pytest

from agentcore._app.serve import agent_options
from agentcore._serve import server
from agentcore.cli import main
from agentcore.serve import ServeConfig

from .server_kit import free_port


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.9.9.9", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.4", False),
        ("example.org", False),
    ],
)
def test_loopback(host: str, loopback: bool) -> None:
    assert server.is_loopback(host) is loopback


def test_off_loopback_a_token_is_generated_and_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[Any] = []
    monkeypatch.setattr("uvicorn.Server.run", lambda self, sockets: started.append(self.config))
    out = io.StringIO()
    server.run(ServeConfig(agent_options(None, 0.0)), "0.0.0.0", 9, out=out)
    printed = out.getvalue()
    token = printed.split("bearer token: ")[1].split()[0]
    assert len(token) >= 32 and f"?token={token}" in printed
    out = io.StringIO()
    server.run(ServeConfig(agent_options(None, 0.0)), "127.0.0.1", 9, out=out)
    assert "token" not in out.getvalue()
    assert [served.host for served in started] == ["0.0.0.0", "127.0.0.1"]


def test_agentcore_serve_starts_on_a_fresh_machine() -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "agentcore", "serve", "--port", str(port), "--delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert f"http://127.0.0.1:{port}/" in process.stdout.readline()
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                created = httpx2.post(f"{base}/agents", json={})
                break
            except httpx2.ConnectError:
                time.sleep(0.05)
        assert created.status_code == 201 and created.json()["model"] == "agentcore/demo"
        assert "<title>agentcore</title>" in httpx2.get(base).text
    finally:
        process.terminate()
        process.wait(10)


def test_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Said before the address is printed, in one line and exit 2 (a usage error), like
    ``a2a-serve`` and ``mcp-serve``; not the address and then uvicorn's log and exit 3."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--delay", "0"]) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.splitlines() == [
        f"agentcore serve: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]


def test_the_demo_tree_plays_its_own_models_and_resolves_any_other() -> None:
    """The embedded tree plays the demo and researcher models itself; an agent asked for
    another model gets that model's driver from the registry (never the demo by mistake)."""
    from agentcore._app.serve import tree_options
    from agentcore._app.serve_model import DEMO_MODEL, RESEARCHER_MODEL
    from agentcore.errors import ConfigurationError

    tree = tree_options(None, 0.0)
    factory = tree["registry"].driver_factory
    assert factory(DEMO_MODEL).name == DEMO_MODEL
    assert factory(RESEARCHER_MODEL).name == RESEARCHER_MODEL
    with pytest.raises(ConfigurationError, match="nowhere"):
        factory("nowhere/model-x")
    assert tree_options("anthropic/claude-sonnet-4-5", 0.0) == {}
    with pytest.raises(ConfigurationError, match="agent_type"):
        ServeConfig(agent_options(None, 0.0), registry=tree["registry"])
