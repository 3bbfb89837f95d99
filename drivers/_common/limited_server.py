"""A local fake provider that throttles like a real one: ``LimitedServer`` answers every
request with a short Chat Completions stream while fewer than ``limit`` requests were
accepted in the last ``window`` seconds, and with a 429 (``retry-after``) above that.

It is a ``ReplayServer`` (real sockets, HTTP/1.1, keep-alive) whose answer depends on the
clock, for rate-budget tests and the ``ratelimit`` benchmark::

    async with LimitedServer(limit=60, window=6.0) as server:
        driver = get_driver("openai/fake", base_url=server.base_url, api_key="k")
        ...
    server.accepted   # monotonic times of the requests answered 200
    server.rejected   # those of the requests answered 429
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Sequence

from .replay_server import ReplayServer, ScriptedResponse, sse_response
from .replies import Said, reply_chunks, reply_sse

__all__ = ["LimitedServer", "busiest_window"]

_ANSWER = sse_response(reply_sse("openai", reply_chunks("openai", [Said(("ok",))])))


class LimitedServer(ReplayServer):
    """At most ``limit`` answered requests in any ``window`` seconds (module docstring)."""

    def __init__(
        self, limit: int, window: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.limit = limit
        self.window = window
        self._clock = clock
        self._recent: collections.deque[float] = collections.deque()
        self.accepted: list[float] = []
        self.rejected: list[float] = []

    def _take(self) -> ScriptedResponse:
        now = self._clock()
        while self._recent and self._recent[0] <= now - self.window:
            self._recent.popleft()
        if len(self._recent) >= self.limit:
            self.rejected.append(now)
            retry = max(0.0, self._recent[0] + self.window - now)
            body = {"error": {"type": "rate_limit_exceeded", "message": "slow down"}}
            return ScriptedResponse.json(429, body, headers={"retry-after": f"{retry:.3f}"})
        self._recent.append(now)
        self.accepted.append(now)
        return _ANSWER


def busiest_window(times: Sequence[float], window: float) -> int:
    """The most of ``times`` (sorted) that fall in any half-open span of ``window`` seconds."""
    best, start = 0, 0
    for end, at in enumerate(times):
        while times[start] <= at - window:
            start += 1
        best = max(best, end - start + 1)
    return best
