"""The streaming skeleton every HTTP provider driver shares: open, normalise, flush, close.

A provider driver subclasses ``StreamingDriver`` and writes only its vendor specifics:

- ``prepare(request)``: the request body (may raise ``AgentError`` for a bad request);
- ``start_stream(body, key, attach)``: one HTTP attempt, returning an async iterator of
  decoded items; it calls ``attach(close)`` as soon as a response exists, so that
  ``interrupt()`` can close it;
- ``classify(exc)``: the ``Failure`` for what its SDK raises (``None``: not recognised,
  reported as ``DRIVER_ERROR``);
- ``initial_state(body, keys)`` and ``normaliser``: its pure normaliser
  (``drivers._common.normaliser``) and that normaliser's first state;
- ``endpoint(body)``: the URL posted to, named in connection errors;
- optionally ``check_first(item)`` (raise to fail an attempt whose first item is an
  error) and ``close_client()`` (what ``aclose`` releases when the driver built it).

What ``receive`` does, for every driver alike:

1. ``prepare``; a failure there is one ``error_received``, and nothing is sent.
2. Open the stream with ``StreamCall.open``: retries per ``RetryPolicy`` until the first
   item arrives, asking ``get_api_key`` before every attempt (its keys are remembered).
   Giving up yields one ``error_received`` naming the URL and how many attempts were made.
3. Feed each item to the normaliser with a timestamp from ``clock``; yield its events.
   The normaliser is pure; the clock, the ids and the I/O are here.
4. A read failure after the first item flushes the text the normaliser held back, then
   ends with one ``error_received`` (never retried: nothing is streamed twice); once the
   normaliser saw the vendor's terminal event, a late failure changes nothing. A clean
   end yields what ``finish`` says (closing events, or a retryable ``CONNECTION_ERROR``
   for a stream cut short).
5. ``interrupt()`` (any thread, idempotent) cancels the opening or closes the response;
   the text held back is flushed and ``receive`` ends with nothing more.
6. The call's response is closed whatever happened.

Rate budgets (``drivers._common.ratelimit``): when a limit of the driver's
``rate_budget`` (else the process's) covers the call, step 2 first reserves it; a call
that must wait yields one ``rate_limited`` notice, then waits (``interrupt()`` ends the
wait and the call, and gives the reservation back). The response's rate-limit headers
(a driver reports them with ``saw_headers``) and a 429's ``retry-after`` feed the
budget; the reported usage corrects the reservation at the end.

Nothing is raised for provider, configuration or driver failures: every ``Exception`` in
those steps becomes ``error_received``. Every message is scrubbed of the keys the driver
holds (its configured key and those ``get_api_key`` returned) and of key-shaped strings.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from typing import Any, Generic, TypeVar

from agentcore import BaseDriver, ModelRequest, ms_clock
from agentcore.errors import AgentError, ErrorCode
from agentcore.events import ErrorReceived, MessageDelta, RateLimited, StreamEvent, Usage
from agentcore.redaction import guard_logs

from .base import ApiKeySource, Failure, resolve_api_key
from .call import Close, StreamCall
from .guard import clean_error, secret_keys
from .normaliser import Normaliser
from .ratelimit import RateBudget, Ticket, process_budget
from .retry import RetryPolicy

__all__ = ["KEYS_REMEMBERED", "StreamingDriver"]

S = TypeVar("S")
C = TypeVar("C")

SDK_LOGGERS = ("httpx", "httpcore", "anthropic", "openai", "google_genai")
"""Loggers (and those below them) that write request URLs, which may hold a key in
their query or credentials: the driver's keys are redacted from their records."""

KEYS_REMEMBERED = 8
"""How many of the latest keys ``get_api_key`` returned are scrubbed, besides the configured."""

_CONNECTION = ErrorCode.CONNECTION_ERROR


