"""``receive``'s queue: messages processed one at a time, in arrival order.

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
from .middleware import MessageQueueView, Reply

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
        self.view = MessageQueueView(self._queue)

    @property
    def pending(self) -> bool:
        """Whether a message is queued or being processed."""
        return bool(self._queue) or self._worker is not None

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
                    reply = await self._process(message)
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
