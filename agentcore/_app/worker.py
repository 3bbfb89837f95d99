"""``agentcore worker``: serve durable agents from a PostgreSQL database.

::

    agentcore worker --database-url postgresql://user:pw@host:5432/db --agents app:definitions

``--agents`` names the ``agentcore.durable.Definitions`` every worker of the deployment
imports (``module:attribute``, or a function returning one), found from the working
directory first, as uvicorn and celery find their apps. The worker runs until
SIGINT or SIGTERM; it prints ``worker <executor id> ready`` once it serves the queue.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

from .cli import register_command

__all__: list[str] = []


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database-url", required=True, help="postgresql:// URL")
    parser.add_argument(
        "--agents", required=True, help="module:attribute of the agentcore.durable.Definitions"
    )
    parser.add_argument("--executor-id", help="this worker's DBOS executor id (default: fresh)")
    parser.add_argument("--concurrency", type=int, help="advances at once on this worker")
    parser.add_argument("--heartbeat", type=float, default=1.0, help="seconds between beats")
    parser.add_argument(
        "--dead-after", type=float, default=5.0, help="seconds of silence before takeover"
    )
    parser.add_argument(
        "--poll", type=float, default=0.05, help="seconds between two looks at the queue"
    )
    parser.add_argument("--app-version", default="agentcore-1", help="same on every worker")


def _run(args: argparse.Namespace) -> int:
    from .._durable.definitions import load_definitions
    from .._durable.worker import Worker

    if os.getcwd() not in sys.path:  # the console script's path holds its own folder only
        sys.path.insert(0, os.getcwd())
    worker = Worker(
        args.database_url,
        load_definitions(args.agents),
        executor_id=args.executor_id,
        concurrency=args.concurrency,
        heartbeat=args.heartbeat,
        dead_after=args.dead_after,
        poll=args.poll,
        app_version=args.app_version,
    )

    def stop(_signum: int, _frame: Any) -> None:
        worker.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    worker.on_ready = lambda: print(f"worker {worker.executor_id} ready", flush=True)
    worker.run()
    return 0


register_command("worker", "serve durable agents (DBOS on PostgreSQL)", _configure, _run)
