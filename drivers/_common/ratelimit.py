"""Rate budgets: requests and tokens per minute per provider and model, shared by every
driver of a process (and, with ``PostgresRateStore``, by every worker of a fleet).

A ``RateBudget`` maps scopes to ``Rates``: a scope is a provider (``"anthropic"``, all its
models together) or one model (``"anthropic/claude-sonnet-4-5"``); a call counts against
both. Before a call is sent, the driver skeleton ``acquire``s what it will use (one
request, its input tokens estimated from the request body, its output tokens estimated
from ``max_tokens``); the budget reserves them in each bucket (``ratebucket``) and says
how long to wait. After the call, ``settle`` corrects the token reservations by the usage
the provider reported; a call interrupted during its wait gives everything back.

The provider's own view feeds the same buckets: the ``anthropic-ratelimit-*`` and
``x-ratelimit-*`` response headers lower a bucket to what the provider says remains (and,
with ``learn=True``, set a limit for a scope that has none), and a 429's ``retry-after``
holds that scope's requests until then.

Buckets live in a ``RateStore``: ``MemoryRateStore`` for one process (the default),
``PostgresRateStore`` for processes that share a database (each bucket one row, updated
under a row lock, on the database's clock).
"""

from __future__ import annotations

import json
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeAlias, TypeVar, cast

import attrs

from agentcore.events import Usage

from .base import plain
from .ratebucket import Bucket, RateLimit, block, full, observe, reserve, settle

__all__ = [
    "KINDS",
    "MemoryRateStore",
    "RateBudget",
    "RateStore",
    "Rates",
    "Ticket",
    "header_limits",
    "process_budget",
    "set_process_budget",
]

Kind: TypeAlias = Literal["requests", "tokens", "input_tokens", "output_tokens"]
KINDS: tuple[Kind, ...] = ("requests", "tokens", "input_tokens", "output_tokens")
"""What a limit counts: requests, tokens in and out together (OpenAI's ``tokens``), input
tokens (uncached input and cache writes), output tokens."""

T = TypeVar("T")
Change: TypeAlias = Callable[[Bucket, float], tuple[Bucket, T]]
"""A pure change of one bucket at a time on the store's clock: ``(new bucket, result)``."""


@attrs.frozen(slots=True)
class Rates:
    """The limits of one scope; ``None``: that kind is not limited."""

    requests: RateLimit | None = None
    tokens: RateLimit | None = None
    input_tokens: RateLimit | None = None
    output_tokens: RateLimit | None = None

    def limit(self, kind: Kind) -> RateLimit | None:
        value: RateLimit | None = getattr(self, kind)
        return value


class RateStore(ABC):
    """Where buckets live. One required method: apply ``change`` to the bucket ``key``
    (a full bucket of ``limit`` if there is none yet) atomically, on the store's clock."""

    @abstractmethod
    async def update(self, key: str, limit: RateLimit, change: Change[T]) -> T: ...

    async def aclose(self) -> None:  # noqa: B027 (a no-op default: most stores hold nothing)
        """Release what the store holds (a connection); idempotent."""


