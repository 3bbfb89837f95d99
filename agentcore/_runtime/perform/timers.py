"""``SetTimer``: a ``clock_tick`` is fed at the given time (one timer at a time)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..._loop.events import ClockTick

__all__ = ["Timer"]


class Timer:
    """One pending ``clock_tick``; setting it again replaces it."""

    def __init__(self, feed: Callable[[Any], None], clock: Callable[[], int]) -> None:
        self._feed = feed
        self._clock = clock
        self._task: asyncio.Task[None] | None = None

    def set(self, at_ms: int) -> None:
        self.cancel()
        self._task = asyncio.get_running_loop().create_task(self._tick_at(at_ms))

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _tick_at(self, at_ms: int) -> None:
        while (now := self._clock()) < at_ms:
            await asyncio.sleep((at_ms - now) / 1000)
        self._task = None
        self._feed(ClockTick(timestamp=now))
