"""Worker processes on a fresh database of the test PostgreSQL server.

``Cluster(server, name, workers=3)`` creates database ``name``, the tables of
``durable_app`` and starts ``agentcore worker`` processes serving its definitions (short
heartbeats, so a killed worker is taken over within about two seconds). ``kill(i)``
sends SIGKILL to worker ``i``; ``close()`` stops the others.
"""

from __future__ import annotations

import itertools
import os
import pathlib
import signal
import subprocess
import sys
from typing import Any

import durable_app

from agentcore.testing import PostgresServer

HERE = pathlib.Path(__file__).parent
_names = itertools.count(1)


def fresh_database(server: PostgresServer, prefix: str = "durable") -> str:
    """A new empty database on ``server``: its ``postgresql://`` URL."""
    name = f"{prefix}{os.getpid()}_{next(_names)}"
    server.create_database(name)
    return f"postgresql://{server.user}:{server.password}@{server.host}:{server.port}/{name}"


class Cluster:
    def __init__(
        self,
        url: str,
        workers: int = 3,
        *,
        env: dict[str, str] | None = None,
        heartbeat: float = 0.3,
        dead_after: float = 1.5,
        concurrency: int = 40,
        poll: float = 0.05,
        agents: str = "durable_app:definitions",
    ) -> None:
        self.url = url
        durable_app.create_tables(url)
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
            "DURABLE_TEST_DB": url,
            **(env or {}),
        }
        self.heartbeat, self.dead_after, self.concurrency = heartbeat, dead_after, concurrency
        self.poll = poll
        self.agents = agents
        self.processes: list[subprocess.Popen[str]] = []
        self.ids: list[str] = []
        for _ in range(workers):
            self.start()

    def start(self) -> subprocess.Popen[str]:
        """Start one more worker; return once it serves the queue."""
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agentcore",
                "worker",
                "--database-url",
                self.url,
                "--agents",
                self.agents,
                "--heartbeat",
                str(self.heartbeat),
                "--dead-after",
                str(self.dead_after),
                "--concurrency",
                str(self.concurrency),
                "--poll",
                str(self.poll),
            ],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("worker "):
            process.kill()
            _, err = process.communicate(timeout=30)
            raise RuntimeError(f"the worker did not start: {line!r}\n{err[-4000:]}")
        self.processes.append(process)
        self.ids.append(line.split()[1])
        return process

    def kill(self, index: int) -> None:
        self.processes[index].send_signal(signal.SIGKILL)
        self.processes[index].wait()

    def statuses(self) -> list[tuple[Any, ...]]:
        """DBOS's view of the workflows not finished (for a failure's message)."""
        import psycopg

        with psycopg.connect(self.url) as conn:
            return conn.execute(
                "SELECT workflow_uuid, status, executor_id, queue_name FROM dbos.workflow_status "
                "WHERE status NOT IN ('SUCCESS') ORDER BY workflow_uuid"
            ).fetchall()

    def close(self) -> dict[int, Any]:
        """Stop the live workers (SIGTERM, then wait); their exit codes by index."""
        codes: dict[int, Any] = {}
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for i, process in enumerate(self.processes):
            try:
                process.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
            codes[i] = process.returncode
        return codes
