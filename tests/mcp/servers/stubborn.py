"""A stdio test server that does not exit when its stdin closes: a tool still running in
a worker thread keeps the interpreter alive, a child process it started stays in its
process group, and it can be told to ignore SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from mcp.server.mcpserver import MCPServer

app = MCPServer("stubborn", log_level="WARNING")


@app.tool()
def slow() -> str:
    """Takes an hour (a stuck download, a long build) in a worker thread."""
    time.sleep(3600)
    return "done"


@app.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@app.tool()
def spawn() -> int:
    """Starts a long-lived child (in the server's process group); its pid."""
    return subprocess.Popen(["sleep", "600"]).pid


@app.tool()
async def ignore_term() -> str:
    """From now on SIGTERM does nothing: only SIGKILL ends the server (async: signal
    handlers are set in the main thread)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return "ignoring SIGTERM"


if __name__ == "__main__":
    app.run("stdio")
