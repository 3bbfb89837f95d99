"""Run an SDK server over the transport named on the command line.

``python script.py stdio`` serves on stdin/stdout; ``http`` (streamable HTTP) and ``sse``
bind a socket on 127.0.0.1 port 0 first and print the chosen port on stdout, so the test
that started the process reads the port without a race.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import anyio
import uvicorn


def serve(app: Any) -> None:
    """``app`` is an SDK ``MCPServer``; the transport comes from ``sys.argv[1]``."""
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        app.run("stdio")
        return
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    asgi = app.streamable_http_app() if transport == "http" else app.sse_app()
    server = uvicorn.Server(uvicorn.Config(asgi, log_level="warning"))
    print(sock.getsockname()[1], flush=True)
    anyio.run(lambda: server.serve(sockets=[sock]))