class MemoryRateStore(RateStore):
    """Buckets in this process, shared by every event loop and thread of it; the clock is
    ``time.monotonic`` unless given."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, Bucket] = {}

    async def update(self, key: str, limit: RateLimit, change: Change[T]) -> T:
        with self._lock:
            now = self._clock()
            bucket, result = change(self._buckets.get(key) or full(limit, now), now)
            self._buckets[key] = bucket
            return result

    def __repr__(self) -> str:
        return f"MemoryRateStore({len(self._buckets)} buckets)"


@attrs.frozen(slots=True)
class Ticket:
    """What one call reserved: ``(key, limit, amount)`` per bucket, the wait before it may
    be sent, and the scope and kind that made it wait longest (for the notice)."""

    reserved: tuple[tuple[str, RateLimit, float], ...]
    wait: float
    scope: str
    kind: str


def _wait_until(amount: float, limit: RateLimit, delay: float) -> Change[float]:
    def change(bucket: Bucket, now: float) -> tuple[Bucket, float]:
        bucket, when = reserve(bucket, amount, limit, now + delay)
        return bucket, when - now

    return change


def _settle(used: float, reserved: float, limit: RateLimit) -> Change[None]:
    return lambda bucket, now: (settle(bucket, used, reserved, limit, now), None)


def _observe(remaining: float, limit: RateLimit) -> Change[None]:
    return lambda bucket, now: (observe(bucket, remaining, limit, now), None)


def _block(seconds: float, limit: RateLimit) -> Change[None]:
    return lambda bucket, now: (block(bucket, now + seconds, limit, now), None)


def _used(kind: str, usage: Usage) -> float:
    taken = usage.input_tokens + usage.cache_write_tokens
    if kind == "input_tokens":
        return taken
    if kind == "output_tokens":
        return usage.output_tokens
    return taken + usage.output_tokens  # tokens


def estimate_input(body: Any) -> int:
    """Input tokens a request body will count, roughly: four characters of its JSON a token."""
    return len(json.dumps(plain(body), default=str)) // 4


class RateBudget:
    """Limits per scope over a store (module docstring).

    ``limits`` maps scopes (``"provider"`` or ``"provider/model"``) to ``Rates``;
    ``learn=True`` also limits a scope by the limits its provider's headers announce.
    ``output_estimate`` is the output reserved for a call that sets no ``max_tokens``.
    """

    def __init__(
        self,
        limits: Mapping[str, Rates] | None = None,
        *,
        store: RateStore | None = None,
        learn: bool = False,
        output_estimate: int = 1024,
    ) -> None:
        self.limits: dict[str, Rates] = dict(limits or {})
        self.store = store if store is not None else MemoryRateStore()
        self.learn = learn
        self.output_estimate = output_estimate
        self._learned: dict[str, Rates] = {}

    def __repr__(self) -> str:
        return f"RateBudget({self.limits!r}, store={self.store!r}, learn={self.learn})"

    def scopes(self, provider: str, model: str) -> list[tuple[str, Rates]]:
        """The scopes a call of ``model`` at ``provider`` counts against, with their rates."""
        found = []
        for scope in (provider, f"{provider}/{model}"):
            rates = self.limits.get(scope) or self._learned.get(scope)
            if rates is not None:
                found.append((scope, rates))
        return found

    def applies(self, provider: str, model: str) -> bool:
        """Whether any limit covers this call (else the skeleton skips the budget)."""
        return bool(self.limits or self._learned) and bool(self.scopes(provider, model))

    async def acquire(
        self,
        provider: str,
        model: str,
        body: Any,
        max_tokens: int | None,
        *,
        kinds: tuple[Kind, ...] = KINDS,
        delay: float = 0.0,
    ) -> Ticket | None:
        """Reserve one call's request and estimated tokens (of ``kinds``) in every bucket
        that covers it, no sooner than ``delay`` seconds from now (a retry's backoff);
        ``None`` when no limit does. ``Ticket.wait`` counts from now."""
        scopes = self.scopes(provider, model)
        if not scopes:
            return None
        amounts: dict[str, float] = {"requests": 1.0}
        reserved: list[tuple[str, RateLimit, float]] = []
        longest = (delay, scopes[0][0], "requests")
        for scope, rates in scopes:
            for kind in kinds:
                limit = rates.limit(kind)
                if limit is None:
                    continue
                if kind not in amounts:
                    amounts[kind] = self._estimate(kind, body, max_tokens)
                key = f"{scope}:{kind}"
                wait = await self.store.update(key, limit, _wait_until(amounts[kind], limit, delay))
                reserved.append((key, limit, amounts[kind]))
                if wait > longest[0]:
                    longest = (wait, scope, kind)
        return Ticket(tuple(reserved), longest[0], longest[1], longest[2])

    def _estimate(self, kind: str, body: Any, max_tokens: int | None) -> float:
        output = float(max_tokens or self.output_estimate)
        if kind == "output_tokens":
            return output
        taken = float(estimate_input(body))
        return taken if kind == "input_tokens" else taken + output

    async def settle(self, ticket: Ticket, usage: Usage | None, *, sent: bool = True) -> None:
        """Correct ``ticket`` by the reported ``usage`` (tokens only: the request was made),
        or give everything back for a call that was never ``sent``."""
        for key, limit, amount in ticket.reserved:
            kind = key.rpartition(":")[2]
            if not sent:
                used = 0.0
            elif usage is None or kind == "requests":
                continue
            else:
                used = _used(kind, usage)
            await self.store.update(key, limit, _settle(used, amount, limit))

    async def observe(self, provider: str, model: str, headers: Mapping[str, str]) -> None:
        """Feed a response's rate-limit headers to the model's scope (and, when they announce
        a limit the budget lacks and ``learn`` is on, adopt it)."""
        announced = header_limits(headers)
        if not announced:
            return
        scope = f"{provider}/{model}"
        if self.learn:
            known = self.limits.get(scope) or self._learned.get(scope) or Rates()
            adopted = {
                kind: RateLimit(limit)
                for kind, (limit, _) in announced.items()
                if known.limit(kind) is None and limit >= 2
            }
            if adopted:
                self._learned[scope] = attrs.evolve(known, **adopted)
        for scope_name, rates in self.scopes(provider, model):
            for kind, (_, remaining) in announced.items():
                limit = rates.limit(kind)
                if limit is not None and remaining is not None:
                    key = f"{scope_name}:{kind}"
                    await self.store.update(key, limit, _observe(remaining, limit))

    async def blocked(self, provider: str, model: str, seconds: float) -> None:
        """A 429 asked to retry after ``seconds``: hold every covering scope's requests."""
        for scope, rates in self.scopes(provider, model):
            if rates.requests is not None:
                key = f"{scope}:requests"
                await self.store.update(key, rates.requests, _block(seconds, rates.requests))


_ANTHROPIC = re.compile(
    r"anthropic-ratelimit-(requests|tokens|input-tokens|output-tokens)-(limit|remaining)"
)
_OPENAI = re.compile(r"x-ratelimit-(limit|remaining)-(requests|tokens)")


def header_limits(headers: Mapping[str, str]) -> dict[Kind, tuple[float, float | None]]:
    """``{kind: (limit, remaining)}`` from ``anthropic-ratelimit-*`` or ``x-ratelimit-*``
    headers (a kind whose limit is missing or unreadable is left out)."""
    found: dict[str, dict[str, float]] = {}
    for name, value in headers.items():
        lowered = name.lower()
        match = _ANTHROPIC.fullmatch(lowered)
        if match is not None:
            kind, field = match.group(1).replace("-", "_"), match.group(2)
        else:
            match = _OPENAI.fullmatch(lowered)
            if match is None:
                continue
            field, kind = match.group(1), match.group(2)
        try:
            found.setdefault(kind, {})[field] = float(value)
        except ValueError:
            continue
    return {
        cast(Kind, kind): (values["limit"], values.get("remaining"))
        for kind, values in found.items()
        if "limit" in values and values["limit"] > 0
    }


_PROCESS = RateBudget()
_PROCESS_LOCK = threading.Lock()


def process_budget() -> RateBudget:
    """The budget every driver of this process uses unless given its own (no limits until
    ``set_process_budget``)."""
    return _PROCESS


def set_process_budget(budget: RateBudget) -> RateBudget:
    """Make ``budget`` the one every driver of this process uses; returns the previous."""
    global _PROCESS
    with _PROCESS_LOCK:
        previous, _PROCESS = _PROCESS, budget
    return previous
