"""The arithmetic of a rate budget: a token bucket with reservations, as pure functions.

A ``RateLimit`` says "at most ``limit`` units (requests, or tokens) in any ``window``
seconds". Its bucket holds at most ``burst`` units and refills at ``rate = (limit -
burst) / window`` per second, so in any window of ``window`` seconds it grants at most
``burst + rate * window = limit``: the budget is never exceeded, and a steady stream of
calls gets ``(limit - burst) / limit`` of it (98% of 60 requests a minute with the default
burst of one).

A ``Bucket`` is ``(level, at)``: ``level`` units are available at time ``at`` (seconds on
the store's clock). ``reserve`` grants an amount at the earliest time it fits, after
every reservation already made, and moves the bucket to that time, so concurrent callers
queue in order without polling; ``at`` may lie in the future. An amount above ``burst``
is granted when the bucket is full and leaves it owing (``level < 0``), so the long-run
rate still holds. ``settle`` corrects a reservation by what the call really used (an
estimate before the call, the reported usage after), ``observe`` lowers the level to
what the provider says remains, and ``block`` holds every grant until a time (a 429's
``retry-after``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

__all__ = ["Bucket", "RateLimit", "block", "full", "level_at", "observe", "reserve", "settle"]


def _positive(owner: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"RateLimit.{attribute.name} must be a number > 0, got {value!r}")


@attrs.frozen(slots=True)
class RateLimit:
    """At most ``limit`` units in any ``window`` seconds (60: per minute). ``burst`` (default:
    a sixtieth of the limit, at least one unit, at most half the limit) is how much may go
    at once after a quiet spell; it must be below ``limit``."""

    limit: float = attrs.field(validator=_positive)
    window: float = attrs.field(default=60.0, validator=_positive)
    burst: float | None = attrs.field(default=None, validator=_positive)

    def __attrs_post_init__(self) -> None:
        if self.capacity >= self.limit:
            raise ValueError(
                f"RateLimit.burst must be below the limit ({self.limit}), got {self.capacity}"
            )

    @property
    def capacity(self) -> float:
        """The most the bucket holds: ``burst``, or its default (the class docstring)."""
        if self.burst is not None:
            return self.burst
        return min(max(1.0, self.limit / 60), self.limit / 2)

    @property
    def rate(self) -> float:
        """Units added per second."""
        return (self.limit - self.capacity) / self.window


class Bucket(NamedTuple):
    level: float
    """Units available at ``at`` (negative: owed by a grant larger than the burst)."""
    at: float
    """The time of ``level``; later than now while reservations are queued."""


def full(limit: RateLimit, now: float) -> Bucket:
    """A bucket nobody has drawn from."""
    return Bucket(limit.capacity, now)


def level_at(bucket: Bucket, limit: RateLimit, when: float) -> float:
    """The level at ``when`` (no earlier than ``bucket.at``), refilled and capped."""
    if when <= bucket.at:
        return bucket.level
    return min(limit.capacity, bucket.level + limit.rate * (when - bucket.at))


def reserve(bucket: Bucket, amount: float, limit: RateLimit, now: float) -> tuple[Bucket, float]:
    """Grant ``amount`` at the earliest time it fits, after the reservations made before:
    ``(bucket after the grant, grant time)``. It fits when the level reaches the amount
    (the burst, for an amount above it)."""
    start = max(now, bucket.at)
    level = level_at(bucket, limit, start)
    need = min(amount, limit.capacity)
    if level >= need:
        return Bucket(level - amount, start), start
    when = start + (need - level) / limit.rate
    return Bucket(need - amount, when), when


def settle(bucket: Bucket, used: float, reserved: float, limit: RateLimit, now: float) -> Bucket:
    """Correct a grant of ``reserved`` to what was ``used``: give back what was not used
    (never above the burst), or owe what was used beyond it."""
    when = max(now, bucket.at)
    level = level_at(bucket, limit, when) + reserved - used
    return Bucket(min(limit.capacity, level), when)


def observe(bucket: Bucket, remaining: float, limit: RateLimit, now: float) -> Bucket:
    """The provider says ``remaining`` units are left now: never assume more than that."""
    when = max(now, bucket.at)
    return Bucket(min(level_at(bucket, limit, when), remaining), when)


def block(bucket: Bucket, until: float, limit: RateLimit, now: float) -> Bucket:
    """Grant nothing before ``until`` (a provider's ``retry-after``), and start empty then."""
    when = max(now, bucket.at)
    level = min(level_at(bucket, limit, when), 0.0)
    return Bucket(level, max(when, until))
