"""``receive``'s queue: messages processed one at a time, in arrival order, through the
onion of middleware.

Each caller's ``await`` settles when *its* message is done. Cancelling a caller whose
message is queued removes it; cancelling one whose message runs aborts that run (the
next message starts afterwards). ``close`` rejects what is still queued with
``MessageRejectedError``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from .._core.errors import MessageRejectedError
from .._core.events import UserMessage
from .middleware import MessageQueueView, Middleware, Next, Reply, bind
from .subscriptions import Unsubscribe

__all__ = ["Inbox"]


class Inbox:
    """Runs ``process(message)`` for each received message, one at a time; calls
    ``on_empty()`` each time the queue has run dry."""

    def __init__(
        self,
        process: Callable[[UserMessage], Awaitable[Reply]],
        on_empty: Callable[[], None],
    ) -> None:
        self._process = process
        self._on_empty = on_empty
        self._queue: deque[tuple[UserMessage, asyncio.Future[Reply]]] = deque()
        self._worker: asyncio.Task[None] | None = None
        self._middleware: tuple[Middleware, ...] = ()
        self.view = MessageQueueView(self._queue)

    @property
    def pending(self) -> bool:
        """Whether a message is queued or being processed."""
        return bool(self._queue) or self._worker is not None

    def use(self, middleware: Middleware) -> Unsubscribe:
        """Add ``middleware`` around message processing (first added = outermost)."""
        if not callable(middleware):
            raise TypeError(f"a middleware must be callable as (message, next), got {middleware!r}")
        self._middleware = (*self._middleware, middleware)

        def remove() -> None:
            self._middleware = tuple(m for m in self._middleware if m is not middleware)

        return remove

    async def receive(self, message: UserMessage, abort: Callable[[str], None]) -> Reply:
        """Queue ``message``; return its ``Reply`` once it is processed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Reply] = loop.create_future()
        self._queue.append((message, future))
        if self._worker is None:
            self._worker = loop.create_task(self._work(abort))
        return await future

    async def _work(self, abort: Callable[[str], None]) -> None:
        def cancelled(future: asyncio.Future[Reply]) -> None:
            if future.cancelled():
                abort("cancelled")

        try:
            while self._queue:
                message, future = self._queue.popleft()
                if future.done():  # its caller gave up while it was queued
                    continue
                future.add_done_callback(cancelled)
                try:
                    reply = await self._through_middleware(message)
                except Exception as exc:
                    if not future.done():
                        future.set_exception(exc)
                else:
                    if not future.done():
                        future.set_result(reply)
                finally:
                    future.remove_done_callback(cancelled)
        finally:
            self._worker = None
        self._on_empty()

    async def _through_middleware(self, message: UserMessage) -> Reply:
        replies: list[Reply] = []

        async def innermost(msg: UserMessage) -> Reply:
            if replies:
                raise RuntimeError("a middleware called next() twice for one message")
            reply = await self._process(msg)
            replies.append(reply)
            return reply

        chain: Next = innermost
        for middleware in reversed(self._middleware):
            chain = bind(middleware, chain, replies)
        return await chain(message)

    def close(self, agent_id: str) -> None:
        """Reject every queued message (``MessageRejectedError``)."""
        while self._queue:
            message, future = self._queue.popleft()
            if not future.done():
                future.set_exception(
                    MessageRejectedError(
                        f"message {message.message_id} was discarded: agent {agent_id} was "
                        "closed before it ran"
                    )
                )

    async def wait(self) -> None:
        """Wait for the message being processed, if any (its run was aborted)."""
        worker = self._worker
        if worker is not None and worker is not asyncio.current_task():
            await asyncio.wait([worker])
