"""``agentcore mcp-serve``: the ``mcp`` SDK's own client lists and calls the agent tool
over stdio and streamable HTTP, receives the streamed text as progress notifications,
and cancels a call; each client session is journaled in its own lane; off loopback, or
with ``--token``, HTTP requests need the bearer token."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from mcp import Client, StdioServerParameters

from agentcore.journal import read_jsonl

ROOT = pathlib.Path(__file__).parents[2]


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "agentcore", "mcp-serve", "--delay", "0.005", *args]


class HttpServer:
    """``agentcore mcp-serve --transport http --port 0`` in a subprocess."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            _command("--transport", "http", "--port", "0", *args),
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        assert "http://127.0.0.1:" in line, line
        self.url = line.strip().rsplit(" ", 1)[-1]

    def stop(self) -> None:
        """Stop the server (idempotent); SIGTERM lets it close its agents and journal."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        if self.process.stderr is not None:
            self.process.stderr.close()


@pytest.fixture
def http(tmp_path: pathlib.Path) -> Iterator[HttpServer]:
    server = HttpServer("--journal", str(tmp_path / "http.jsonl"))
    yield server
    server.stop()


async def _ask_and_cancel(client: Client) -> None:
    tools = await client.list_tools()
    (ask,) = [t for t in tools.tools if t.name == "ask"]
    assert ask.input_schema["required"] == ["prompt"]
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    result = await client.call_tool("ask", {"prompt": "hello there"}, progress_callback=on_progress)
    assert not result.is_error
    answer = result.content[0].text  # type: ignore[union-attr]
    assert "hello there" in answer
    assert "".join(m or "" for _, m in progress) == answer  # the text, streamed as progress
    assert [v for v, _ in progress] == sorted(v for v, _ in progress)
    conversation = result.structured_content["conversation"]  # type: ignore[index]
    assert result.meta is not None
    assert result.meta["agentcore/conversation"] == conversation
    # a long answer cancelled by the client: the run is aborted, the conversation goes on
    with anyio.move_on_after(0.5) as scope:
        await client.call_tool("ask", {"prompt": "tell me a story", "conversation": conversation})
    assert scope.cancelled_caught
    await anyio.sleep(0.3)
    again = await client.call_tool("ask", {"prompt": "still there?", "conversation": conversation})
    assert not again.is_error
    assert "still there?" in again.content[0].text  # type: ignore[union-attr]
    bad = await client.call_tool("ask", {"prompt": "x", "conversation": "../etc"})
    assert bad.is_error


def _lanes(journal: pathlib.Path) -> dict[str, list[str]]:
    lanes: dict[str, list[str]] = {}
    for entry in read_jsonl(journal):
        lanes.setdefault(entry.agent_id, []).append(entry.event.type)
    return lanes


@pytest.mark.timeout(60)
def test_stdio_list_call_progress_cancel(tmp_path: pathlib.Path) -> None:
    journal = tmp_path / "stdio.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=_command("--journal", str(journal))[1:],
        cwd=str(ROOT),
        env={**os.environ},
    )

    async def main() -> None:
        async with Client(params) as client:
            await _ask_and_cancel(client)

    anyio.run(main)
    (lane,) = _lanes(journal).values()
    assert lane.count("agent_prompt") == 3
    assert "agent_abort" in lane


@pytest.mark.timeout(60)
def test_http_list_call_progress_cancel_one_lane_per_session(
    http: HttpServer, tmp_path: pathlib.Path
) -> None:
    async def main() -> None:
        async with Client(http.url) as client:
            await _ask_and_cancel(client)
        async with Client(http.url) as other:  # no conversation named: another lane
            result = await other.call_tool("ask", {"prompt": "hi"})
            assert not result.is_error

    anyio.run(main)
    http.stop()
    lanes = _lanes(tmp_path / "http.jsonl")
    assert len(lanes) == 2
    assert sorted(lane.count("agent_prompt") for lane in lanes.values()) == [1, 3]


@pytest.mark.timeout(60)
def test_http_needs_the_token_when_given_and_serves_the_tools_too() -> None:
    server = HttpServer("--token", "s3cret", "--expose-tools")
    try:
        refused = httpx.post(server.url, json={}, timeout=5)
        assert refused.status_code == 401
        assert "s3cret" not in refused.text

        async def main() -> Any:
            headers = {"Authorization": "Bearer s3cret"}
            async with (
                httpx.AsyncClient(headers=headers) as http_client,
                Client(_transport(server.url, http_client)) as client,
            ):
                names = {t.name for t in (await client.list_tools()).tools}
                assert {"ask", "get_weather", "delete_file"} <= names
                result = await client.call_tool("get_weather", {"city": "Paris"})
                assert "Paris: 18" in result.content[0].text  # type: ignore[union-attr]
                failed = await client.call_tool("get_weather", {"town": "Paris"})
                assert failed.is_error

        anyio.run(main)
    finally:
        server.stop()


def _transport(url: str, http_client: Any) -> Any:
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url, http_client=http_client)
