"""Getting each output to every presenter and subscriber, with failures isolated.

Ordering and backpressure guarantee (documented in docs/runtime.md):

- Every presenter sees every delivered output, in delivery order.
- ``present`` is called inline, in order, for every presenter. A presenter whose
  ``present`` returns an awaitable (an ``async def present``) has its awaitables run one
  after the other on its own task (its *lane*), so a slow async presenter delays nobody
  else. When a lane has more than ``max_pending`` awaitables waiting, the engine pauses
  the driver until the lane is below the mark again: memory stays bounded and nothing is
  dropped.
- A presenter, subscriber or interceptor that raises is reported once per failure to
  the engine's error channel (``on_error`` handlers, else the ``agentcore.engine``
  logger) as an ``EngineFailure``; the others still get the output.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from .._edges.presenter import Presenter

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .._core.records import frozen

__all__ = ["EngineFailure", "FailureSource", "PresenterLane", "Reporter"]

logger = logging.getLogger("agentcore.engine")

FailureSource = Literal[
    "presenter",
    "handler",
    "interceptor",
    "error_handler",
    "journal",
    "middleware",
    "extension",
    "guardrail",
    "toolset",
]


@frozen
class EngineFailure:
    """A plugin failed while the engine delivered ``output``; the engine carried on.

    ``source`` says which kind of plugin, ``name`` which one (its repr), ``error`` is the
    exception it raised.
    """

    source: FailureSource
    name: str
    error: BaseException
    output: Any = None


Reporter = Callable[[EngineFailure], None]


class PresenterLane:
    """One presenter: inline ``present`` calls, awaitables run in order on a lane task."""

    __slots__ = ("_drained", "_pending", "_report", "_task", "max_pending", "name", "presenter")

    def __init__(self, presenter: Presenter, report: Reporter, max_pending: int) -> None:
        if not callable(getattr(presenter, "present", None)):
            raise TypeError(
                f"a presenter needs a present(agent_id, output) method; got {presenter!r}"
            )
        self.presenter = presenter
        self.name = repr(presenter)
        self.max_pending = max_pending
        self._report = report
        self._pending: deque[tuple[Awaitable[Any], Any]] = deque()
        self._task: asyncio.Task[None] | None = None
        self._drained: asyncio.Event | None = None

    def deliver(self, agent_id: str, output: Any) -> bool:
        """Hand ``output`` over; return True when the lane is congested (caller waits)."""
        try:
            result = self.presenter.present(agent_id, output)
        except Exception as exc:
            self.failed(exc, output)
            return False
        return result is not None and self.accept(result, output)

    def failed(self, exc: Exception, output: Any) -> None:
        """Report that presenting ``output`` raised ``exc``."""
        self._report(EngineFailure("presenter", self.name, exc, output))

    def accept(self, result: Any, output: Any) -> bool:
        """Take what ``present(output)`` returned (not ``None``): an awaitable is queued
        and awaited in order; return True when the lane is congested (caller waits)."""
        if not inspect.isawaitable(result):
            return False
        self._pending.append((result, output))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
        return len(self._pending) > self.max_pending

    @property
    def pending(self) -> int:
        """Awaitables handed over and not yet finished."""
        return len(self._pending)

    async def _run(self) -> None:
        try:
            while self._pending:
                awaitable, output = self._pending[0]
                try:
                    await awaitable
                except Exception as exc:
                    self._report(EngineFailure("presenter", self.name, exc, output))
                finally:
                    if self._pending and self._pending[0][0] is awaitable:  # not cancel()ed
                        self._pending.popleft()
                    if self._drained is not None and len(self._pending) <= self.max_pending:
                        self._drained.set()
        finally:
            self._task = None
            if self._drained is not None:
                self._drained.set()

    async def wait_below_mark(self) -> None:
        """Return once at most ``max_pending`` awaitables are waiting. Any number of tasks
        may wait at once (sub-agents streaming into one parent's presenters do): they
        share one event."""
        while len(self._pending) > self.max_pending and self._task is not None:
            drained = self._drained
            if drained is None:
                drained = self._drained = asyncio.Event()
            await drained.wait()
            if self._drained is drained:
                self._drained = None

    async def drain(self) -> None:
        """Return once every handed-over awaitable has finished."""
        while self._task is not None:
            await asyncio.shield(self._task)

    def cancel(self) -> None:
        """Stop the lane task (the awaitable it is in is cancelled with it); awaitables
        not yet run are closed, not awaited."""
        if self._task is not None and self._pending:
            self._task.cancel()
            self._pending.popleft()  # the task's cancellation ends this one
        while self._pending:
            awaitable, _ = self._pending.popleft()
            close = getattr(awaitable, "close", None)
            if close is not None:
                close()


def report_to(handlers: Callable[[], tuple[Callable[[EngineFailure], object], ...]]) -> Reporter:
    """A reporter calling every error handler, or logging when there is none.

    A failing error handler is logged (never re-reported, so it cannot loop).
    """

    def report(failure: EngineFailure) -> None:
        current = handlers()
        if not current:
            logger.error(
                "%s %s failed on %r",
                failure.source,
                failure.name,
                failure.output,
                exc_info=failure.error,
            )
            return
        for handler in current:
            try:
                handler(failure)
            except Exception:
                logger.exception("error handler %r failed on %r", handler, failure)

    return report
