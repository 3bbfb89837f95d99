"""Retrying a model call until its stream delivers a first event, and never after.

A call is retried only while nothing has been yielded to the engine: on 429, 5xx,
overloaded and connection errors raised while opening the stream or reading its first
event. Once an event has been yielded, a failure ends the message with an
``error_received`` instead (the assembler keeps what was streamed), because restarting
would stream the same text twice.

Drivers build their SDK clients with ``max_retries=0`` so this policy is the only one.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Generic, TypeVar

import attrs

from agentcore import ErrorCode

from .base import Failure

__all__ = ["EMPTY_STREAM", "Opened", "RetryPolicy", "open_stream"]

T = TypeVar("T")


def _non_negative(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if value < 0:
        raise ValueError(f"RetryPolicy.{attribute.name} must be >= 0, got {value!r}")


@attrs.frozen(slots=True)
class RetryPolicy:
    """How often and how patiently to retry a call that failed before its first event.

    The n-th retry (n from 0) waits ``initial_delay * multiplier**n`` seconds, capped at
    ``max_delay``, scaled by a random factor in ``[1 - jitter, 1 + jitter]``. When the
    provider sends ``retry-after`` (or ``retry-after-ms``) that wait is used as is,
    unless it exceeds ``max_retry_after``: then the call fails at once rather than
    sleeping that long. ``timeout`` (seconds, ``None`` for none) bounds each HTTP request
    and each read of the stream.
    """

    max_retries: int = attrs.field(default=3, validator=_non_negative)
    initial_delay: float = attrs.field(default=0.5, validator=_non_negative)
    max_delay: float = attrs.field(default=30.0, validator=_non_negative)
    multiplier: float = attrs.field(default=2.0, validator=_non_negative)
    jitter: float = attrs.field(default=0.25, validator=_non_negative)
    timeout: float | None = 600.0
    max_retry_after: float = attrs.field(default=120.0, validator=_non_negative)

    def delay(self, retry: int, retry_after: float | None, draw: Callable[[], float]) -> float:
        """Seconds to wait before retry number ``retry`` (0-based); ``draw`` is in [0, 1)."""
        if retry_after is not None:
            return retry_after
        base = min(self.initial_delay * self.multiplier**retry, self.max_delay)
        return max(base * (1.0 + self.jitter * (2.0 * draw() - 1.0)), 0.0)


EMPTY_STREAM = Failure(ErrorCode.CONNECTION_ERROR, "the stream ended before its first event", True)
"""A stream that ended before its first item: worth another attempt."""


@attrs.frozen(slots=True)
class Opened(Generic[T]):
    """A stream that delivered its first item; ``attempts`` counts requests sent."""

    stream: AsyncIterator[T]
    first: T
    attempts: int


async def open_stream(
    start: Callable[[], Awaitable[AsyncIterator[T]]],
    classify: Callable[[BaseException], Failure],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    draw: Callable[[], float] = random.random,
    check: Callable[[T], object] | None = None,
) -> Opened[T] | Failure:
    """Open a stream with ``start()`` and read its first item, retrying per ``policy``.

    Returns the open stream with its first item, or the classified ``Failure`` of the last
    attempt (with ``attempts`` set) when it was not retryable, retries ran out, or
    ``retry-after`` was too long.
    A stream that ends before any item is a retryable connection failure. ``check`` is
    called on the first item: what it raises fails the attempt like a failed request
    (classified, and retried if that says so). ``sleep`` and ``draw`` are injectable so
    tests can check the waits without waiting. Cancellation (an interrupt) propagates at
    once, also out of a backoff sleep.
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            stream = await start()
            first = await anext(stream)
            if check is not None:
                check(first)
        except StopAsyncIteration:
            failure = EMPTY_STREAM
        except Exception as exc:
            failure = classify(exc)
        else:
            return Opened(stream, first, attempt)
        retries_done = attempt - 1
        if (
            not failure.retryable
            or retries_done >= policy.max_retries
            or (failure.retry_after is not None and failure.retry_after > policy.max_retry_after)
        ):
            return failure if attempt == 1 else attrs.evolve(failure, attempts=attempt)
        await sleep(policy.delay(retries_done, failure.retry_after, draw))
