"""``agent.stream(prompt)``: the events of one run, as an async iterator that cleans up.

Leaving the loop early aborts the run, however it is left: ``break``, an exception, or
the iterator being dropped. Python does not close an iterator a ``for`` loop leaves, so
this object aborts the run from ``__del__`` when it is dropped unfinished (at once in
CPython, whose reference counting drops it when the loop ends), from ``aclose()``, and
from ``async with``. The next ``prompt`` then waits for the aborted run to wind down
instead of raising ``AgentBusyError``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["RunStream"]


class RunStream(AsyncIterator[Any]):
    """Every event delivered during one run, ending with ``agent_end`` (or with
    ``tool_approval_required`` when the run pauses); the run starts on the first
    ``__anext__``. Raises what the run's start raises (``AgentBusyError``...)."""

    def __init__(
        self,
        start: Callable[[], Coroutine[Any, Any, object]],
        subscribe: Callable[[Callable[[Any], object]], Callable[[], None]],
        abort: Callable[[str], None],
    ) -> None:
        self._start = start
        self._subscribe = subscribe
        self._abort = abort
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[object] | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._done = False

    def __aiter__(self) -> RunStream:
        return self

    async def __anext__(self) -> Any:
        if self._done:
            raise StopAsyncIteration
        if self._task is None:
            self._unsubscribe = self._subscribe(self._queue.put_nowait)
            self._task = asyncio.ensure_future(self._start())
        task, queue = self._task, self._queue
        while queue.empty() and not task.done():
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                return getter.result()
            getter.cancel()
        if not queue.empty():
            return queue.get_nowait()
        self._finish()
        task.result()  # the run's start failed: raise it here
        raise StopAsyncIteration

    def _finish(self) -> None:
        self._done = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _abandon(self) -> None:
        """Abort the run if it is still going (idempotent)."""
        if self._done:
            return
        task = self._task
        self._finish()
        if task is not None and not task.done():
            self._abort("stream closed")

    async def aclose(self) -> None:
        """Abort the run if it is still going and wait for it to wind down."""
        task = self._task
        self._abandon()
        if task is not None:
            await asyncio.wait([task])

    async def __aenter__(self) -> RunStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # nothing may escape a finaliser
            self._abandon()
