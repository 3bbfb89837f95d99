"""Model calls: ``CallModel``, ``SummariseContext``, ``CancelModel``.

- ``CallModel``: the driver's stream events are fed one by one, read through
  ``ended_batches`` (a stream that stops before ``message_stop`` ends with its
  ``cut_short`` error); a driver that raises is answered with an ``error_received``
  (the exception's own ``code`` and ``retryable``). Feeding pauses while an async presenter is
  over its backpressure mark. The call goes through the middleware onion when there is
  one (docs/middleware.md). A call the feed of a run's caller asks for is streamed by
  that caller (``drive``), with no task of its own; any other in a task.
- ``SummariseContext``: the driver is called the same way, but its reply is read here
  by the message assembler (``collect_reply``) and never fed (it would enter the
  conversation): one ``context_summary`` is fed with the text, usage and model, or with
  the error the call ended with.
- ``CancelModel``: the driver is told to stop and its task cancelled (a summary's too);
  once the stream has ended, an ``interrupt`` is fed (the processor flushes the partial
  reply).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from ..._core.content import Usage
from ..._core.driver import ModelRequest
from ..._core.errors import AgentError, ErrorCode
from ..._core.events import AssistantMessage, ErrorMessage, ErrorReceived, Interrupt
from ..._edges.driver import (
    Driver,
    close_stream,
    collect_reply,
    cut_short,
    ended_batches,
)
from ..._loop.events import CallModel, ContextSummary, SummariseContext
from ..actions import ErrorAction, ModelCallAction, ModelResponseAction, events_of, through
from .shared import Shared

__all__ = ["ModelCalls", "driver_failure", "one_at_a_time"]


class ModelCalls:
    """The one model call in flight (module docstring). ``collect()``/
    ``stop_collecting(list)`` watch delivered outputs (for middleware);
    ``feed_stream(events, start)`` feeds a driver's batch from ``start`` and returns
    where it stopped."""

    def __init__(
        self,
        shared: Shared,
        driver: Callable[[], Driver],
        collect: Callable[[], list[Any]],
        stop_collecting: Callable[[list[Any]], None],
        feed_stream: Callable[[Sequence[Any], int], int],
    ) -> None:
        self._shared = shared
        self._driver = driver
        self._collect = collect
        self._stop_collecting = stop_collecting
        self._feed_stream = feed_stream
        self.task: asyncio.Task[None] | None = None
        self._cancelling = False
        self._streaming = False
        self._waiting: CallModel | None = None
        """A call held for ``caller``, not begun yet."""
        self.caller: asyncio.Task[Any] | None = None
        """The task of a run's caller that streams the calls its own feed asks for
        (``drive``), instead of a task per call."""
        self._stops = 0
        """The cancellations sent to ``caller`` while it streamed a call."""
        self._driven: asyncio.Future[None] | None = None
        """Set once ``caller`` has stopped streaming (``wait_ended``)."""

    def call(self, effect: CallModel) -> None:
        self._cancelling = self._streaming = False
        if type(effect) is SummariseContext:
            work = self._summary(effect)
        elif self.caller is not None and self._drivable():
            self._waiting = effect  # not begun: the caller streams it (drive)
            self.task = None  # a call that asked for it while ending is no longer the call
            return
        else:
            work = self._stream(effect)
        self.task = asyncio.get_running_loop().create_task(work)

    def _drivable(self) -> bool:
        """Whether the run's caller may stream a call now: the call was asked for by the
        caller's own feed, and nothing must run beside it (middleware, a blocking or an
        input guardrail started after the prompt)."""
        shared = self._shared
        return (
            not shared.middleware
            and shared.guards.blocking is None
            and not shared.guards.input
            and asyncio.current_task() is self.caller
        )

    async def drive(self) -> None:
        """Stream in this task (``caller``) the calls its feed asked for, one after the
        other (a retry asked for while one ends is the next), and run the lone tool call
        a feed asked for (``run_held``: its result asks for the next call), until none is
        held: no task, no future and no event-loop iteration of their own. Cancelling the
        caller stops the call and propagates; a call the loop cancels (an abort, a
        timeout) is stopped by cancelling the caller, which then goes on (``_stream``)."""
        task = self.caller
        run_held = self._shared.run_held
        try:
            while True:
                effect = self._waiting
                if effect is None:
                    if run_held():  # a lone tool call held for this task was answered
                        continue
                    break
                self._waiting = None
                self.task = task
                await self._stream(effect)
        finally:
            self.caller = None
            driven, self._driven = self._driven, None
            if driven is not None and not driven.done():
                driven.set_result(None)

    async def wait_ended(self) -> None:
        """Wait until the call in flight has ended (its task, or its caller's stream)."""
        task = self.task
        if task is None or task is asyncio.current_task():
            return
        if task is self.caller:
            if self._driven is None:
                self._driven = asyncio.get_running_loop().create_future()
            await asyncio.wait([self._driven])
        else:
            await asyncio.wait([task])

    def _stop(self, task: asyncio.Task[Any]) -> None:
        """Cancel ``task``, running the call; the caller streaming it is cancelled only
        while it waits (while it feeds, ``_from_driver`` stops after the input)."""
        if task is self.caller:
            if task is asyncio.current_task():
                return
            self._stops += 1
        task.cancel()

    def cancel_call(self) -> None:
        """``CancelModel``: stop the call; its end is fed as an ``interrupt``."""
        self._cancelling = True
        if self._waiting is not None:  # held for its caller, not begun: it never will
            self._waiting = None
            self._shared.feed(Interrupt("abort", timestamp=self._shared.clock()))
            return
        task = self.task
        if task is not None and not self._streaming:  # cancelled before it ever ran
            task.cancel()
            self.task = task = None
        if task is None:  # nothing runs here (a resumed run, or not yet): the call ends now
            self._shared.feed(Interrupt("abort", timestamp=self._shared.clock()))
            return
        self._driver().interrupt()
        self._stop(task)

    def cancel(self) -> None:
        """Stop the call in flight, if any (the performer's ``cancel``)."""
        self._waiting = None
        task = self.task
        if task is not None:
            self._cancelling = True
            self._driver().interrupt()
            self._stop(task)

    async def _stream(self, effect: CallModel) -> None:
        """The call, in its task or its caller's."""
        self._streaming = True
        shared = self._shared
        try:
            try:
                request = effect.request  # built now: the config's hooks run here
            except Exception as exc:
                shared.feed(_hook_failure(exc, shared.clock()))
                return
            guards = shared.guards
            if guards.blocking is not None and not await guards.passed(guards.blocking):
                return  # the trip was fed: the loop cancels this call
            if shared.middleware:
                await self._through_middleware(request)
            else:
                await self._from_driver(request)
        except asyncio.CancelledError:
            if not self._stopped():
                raise  # its caller was cancelled: the run is aborted there
        finally:
            ours = self._release()
        if self._cancelling and ours:
            shared.feed(Interrupt("abort", timestamp=shared.clock()))

    def _stopped(self) -> bool:
        """Whether the cancellation that reached ``_stream`` was this call's stop (a
        call's own task, or ``caller`` after ``_stop``, which is uncancelled here), not
        its caller's."""
        task = self.caller
        if task is None or task is not asyncio.current_task():
            return True
        stops, self._stops = self._stops, 0
        for _ in range(stops):
            task.uncancel()
        return stops > 0 and task.cancelling() == 0

    def _release(self) -> bool:
        """Forget the task of the call that ends now; whether it still was the call's
        (a call the loop asked for while this one's last inputs were fed has its own)."""
        ours = self.task is asyncio.current_task()
        if ours:
            self.task = None
        return ours

    async def _from_driver(self, request: ModelRequest) -> Any:
        """Feed the driver's answer to ``request`` (``ended_batches``: it ends with
        ``message_stop`` or ``error_received``); return the last event fed (``None`` when
        the call was cancelled). A raise is answered with an ``error_received``.
        Cancellation propagates."""
        shared = self._shared
        outlet, feed, feed_stream = shared.outlet, shared.feed, self._feed_stream
        stream: AsyncIterator[Sequence[Any]] | None = None
        last: Any = None
        try:
            stream = ended_batches(self._driver(), request, shared.clock)
            async for batch in stream:
                if self._cancelling:  # the driver stopped as it was told: nothing is cut
                    break
                done, end = 0, len(batch)
                while done < end:
                    done = feed_stream(batch, done)
                    last = batch[done - 1]
                    if type(last) is ErrorReceived or self._cancelling:
                        break
                    if outlet.congested:
                        await outlet.relieve()
                else:
                    continue
                break
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failing driver never takes the agent down
            if self._cancelling:
                return None
            last = driver_failure(exc, shared.clock())
            feed(last)
            return last
        finally:
            if stream is not None:
                await close_stream(stream)
        return None if self._cancelling else last

    async def _summary(self, effect: SummariseContext) -> None:
        """Read a summary call's reply here (``collect_reply``: the message assembler,
        never the conversation); feed its ``context_summary``."""
        self._streaming = True
        shared = self._shared
        message: AssistantMessage | None = None
        failure: ErrorReceived | ErrorMessage | None = None
        try:
            try:
                request = effect.request
            except Exception as exc:
                failure = _hook_failure(exc, shared.clock())
            else:
                message, failure = await collect_reply(self._driver(), request)
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # a failing driver never takes the agent down
            failure = driver_failure(exc, shared.clock())
        finally:
            self._release()
        now = shared.clock()
        usage, model = (Usage(), "") if message is None else (message.usage, message.model)
        if self._cancelling:
            shared.feed(Interrupt("abort", timestamp=now))
        elif failure is None and message is not None and not message.incomplete:
            shared.feed(ContextSummary(message.text, usage, model, timestamp=now))
        else:
            failure = failure or cut_short(now)
            shared.feed(
                ContextSummary(
                    "",
                    usage,
                    model,
                    failure.code,
                    failure.message,
                    failure.retryable,
                    timestamp=now,
                )
            )

    async def _through_middleware(self, request: ModelRequest) -> None:
        """The call through the middleware onion (docs/middleware.md): what a
        short-circuit returns is fed as the stream events it stands for."""
        shared = self._shared
        produced: list[Any] = []

        async def call_driver(action: ModelCallAction) -> Any:
            collected = self._collect()
            try:
                last = await self._from_driver(action.request)
            finally:
                self._stop_collecting(collected)
            if last is None:
                raise asyncio.CancelledError
            if type(last) is ErrorReceived:
                answer: Any = ErrorAction("model", last.code, last.message, last.retryable)
            else:
                reply = next(o for o in reversed(collected) if type(o) is AssistantMessage)
                answer = ModelResponseAction(reply)
            produced.append(answer)
            return answer

        try:
            result = await through(
                shared.middleware,
                ModelCallAction(request),
                call_driver,
                (ModelResponseAction, ErrorAction),
            )
        except Exception as exc:
            shared.report_plugin("middleware", exc, request)
            if not produced:  # the call was never made: it fails
                shared.feed(_plugin_failure("a middleware", exc, shared.clock()))
            return
        if produced:
            if result is not produced[0]:
                why = TypeError(
                    "a middleware returned another response than the streamed one; a "
                    "streamed reply cannot be rewritten: short-circuit instead"
                )
                shared.report_plugin("middleware", why, result)
            return
        now = shared.clock()
        if type(result) is ErrorAction:
            shared.feed(ErrorReceived(result.message, result.code, result.retryable, timestamp=now))
        else:
            for event in events_of(result.message, now):
                shared.feed(event)


def driver_failure(exc: BaseException, timestamp: int) -> ErrorReceived:
    """The ``error_received`` for a driver that raised: its own code and retryability."""
    code = getattr(exc, "code", None)
    code_value = getattr(code, "value", code)
    retryable = getattr(exc, "retryable", False)
    # An agentcore error's code names its kind: its class name would say it twice.
    text = str(exc) if isinstance(exc, AgentError) else f"{type(exc).__name__}: {exc}"
    return ErrorReceived(
        text,
        code_value if isinstance(code_value, str) and code_value else ErrorCode.DRIVER_ERROR.value,
        retryable=retryable if isinstance(retryable, bool) else False,
        timestamp=timestamp,
    )


def one_at_a_time(feed: Callable[[Any], None]) -> Callable[[Sequence[Any], int], int]:
    """``feed_stream`` for a feed with no batch path: one event per call."""

    def feed_stream(events: Sequence[Any], start: int) -> int:
        feed(events[start])
        return start + 1

    return feed_stream


def _plugin_failure(what: str, exc: Exception, timestamp: int) -> ErrorReceived:
    """The ``error_received`` for a model call a middleware failed before it was made."""
    return ErrorReceived(
        f"{what} failed before the model call: {type(exc).__name__}: {exc}",
        ErrorCode.HANDLER_ERROR.value,
        timestamp=timestamp,
    )


def _hook_failure(exc: Exception, timestamp: int) -> ErrorReceived:
    """The ``error_received`` for a ``convert_to_llm``/``transform_context`` that raised
    while the request was built: the call fails, the agent goes on."""
    return ErrorReceived(
        f"building the model request failed (convert_to_llm or transform_context): "
        f"{type(exc).__name__}: {exc}",
        ErrorCode.HANDLER_ERROR.value,
        timestamp=timestamp,
    )