class StreamingDriver(BaseDriver, Generic[S, C]):
    """One model call at a time over HTTP streaming, with the vendor parts left to subclasses.

    ``name`` is the driver's name; ``retry`` the retry policy (also the HTTP timeout);
    ``get_api_key`` (sync or async) is asked before every attempt; ``keys`` are the keys
    the driver was configured with, and the secrets of its ``base_url`` (placeholders and
    keys shorter than 8 characters are not scrubbed; the rest are also kept out of the
    SDK loggers' records, ``SDK_LOGGERS``); ``owns_client`` says whether ``aclose`` must
    close the SDK client.
    ``clock`` (ms) stamps events and ``sleep`` waits between retries; both for tests.
    """

    normaliser: Normaliser[S, C]
    """The vendor's pure normaliser (a class attribute of each driver)."""
    model: str = ""
    """The model a request without its own ``model`` asks for (each driver sets it)."""
    rate_budget: RateBudget | None = None
    """The rate budget this driver's calls count against; ``None``: the process's
    (``ratelimit.process_budget()``, read at each call)."""

    def __init__(
        self,
        *,
        name: str,
        retry: RetryPolicy | None = None,
        get_api_key: ApiKeySource | None = None,
        keys: Iterable[str | None] = (),
        owns_client: bool = False,
        clock: Callable[[], int] = ms_clock,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._name = name
        self.retry = retry if retry is not None else RetryPolicy()
        self._get_api_key = get_api_key
        self._configured_keys = secret_keys(keys)
        guard_logs(self._configured_keys, SDK_LOGGERS)
        self._fetched_keys: tuple[str, ...] = ()
        self._owns_client = owns_client
        self._clock = clock
        self._sleep = sleep
        self._call: StreamCall | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys scrubbed from everything the driver emits: the configured one, then the
        latest ``KEYS_REMEMBERED`` that ``get_api_key`` returned."""
        return self._configured_keys + self._fetched_keys

    # -- vendor parts --------------------------------------------------------------------

    def prepare(self, request: ModelRequest) -> Any:
        """The request body for ``request``."""
        raise NotImplementedError(f"{type(self).__name__} must implement prepare(request)")

    async def start_stream(
        self, body: Any, key: str | None, attach: Callable[[Close], None]
    ) -> AsyncIterator[C]:
        """Send one attempt; ``key`` is ``get_api_key``'s answer (``None`` without one)."""
        raise NotImplementedError(f"{type(self).__name__} must implement start_stream")

    def classify(self, exc: BaseException) -> Failure | None:
        """The ``Failure`` for ``exc``, or ``None`` when the driver does not recognise it."""
        return None

    def initial_state(self, body: Any, keys: tuple[str, ...]) -> S:
        """The normaliser's state before the first item."""
        raise NotImplementedError(f"{type(self).__name__} must implement initial_state")

    def endpoint(self, body: Any) -> str:
        """The URL a request for ``body`` goes to."""
        raise NotImplementedError(f"{type(self).__name__} must implement endpoint(body)")

    def check_first(self, item: C) -> object:
        """Raise to fail the attempt whose first item is ``item`` (an in-band error)."""
        return None

    async def close_client(self) -> None:
        """Release the SDK client this driver built."""

    def saw_headers(self, headers: Mapping[str, str]) -> None:
        """Report the current attempt's response headers (``start_stream`` calls it), so
        that the rate budget learns what the provider says remains."""
        call = self._call
        if call is not None:
            call.headers = headers

    # -- the skeleton ----------------------------------------------------------------------

    def interrupt(self) -> None:
        """Stop the current call promptly (idempotent; a no-op when idle; any thread)."""
        call = self._call
        if call is not None:
            call.interrupt()

    async def aclose(self) -> None:
        """Close the HTTP client if this driver built it; a client passed in is the caller's.

        Idempotent. ``async with driver:`` calls it on exit; ``Agent.aclose`` does for a
        driver it resolved from a model name.
        """
        if self._owns_client:
            await self.close_client()

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one assistant message for ``request`` (see the module docstring): the
        events of ``receive_batches`` one by one, the rest of a batch dropped once
        ``interrupt()`` was called (the flush that follows still comes)."""
        async with contextlib.aclosing(self.receive_batches(request)) as batches:
            async for batch in batches:
                call = self._call
                for event in batch:
                    yield event
                    if call is not None and call.interrupted:
                        break

    async def receive_batches(
        self, request: ModelRequest
    ) -> AsyncGenerator[Sequence[StreamEvent], None]:
        """The call's events, one batch per decoded item: what its normaliser made of it
        (what the runtime reads: one async step per item, not per event)."""
        call = StreamCall()
        self._call = call
        clock = self._clock
        ticket: Ticket | None = None
        opened: object = None
        usage: Usage | None = None
        try:
            try:
                body = self.prepare(request)
            except Exception as exc:
                yield (self._error(self._failure(exc), clock()),)
                return
            budget = self.rate_budget or process_budget()
            model = request.model or self.model
            watching = budget.learn
            if budget.applies(self._name, model):
                watching = True
                ticket = await budget.acquire(self._name, model, body, request.max_tokens)
                if ticket is not None and ticket.wait > 0:
                    wait_ms = max(1, round(ticket.wait * 1000))
                    yield (RateLimited(ticket.scope, ticket.kind, wait_ms, timestamp=clock()),)
                    if not await call.pause(ticket.wait, self._sleep):
                        await budget.settle(ticket, None, sent=False)
                        return
            opened = await call.open(
                self._attempt(body, call.attach),
                self._classify_for(call),
                self.retry,
                sleep=self._held(budget, model, call, body) if watching else self._sleep,
                check=self.check_first,
            )
            if watching:
                await self._feed(budget, model, call)
            if opened is None:
                return
            endpoint = self.endpoint(body)
            if isinstance(opened, Failure):
                yield (self._error(opened, clock(), endpoint),)
                return
            normaliser = self.normaliser
            step = normaliser.step
            state = self.initial_state(body, self.keys)
            try:
                state, events = step(state, opened.first, clock())
                if events:
                    if ticket is not None:
                        usage = _usage(events, usage)
                    yield events
                async for item in opened.stream:
                    if call.interrupted:
                        break
                    state, events = step(state, item, clock())
                    if events:
                        if ticket is not None:
                            usage = _usage(events, usage)
                        yield events
            except Exception as exc:
                if not (call.interrupted or normaliser.finished(state)):
                    state, events = normaliser.flush(state, clock())
                    failure = self._error(self._failure(exc), clock(), endpoint, streamed=True)
                    yield (*events, failure)
                    return
            if call.interrupted:
                state, events = normaliser.flush(state, clock())
            else:
                state, events = normaliser.finish(state, clock())
            if events:
                if ticket is not None:
                    usage = _usage(events, usage)
                yield tuple(_with_context(event, endpoint) for event in events)
        finally:
            if self._call is call:
                self._call = None
            await call.aclose()
            if ticket is not None and opened is not None:
                await budget.settle(ticket, usage)

    def _attempt(
        self, body: Any, attach: Callable[[Close], None]
    ) -> Callable[[], Awaitable[AsyncIterator[C]]]:
        async def attempt() -> AsyncIterator[C]:
            key = None
            if self._get_api_key is not None:
                key = await resolve_api_key(self._get_api_key)
                self._remember(key)
            return await self.start_stream(body, key, attach)

        return attempt

    def _classify_for(self, call: StreamCall) -> Callable[[BaseException], Failure]:
        """``_failure``, noting a 429's ``retry-after`` on ``call`` for the rate budget."""

        def classify(exc: BaseException) -> Failure:
            failure = self._failure(exc)
            if failure.code is ErrorCode.RATE_LIMITED and failure.retry_after is not None:
                call.retry_after = failure.retry_after
            return failure

        return classify

    def _held(
        self, budget: RateBudget, model: str, call: StreamCall, body: Any
    ) -> Callable[[float], Awaitable[object]]:
        """The retry sleep: the budget is held first for a 429's ``retry-after`` (so the
        process's other calls wait with this one), and the retry reserves its request
        like any call (it waits longer if the budget says so)."""

        async def sleep(seconds: float) -> object:
            await self._feed(budget, model, call)
            again = await budget.acquire(
                self._name, model, body, None, kinds=("requests",), delay=seconds
            )
            return await self._sleep(seconds if again is None else again.wait)

        return sleep

    async def _feed(self, budget: RateBudget, model: str, call: StreamCall) -> None:
        """What the provider said about its limits (once each), into the budget."""
        headers, call.headers = call.headers, None
        if headers is not None:
            await budget.observe(self._name, model, headers)
        retry_after, call.retry_after = call.retry_after, None
        if retry_after is not None:
            await budget.blocked(self._name, model, retry_after)

    def _remember(self, key: str) -> None:
        if key not in self._configured_keys and key not in self._fetched_keys:
            self._fetched_keys = secret_keys((key, *self._fetched_keys))[:KEYS_REMEMBERED]
            guard_logs(self._fetched_keys[:1], SDK_LOGGERS)

    def _failure(self, exc: BaseException) -> Failure:
        if isinstance(exc, AgentError):  # a bad request, or get_api_key: not worth retrying
            return Failure(exc.code, exc.message, False)
        failure = self.classify(exc)
        if failure is None:
            return Failure(ErrorCode.DRIVER_ERROR, f"{type(exc).__name__}: {exc}", False)
        return failure

    def _error(
        self,
        failure: Failure,
        timestamp: int,
        endpoint: str | None = None,
        *,
        streamed: bool = False,
    ) -> ErrorReceived:
        """The ``error_received`` for ``failure``: where and how often it was tried, scrubbed."""
        message = failure.message
        if endpoint is not None and (failure.code is _CONNECTION or failure.attempts > 1):
            message += _context(failure.attempts, endpoint, streamed=streamed)
        return ErrorReceived(
            clean_error(message, self.keys),
            failure.code.value,
            failure.retryable,
            timestamp=timestamp,
        )


def _usage(events: Sequence[StreamEvent], usage: Usage | None) -> Usage | None:
    """The call's usage so far: the latest ``message_delta``'s (providers report it
    cumulatively)."""
    for event in events:
        if type(event) is MessageDelta:
            usage = event.usage
    return usage


def _with_context(event: StreamEvent, endpoint: str) -> StreamEvent:
    """A closing ``CONNECTION_ERROR`` (a stream cut short) names where it was posted."""
    if type(event) is ErrorReceived and event.code == _CONNECTION.value:
        return ErrorReceived(
            event.message + _context(1, endpoint, streamed=True),
            event.code,
            event.retryable,
            timestamp=event.timestamp,
        )
    return event


def _context(attempts: int, endpoint: str, *, streamed: bool) -> str:
    if streamed:
        return f" (POST {endpoint}; not retried: part of the answer had already been streamed)"
    if attempts == 1:
        return f" (POST {endpoint}; 1 attempt)"
    return f" (POST {endpoint}; gave up after {attempts} attempts)"
