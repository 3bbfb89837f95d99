"""Real MCP servers for the MCP tests: SDK servers in ``servers/``, started over stdio by
the client itself, or over HTTP/SSE as a subprocess on 127.0.0.1 (a random free port the
server picks and prints)."""

from __future__ import annotations

import pathlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agentcore.mcp import MCPServer

SERVERS = pathlib.Path(__file__).parent / "servers"
EVERYTHING = str(SERVERS / "everything.py")
PAGED = str(SERVERS / "paged.py")


def stdio_server(script: str = EVERYTHING, **options: Any) -> MCPServer:
    """An ``MCPServer`` that starts ``script`` (a test server) over stdio."""
    options.setdefault("name", pathlib.Path(script).stem)
    return MCPServer.stdio(sys.executable, [script], **options)


@pytest.fixture
def stdio() -> Callable[..., MCPServer]:
    """``stdio(script=EVERYTHING, **options)``: a server started over stdio on first use."""
    return stdio_server


@pytest.fixture
def paged_script() -> str:
    return PAGED


class ServerProcess:
    """A test server serving HTTP or SSE in a subprocess; ``url`` is its endpoint."""

    def __init__(self, transport: str, script: str = EVERYTHING) -> None:
        self.transport = transport
        self.process = subprocess.Popen(
            [sys.executable, script, transport], stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError(f"test server did not print its port: {line!r}")
        self.port = int(line)
        path = "/mcp" if transport == "http" else "/sse"
        self.url = f"http://127.0.0.1:{self.port}{path}"

    def server(self, **options: Any) -> MCPServer:
        options.setdefault("name", f"everything-{self.transport}")
        kind = "streamable-http" if self.transport == "http" else "sse"
        return MCPServer.http(self.url, transport=kind, **options)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture(scope="module")
def http_server() -> Iterator[ServerProcess]:
    server = ServerProcess("http")
    yield server
    server.stop()


@pytest.fixture
def own_http_server() -> Iterator[ServerProcess]:
    """An HTTP server for one test (one that kills it)."""
    server = ServerProcess("http")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def sse_server() -> Iterator[ServerProcess]:
    server = ServerProcess("sse")
    yield server
    server.stop()
