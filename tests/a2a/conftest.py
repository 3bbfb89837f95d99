"""A2A tests: servers started on 127.0.0.1 by the test (in its event loop, or as a
subprocess to kill), clients from the ``a2a-sdk`` and agentcore's ``RemoteAgent``."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests in a fresh event loop (``asyncio.run``)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
    return True


def bound() -> tuple[socket.socket, str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextlib.asynccontextmanager
async def serving(app: Any, sock: socket.socket) -> AsyncIterator[None]:
    """Serve the ASGI ``app`` on ``sock`` in this event loop until the block ends."""
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
