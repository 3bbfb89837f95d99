"""A worker process: DBOS launched on the database, the advance workflow, failover.

``Worker(database_url, definitions).run()`` (what ``agentcore worker`` calls) launches DBOS
with this worker's executor id, registers the ``agentcore`` queue (partitioned by agent:
one advance of an agent at a time, across every worker; ``concurrency`` advances at once
on this worker) and serves it until stopped.

Failover. DBOS recovers, at launch, the workflows its *own* executor id left pending; a
worker that never comes back would leave its agents stuck. So each worker stamps a
heartbeat row every ``heartbeat`` seconds (the database's clock) and, on the same beat,
takes over the workers silent for ``dead_after`` seconds: their rows are marked taken in
one statement (one survivor wins each), each of their pending workflows is handed back to
the queue with ``DBOS.resume_workflow`` (public API: the workflow is enqueued again under
its partition, and any worker picks it up; DBOS replays its recorded steps), and only then
is the row deleted. A taker killed halfway leaves a mark that goes stale after
``dead_after``, and the next survivor takes the same worker again (``recover`` hands back
only what is still pending, so taking twice is harmless). A worker
stopped cleanly deletes its row and lets DBOS finish or leave its workflows (the next
survivor's beat recovers what it left). Choose ``dead_after`` well above the longest
pause a live worker can take (a stop-the-world GC, a suspended VM): a worker declared
dead while alive would run its workflows twice at once (the journal's primary key makes
the second writer fail, so a history never holds both).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from typing import Any

from .conversation import Conversation
from .definitions import Definitions
from .services import Services
from .store import Store

__all__ = ["APP_NAME", "QUEUE", "WORKFLOW", "Worker", "advance"]

QUEUE = "agentcore"
WORKFLOW = "agentcore_advance"
APP_NAME = "agentcore"

_log = logging.getLogger("agentcore.durable")
_services: Services | None = None


async def advance(agent_id: str, definition: str) -> dict[str, Any]:
    """The ``agentcore_advance`` workflow: advance agent ``agent_id`` (running definition
    ``definition``) until it is at rest (``conversation``)."""
    if _services is None:
        raise RuntimeError("no agentcore worker runs in this process")
    found = _services.definitions.get(definition)
    return await Conversation(_services, agent_id, found).advance()


_registered: Any = None


def _register_workflow() -> Any:
    """Register ``advance`` with DBOS once per process (before DBOS is launched)."""
    global _registered
    if _registered is None:
        from dbos import DBOS

        _registered = DBOS.workflow(name=WORKFLOW)(advance)
    return _registered


def dbos_url(database_url: str) -> str:
    """``database_url`` as DBOS takes it (a ``postgresql://`` URL); ``ValueError`` naming
    the accepted forms otherwise."""
    for prefix in ("postgresql://", "postgres://", "postgresql+psycopg://"):
        if database_url.startswith(prefix):
            return "postgresql://" + database_url[len(prefix) :]
    scheme = database_url.split("://", 1)[0] if "://" in database_url else None
    got = f"a {scheme}:// URL" if scheme else "a string that is no URL (a libpq 'key=value' one?)"
    raise ValueError(  # never the value itself: it may hold a password
        "the database URL (--database-url on the command line) must be "
        f"postgresql://user:password@host:port/database, got {got}"
    )


def libpq_url(database_url: str) -> str:
    """``database_url`` as psycopg takes it."""
    return dbos_url(database_url)


class Worker:
    """One worker process's DBOS executor (module docstring).

    ``executor_id`` defaults to a fresh id (a worker restarted under its old id recovers
    its own pending workflows at launch, as DBOS does); ``poll`` is the queue's polling
    interval in seconds; ``pool`` the size of DBOS's connection pool (PostgreSQL's
    ``max_connections`` bounds the workers one server carries); ``app_version`` must be
    the same on every worker of one deployment (DBOS dispatches and recovers workflows
    within one version).
    """

    def __init__(
        self,
        database_url: str,
        definitions: Definitions,
        *,
        executor_id: str | None = None,
        concurrency: int | None = None,
        heartbeat: float = 1.0,
        dead_after: float = 5.0,
        poll: float = 0.05,
        app_version: str = "agentcore-1",
        live: bool = True,
        pool: int = 10,
    ) -> None:
        if dead_after <= heartbeat:
            raise ValueError(f"dead_after ({dead_after}) must exceed heartbeat ({heartbeat})")
        self.url = dbos_url(database_url)
        self.definitions = definitions
        self.executor_id = executor_id or f"worker-{uuid.uuid4().hex[:12]}"
        self.concurrency = concurrency
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.poll = poll
        self.app_version = app_version
        self.live = live
        self.pool = pool
        self._stop = threading.Event()
        self._beats: threading.Thread | None = None
        self._store: Store | None = None
        self.on_ready: Callable[[], object] = lambda: None
        """Called once the worker serves the queue (``agentcore worker`` prints a line)."""

    def start(self) -> None:
        """Launch DBOS and the heartbeat thread; returns at once."""
        global _services
        from dbos import DBOS

        from .._journal.sql.postgres import PostgresJournal

        journal = PostgresJournal(self.url, batch=1 << 30)
        self._store = store = Store(self.url)
        _services = Services(self.definitions, store, journal, live=self.live)
        _register_workflow()
        DBOS(
            config={
                "name": APP_NAME,
                "system_database_url": self.url,
                "executor_id": self.executor_id,
                "application_version": self.app_version,
                "notification_listener_polling_interval_sec": 0.05,
                "log_level": "WARNING",
                "sys_db_pool_size": self.pool,
            }
        )
        DBOS.launch()
        DBOS.register_queue(
            QUEUE,
            partition_concurrency=1,
            worker_concurrency=self.concurrency,
            polling_interval_sec=self.poll,
        )
        store.notify_endings()
        store.beat(self.executor_id)
        self._beats = threading.Thread(target=self._beat, name="agentcore-heartbeat", daemon=True)
        self._beats.start()
        self.on_ready()

    def run(self) -> None:
        """``start``, then serve until ``stop()``; ``close`` afterwards."""
        self.start()
        try:
            self._stop.wait()
        finally:
            self.close()

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        """Stop beating, leave the workers table, shut DBOS down; idempotent."""
        global _services
        from dbos import DBOS

        self._stop.set()
        if self._beats is not None:
            self._beats.join()
            self._beats = None
        if self._store is not None:
            self._store.leave(self.executor_id)
        DBOS.destroy()
        if _services is not None:
            _services.journal.close()
            _services.store.close()
            _services = None
        self._store = None

    def _beat(self) -> None:
        store = self._store
        assert store is not None
        while not self._stop.wait(self.heartbeat):
            try:
                store.beat(self.executor_id)
                for dead in store.take_dead(int(self.dead_after * 1000)):
                    recovered = recover(dead)
                    store.leave(dead)
                    _log.warning("took over %d workflows of dead worker %s", recovered, dead)
            except Exception:  # a failed beat is retried on the next one
                _log.exception("heartbeat of %s failed", self.executor_id)


def recover(executor_id: str) -> int:
    """Hand the pending workflows of dead executor ``executor_id`` back to the queue (module
    docstring); how many."""
    from dbos import DBOS

    pending = DBOS.list_workflows(
        status="PENDING", executor_id=executor_id, load_input=False, load_output=False
    )
    for status in pending:
        DBOS.resume_workflow(status.workflow_id, queue_name=QUEUE)
    return len(pending)
