"""``FallbackDriver``: a chain of drivers that answers as one, and ``ProviderLimits``.

::

    chain = ["anthropic/claude-sonnet-4-5", "openai/gpt-4.1", "google/gemini-2.5-pro"]
    driver = FallbackDriver(chain, limits=ProviderLimits({"anthropic": 4}))
    agent = Agent(chain)   # builds one

A call goes to the first driver. When it fails before answering, with an error
``should_fall_back`` accepts (by default ``falls_back``: a retryable error, such as
overloaded, rate limited, 5xx or a dropped connection, or a context overflow), the next
driver gets the same request, and so on down the chain; the last one's error is
reported, naming the earlier failures. "Before answering" means before any event other
than ``message_start``: the ``message_start`` of an attempt is held back until its next
event, so an error that arrives right after it (Anthropic's in-band ``overloaded_error``)
still falls back and nothing of the failed attempt reaches the engine.

Once an attempt has streamed anything else, it is the answer: a later failure ends it
with its error as from any driver (the message is kept as ``incomplete``) and no other
driver is asked, since that would show the user a second, different beginning. The
loop's ``model_retries`` then issues the call again, and the chain starts over from its
first driver.

Each driver converts the history for its own provider, so the same request suits all of
them: content parts become each provider's blocks, and a part a provider does not take
is refused by its driver before anything is sent (``UNSUPPORTED_CONTENT``), which passes
the call to the next driver; when none takes it, the error names every refusal. Thinking
is replayed only to the provider (Anthropic) or model (OpenAI, Gemini) that produced it
and becomes text elsewhere, and tool-call ids are rewritten to each provider's alphabet.
``request.model`` and ``request.options`` name one provider's model and extras, so only
the first driver gets them; the others use their own model and no options.

Entries are drivers or ``"provider/model"`` names; a name is resolved on the first call
that needs it (by ``driver_factory``, default: the ``agentcore.drivers`` entry points),
so an unused fallback never needs its key. A name that cannot be resolved fails its
attempt with ``CONFIGURATION_ERROR``. A driver that raises is treated as if it had
reported the error (``DRIVER_ERROR`` unless the exception carries a code).

Cancellation: ``interrupt()`` (idempotent, any thread) stops the attempt in progress,
or a wait for a provider slot, and no further driver is tried; ``receive`` then ends
with nothing more than what the attempt had already streamed. ``aclose`` closes the
drivers this driver resolved from names; drivers passed in are the caller's.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import attrs

from .._core.driver import ModelRequest
from .._core.errors import ConfigurationError, ErrorCode
from .._core.events import ErrorReceived, MessageStart, RateLimited, StreamEvent
from .._edges.clock import ms_clock
from .._edges.driver import BaseDriver, Driver, as_driver, close_stream
from .perform import driver_failure
from .plugins import resolve_model

__all__ = ["FallbackDriver", "ProviderLimits", "falls_back"]

_NEXT_MAY_ANSWER = frozenset(
    {ErrorCode.CONTEXT_OVERFLOW.value, ErrorCode.UNSUPPORTED_CONTENT.value}
)
"""Errors a driver reports that another provider may not: a context overflow, and a
content part (an audio clip, a PDF by URL...) the provider or model does not take."""


def falls_back(error: ErrorReceived) -> bool:
    """The default rule: fall back on a retryable error, a context overflow, or a content
    part the driver refused (``UNSUPPORTED_CONTENT``; the next may take it)."""
    return error.retryable or error.code in _NEXT_MAY_ANSWER


def _release_nothing() -> None:
    """What releases a slot of an unlimited provider."""


class _Slots:
    """One provider's slots on one event loop: a semaphore and how many are taken."""

    __slots__ = ("semaphore", "taken")

    def __init__(self, limit: int) -> None:
        self.semaphore = asyncio.Semaphore(limit)
        self.taken = 0

    def release(self) -> None:
        self.taken -= 1
        self.semaphore.release()


class ProviderLimits:
    """How many model calls may be in flight at once, per provider (a driver's ``name``).

    ``limits`` maps provider names to a count; ``default`` applies to the others (``None``:
    no limit). Share one object between every ``FallbackDriver`` that should count against
    the same limits, e.g. all the agents of a process; a call over the limit waits for a
    slot (an ``interrupt`` ends the wait). Slots are kept per event loop. Raises
    ``ConfigurationError`` for a count that is not an int >= 1.
    """

    def __init__(self, limits: Mapping[str, int] | None = None, *, default: int | None = None):
        self.limits = dict(limits or {})
        self.default = default
        for name, value in [*self.limits.items(), ("default", default)]:
            if value is None and name == "default":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(
                    f"ProviderLimits: the limit for {name!r} must be an int >= 1, got {value!r}"
                )
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Slots]] = (
            weakref.WeakKeyDictionary()
        )

    def limit(self, provider: str) -> int | None:
        """The number of calls ``provider`` may have in flight (``None``: unlimited)."""
        return self.limits.get(provider, self.default)

    def in_flight(self, provider: str) -> int:
        """How many calls to ``provider`` hold a slot on the running event loop."""
        slots = self._loops.get(asyncio.get_running_loop(), {}).get(provider)
        return 0 if slots is None else slots.taken

    def _slots(self, provider: str) -> _Slots | None:
        limit = self.limit(provider)
        if limit is None:
            return None
        per_loop = self._loops.setdefault(asyncio.get_running_loop(), {})
        slots = per_loop.get(provider)
        if slots is None:
            slots = per_loop[provider] = _Slots(limit)
        return slots

    def __repr__(self) -> str:
        return f"ProviderLimits({self.limits!r}, default={self.default!r})"


