"""Waiting on PostgreSQL notifications, with a slow poll behind them.

``Notices(conninfo, channel)`` keeps one connection that ``LISTEN``s on ``channel``, read
by a daemon thread. ``await notices.wait(key, done)`` returns once ``await done()`` says
yes; it asks when it starts, again on each notification whose payload is ``key``, and
again every ``poll`` seconds. The poll is the fallback that makes a lost notification
cost latency, never a hang: a notification is lost while the listening connection is
down (the thread reconnects within ``_RETRY`` seconds and wakes every waiter to ask
again), or when it is sent before the channel is listened to (``listening()`` waits for
that). A waiter registers before it asks, so a notification sent between the answer
"no" and the wait still wakes it.

One connection serves every waiter of a process, whatever event loop each runs in;
``close()`` (idempotent) stops the thread within ``_TICK`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["Notices"]

_TICK = 0.2
"""How often the listening thread looks whether it was closed (seconds)."""
_RETRY = 0.5
"""How long the listening thread waits before it connects again (seconds)."""

_log = logging.getLogger("agentcore.durable")


class Notices:
    """Waiters woken by notifications on ``channel`` (module docstring)."""

    def __init__(self, conninfo: str, channel: str, *, poll: float = 1.0) -> None:
        if not channel.isidentifier():
            raise ValueError(f"a channel is an identifier, got {channel!r}")
        self.conninfo = conninfo
        self.channel = channel
        self.poll = poll
        self._waiters: dict[str, list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]]
        self._waiters = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(
            target=self._listen, name=f"agentcore-listen-{channel}", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop listening; idempotent. Waiters keep waiting on their poll alone."""
        self._closed.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def listening(self, timeout: float | None = None) -> bool:
        """Whether the channel is listened to (waiting up to ``timeout`` seconds)."""
        return self._listening.wait(timeout)

    async def wait(self, key: str, done: Callable[[], Awaitable[bool]]) -> None:
        """Return once ``await done()`` is true (module docstring)."""
        loop = asyncio.get_running_loop()
        while True:
            woken: asyncio.Future[None] = loop.create_future()
            entry = (loop, woken)
            with self._lock:
                self._waiters.setdefault(key, []).append(entry)
            try:
                if await done():
                    return
                await asyncio.wait([woken], timeout=self.poll)
            finally:
                with self._lock:
                    entries = self._waiters.get(key, [])
                    if entry in entries:
                        entries.remove(entry)
                    if not entries:
                        self._waiters.pop(key, None)

    def _wake(self, key: str | None) -> None:
        """Wake the waiters on ``key`` (every waiter for ``None``)."""
        with self._lock:
            if key is None:
                entries = [e for found in self._waiters.values() for e in found]
            else:
                entries = list(self._waiters.get(key, ()))
        for loop, woken in entries:
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits there
                loop.call_soon_threadsafe(_resolve, woken)

    def _listen(self) -> None:
        import psycopg

        while not self._closed.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {self.channel}")
                    self._listening.set()
                    self._wake(None)  # what was sent while nobody listened: ask again
                    while not self._closed.is_set():
                        for note in conn.notifies(timeout=_TICK):
                            self._wake(note.payload)
            except Exception:  # the database went away: listen again, waiters poll
                self._listening.clear()
                _log.warning("listening on %s failed; retrying", self.channel, exc_info=True)
                self._closed.wait(_RETRY)
        self._listening.clear()


def _resolve(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_result(None)
