"""A real ``agentcore serve`` app under uvicorn on 127.0.0.1 (an ephemeral port), for tests.

Tests the private module ``agentcore._app.serve``: the demo agent ``agentcore serve`` runs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import pathlib
import socket
from collections.abc import AsyncIterator, Mapping
from typing import Any

import uvicorn

from agentcore._app.serve import agent_options, tree_options
from agentcore.serve import ServeConfig, create_app

SERVERS: dict[str, Any] = {}
"""Each running app's agents by base URL (a test may reach in, e.g. to drop connections)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def serving(
    *,
    delay: float = 0.0,
    journal_dir: pathlib.Path | None = None,
    agent: Mapping[str, Any] | None = None,
    **config: Any,
) -> AsyncIterator[str]:
    """Serve the embedded model (with ``agent``'s extra ``Agent`` options, e.g. limits);
    yield the base URL; stop the server on exit."""
    port = free_port()
    config = {**tree_options(None, delay), **config}
    demo = agent_options(None, delay)
    extra = agent or {}
    app = create_app(
        ServeConfig(lambda model: {**demo(model), **extra}, journal_dir=journal_dir, **config)
    )
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    base = f"http://127.0.0.1:{port}"
    SERVERS[base] = app.state.server
    try:
        yield base
    finally:
        SERVERS.pop(base, None)
        server.should_exit = True
        await asyncio.wait_for(task, 10)


def parse_sse(text: str) -> list[dict[str, str]]:
    """The events of an SSE body: ``{"id"?, "event"?, "data"}`` each (comments dropped)."""
    events = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            key, _, value = line.partition(": ")
            fields[key] = fields[key] + "\n" + value if key == "data" and key in fields else value
        if "data" in fields:
            events.append(fields)
    return events


def datas(text: str) -> list[Any]:
    return [json.loads(e["data"]) if e["data"] != "[DONE]" else "[DONE]" for e in parse_sse(text)]