class _Call:
    """One ``receive``'s interrupt state: the driver answering and the slot being waited for."""

    __slots__ = ("driver", "interrupted", "loop", "waiting")

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.interrupted = False
        self.driver: Driver | None = None
        self.waiting: asyncio.Future[Any] | None = None

    def interrupt(self) -> None:
        if self.interrupted:
            return
        self.interrupted = True
        with contextlib.suppress(RuntimeError):  # a closed loop: the call is long over
            self.loop.call_soon_threadsafe(self._stop)

    def _stop(self) -> None:
        """On the call's loop, so the driver seen here is the one answering (or none yet:
        ``receive`` checks ``interrupted`` after choosing a driver, before starting it)."""
        if self.driver is not None:
            self.driver.interrupt()
        if self.waiting is not None:
            self.waiting.cancel()


class FallbackDriver(BaseDriver):
    """Several drivers as one: the next takes over when one fails before answering.

    ``models`` are drivers or ``"provider/model"`` names, in order of preference (see the
    module docstring for what falls back and when). ``should_fall_back(error)`` decides
    whether an ``error_received`` that ended an attempt before it answered goes to the next
    driver (default ``falls_back``). ``limits`` bounds the calls in flight per provider
    (a ``ProviderLimits`` to share, or a mapping for this driver alone). ``on_fallback(name,
    error)`` is told each time a driver is passed over (a hook that raises is ignored).
    ``driver_factory`` resolves names (default: the ``agentcore.drivers`` entry points);
    ``clock`` (ms) stamps the errors this driver writes itself.

    One call at a time, like the drivers it holds. Raises ``ConfigurationError`` for an
    empty chain or an entry that is neither a name nor a driver.
    """

    def __init__(
        self,
        models: Sequence[str | Driver | Any],
        *,
        should_fall_back: Callable[[ErrorReceived], bool] = falls_back,
        limits: ProviderLimits | Mapping[str, int] | None = None,
        on_fallback: Callable[[str, ErrorReceived], object] | None = None,
        driver_factory: Callable[[str], Driver] | None = None,
        clock: Callable[[], int] = ms_clock,
    ) -> None:
        if isinstance(models, str) or not models:
            raise ConfigurationError(
                f"FallbackDriver needs a list of 'provider/model' names or drivers, got {models!r}"
            )
        entries: list[str | Driver] = []
        for position, model in enumerate(models):
            if isinstance(model, str):
                if not model:
                    raise ConfigurationError(f"FallbackDriver: model {position} is an empty name")
                entries.append(model)
                continue
            try:
                entries.append(as_driver(model))
            except TypeError:
                raise ConfigurationError(
                    f"FallbackDriver: model {position} must be a 'provider/model' name or a "
                    f"Driver, got {model!r}"
                ) from None
        self.models: tuple[str | Driver, ...] = tuple(entries)
        """The chain as given: names and drivers, in order of preference."""
        self._drivers: list[Driver | None] = [
            None if isinstance(e, str) else e for e in self.models
        ]
        self._owned: list[Driver] = []
        self._labels = tuple(e if isinstance(e, str) else e.name for e in self.models)
        self.should_fall_back = should_fall_back
        self.limits = (
            limits if isinstance(limits, ProviderLimits | None) else ProviderLimits(limits)
        )
        self.on_fallback = on_fallback
        self._factory = driver_factory or resolve_model
        self._clock = clock
        self._call: _Call | None = None

    @property
    def name(self) -> str:
        return f"fallback({', '.join(self._labels)})"

    def interrupt(self) -> None:
        """Stop the current attempt (or slot wait) and try no other driver; idempotent,
        a no-op when idle, callable from any thread."""
        call = self._call
        if call is not None:
            call.interrupt()

    async def aclose(self) -> None:
        """Close the drivers resolved from names (idempotent); drivers passed in are the
        caller's to close."""
        owned, self._owned = self._owned, []
        for driver in owned:
            await driver.aclose()
        self._drivers = [None if isinstance(e, str) else e for e in self.models]

    def _resolve(self, position: int) -> Driver:
        driver = self._drivers[position]
        if driver is None:
            entry = self.models[position]
            assert isinstance(entry, str)
            driver = as_driver(self._factory(entry))
            self._drivers[position] = driver
            self._owned.append(driver)
        return driver

    async def _slot(self, call: _Call, provider: str) -> Callable[[], None] | None:
        """Take a slot for ``provider``: its release, or ``None`` when interrupted meanwhile."""
        slots = None if self.limits is None else self.limits._slots(provider)
        if slots is None:
            return _release_nothing
        if slots.semaphore.locked():
            waiter = asyncio.ensure_future(slots.semaphore.acquire())
            call.waiting = waiter
            try:
                await waiter
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if call.interrupted and (task is None or not task.cancelling()):
                    return None
                raise
            finally:
                call.waiting = None
        else:
            await slots.semaphore.acquire()
        slots.taken += 1
        if call.interrupted:
            slots.release()
            return None
        return slots.release

    def _request_for(self, request: ModelRequest, position: int) -> ModelRequest:
        if position == 0 or (request.model is None and not request.options):
            return request
        return attrs.evolve(request, model=None, options={})

    def _passed_over(self, position: int, error: ErrorReceived) -> None:
        if self.on_fallback is not None:
            with contextlib.suppress(Exception):  # an observer never breaks the call
                self.on_fallback(self._labels[position], error)

    def _reported(
        self, error: ErrorReceived, failures: list[tuple[str, ErrorReceived]]
    ) -> ErrorReceived:
        """The error that ends the call, naming the drivers that failed before it."""
        if not failures:
            return error
        earlier = "; ".join(f"{name}: {e.code}: {e.message}" for name, e in failures)
        return attrs.evolve(error, message=f"{error.message} (fell back after {earlier})")

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream the answer of the first driver that answers (see the module docstring):
        ``receive_batches`` one event at a time."""
        async with contextlib.aclosing(self.receive_batches(request)) as batches:
            async for batch in batches:
                for event in batch:
                    yield event

    async def receive_batches(
        self, request: ModelRequest
    ) -> AsyncGenerator[Sequence[StreamEvent], None]:
        """The answering driver's batches, as it cut them (an attempt's ``message_start``
        held back until its next event joins that event's batch)."""
        call = _Call()
        self._call = call
        failures: list[tuple[str, ErrorReceived]] = []
        last = len(self.models) - 1
        try:
            for position in range(last + 1):
                error: ErrorReceived | None = None
                try:
                    driver = self._resolve(position)
                except Exception as exc:
                    error = driver_failure(exc, self._clock())
                    if position == last or not self.should_fall_back(error):
                        yield (self._reported(error, failures),)
                        return
                    failures.append((self._labels[position], error))
                    self._passed_over(position, error)
                    continue
                if call.interrupted:
                    return
                release = await self._slot(call, driver.name)
                if release is None:
                    return
                held: MessageStart | None = None
                answered = False
                call.driver = driver
                try:
                    if call.interrupted:
                        return
                    stream: AsyncIterator[Sequence[StreamEvent]] | None = None
                    try:
                        stream = driver.receive_batches(self._request_for(request, position))
                        async for batch in stream:
                            if answered:
                                yield batch
                                continue
                            out: list[StreamEvent] = []
                            for index, event in enumerate(batch):
                                if type(event) is RateLimited:  # a notice, not an answer
                                    out.append(event)
                                    continue
                                if type(event) is MessageStart and held is None:
                                    assert isinstance(event, MessageStart)
                                    held = event
                                    continue
                                if type(event) is ErrorReceived:
                                    assert isinstance(event, ErrorReceived)
                                    if position < last and self.should_fall_back(event):
                                        error = event
                                        break
                                    event = self._reported(event, failures)
                                answered = True
                                if held is not None:
                                    out.append(held)
                                out.append(event)
                                out.extend(batch[index + 1 :])
                                break
                            if out:  # the answer so far, or only notices
                                yield out
                            if error is not None:
                                break
                    except Exception as exc:  # a driver that raised instead of reporting
                        failure = driver_failure(exc, self._clock())
                        if answered or position == last or not self.should_fall_back(failure):
                            reported = failure if answered else self._reported(failure, failures)
                            lead = (held,) if held is not None and not answered else ()
                            yield (*lead, reported)
                            return
                        error = failure
                    finally:
                        if stream is not None:
                            await close_stream(stream)
                finally:
                    call.driver = None
                    release()
                if error is None:  # the stream ended: the answer is complete (or cut short)
                    if held is not None and not answered and not call.interrupted:
                        yield (held,)
                    return
                failures.append((self._labels[position], error))
                self._passed_over(position, error)
        finally:
            if self._call is call:
                self._call = None

    def __repr__(self) -> str:
        return f"FallbackDriver({list(self._labels)!r})"
