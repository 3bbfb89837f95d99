"""One model call's lifecycle: open, interrupt, close (used by ``drivers._common.stream``).

The streaming skeleton makes a ``StreamCall`` per ``receive()``; ``interrupt()`` reaches
it through the driver, ``start()`` attaches each attempt's response to it, and the
skeleton closes it whatever happened::

    call = StreamCall()
    opened = await call.open(start, classify, policy)   # start() calls call.attach()
    if opened is None:                 # interrupted: end without another event
        return
    async for item in opened.stream:   # the hot loop stays a plain async for
        if call.interrupted:
            break
    ...
    await call.aclose()                # in a finally

How ``interrupt()`` reaches the call, from any thread: it sets ``interrupted`` at once
and schedules, on the call's event loop, either the cancellation of the task that opens
the stream (the request, a backoff sleep, the read of the first item) or the closing of
the attached HTTP response, which ends a read in progress. The caller's own task is never
cancelled, so it is never left with a pending cancellation; the skeleton checks
``interrupted`` after each item and each event it yields.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Mapping,
)
from typing import Any, TypeVar

from .base import Failure
from .retry import Opened, RetryPolicy, open_stream

__all__ = ["StreamCall"]

T = TypeVar("T")

Close = Callable[[], Coroutine[Any, Any, object]]
"""Closes an HTTP response (``httpx.Response.aclose``, ``openai.AsyncStream.close``)."""


class StreamCall:
    """One call's interrupt state: its loop, the task opening it, the response to close.

    ``interrupted`` is true once ``interrupt()`` was called and never goes back. Not
    reusable: make one per call, on the event loop that runs it.
    """

    __slots__ = (
        "_close",
        "_closing",
        "_loop",
        "_opening",
        "_stream",
        "headers",
        "interrupted",
        "retry_after",
    )

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._opening: asyncio.Future[Any] | None = None
        self._close: Close | None = None
        self._closing: asyncio.Task[object] | None = None
        self._stream: AsyncIterator[Any] | None = None
        self.interrupted = False
        self.headers: Mapping[str, str] | None = None
        """The latest response's headers, when the driver reports them (rate budgets)."""
        self.retry_after: float | None = None
        """The ``retry-after`` of the latest 429, for the rate budget."""

    def attach(self, close: Close) -> None:
        """Make ``close`` what ``interrupt()`` and ``aclose()`` call (the latest response).

        Called by ``start()`` as soon as a response exists; the next attempt, if any,
        closes it before starting again.
        """
        self._close = close

    def interrupt(self) -> None:
        """Stop the call promptly; idempotent, callable from any thread, even after the end.

        Sets ``interrupted`` now; the cancellation or the close runs on the call's loop.
        """
        if self.interrupted:
            return
        self.interrupted = True
        with contextlib.suppress(RuntimeError):  # a closed loop: the call is long over
            self._loop.call_soon_threadsafe(self._stop)

    def _stop(self) -> None:
        opening = self._opening
        if opening is not None and not opening.done():
            opening.cancel()
        elif self._close is not None and self._closing is None:
            self._closing = self._loop.create_task(self._close())

    async def pause(
        self, seconds: float, sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
    ) -> bool:
        """Wait ``seconds`` (a rate budget's wait) in a task ``interrupt()`` can cancel, as
        ``open`` does; whether the wait ran out (``False``: interrupted before or in it)."""
        if self.interrupted:
            return False
        waiting = asyncio.ensure_future(sleep(seconds))
        self._opening = waiting
        try:
            await waiting
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self.interrupted and (task is None or not task.cancelling()):
                return False
            raise
        finally:
            self._opening = None
        return not self.interrupted

    async def open(
        self,
        start: Callable[[], Awaitable[AsyncIterator[T]]],
        classify: Callable[[BaseException], Failure],
        policy: RetryPolicy,
        *,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        check: Callable[[T], object] | None = None,
    ) -> Opened[T] | Failure | None:
        """``open_stream`` (retries and all) in a task ``interrupt()`` can cancel.

        Returns the opened stream, the ``Failure`` to report, or ``None`` when the call was
        interrupted (before, during, or just as the stream opened). A cancellation of the
        caller's own task propagates as usual.
        """
        if self.interrupted:
            return None

        async def attempt() -> AsyncIterator[T]:
            close, self._close = self._close, None
            if close is not None:  # the previous attempt's response, which failed
                await close()
            return await start()

        opening = asyncio.ensure_future(
            open_stream(attempt, classify, policy, sleep=sleep, check=check)
        )
        self._opening = opening
        try:
            opened = await opening
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self.interrupted and (task is None or not task.cancelling()):
                return None
            raise
        finally:
            self._opening = None
        if isinstance(opened, Opened):
            self._stream = opened.stream
        return None if self.interrupted else opened

    async def aclose(self) -> None:
        """Close the attached response and the opened stream; idempotent.

        Waits for a close ``interrupt()`` already started. An async generator a driver
        wrapped around the response is closed too. A later ``interrupt()`` finds nothing.
        """
        close, self._close = self._close, None
        closing, self._closing = self._closing, None
        stream, self._stream = self._stream, None
        if closing is not None:
            await closing
        elif close is not None:
            await close()
        if isinstance(stream, AsyncGenerator):
            await stream.aclose()
