"""Model calls: ``CallModel``, ``SummariseContext``, ``CancelModel``.

- ``CallModel``: the driver's stream events are fed one by one, read through
  ``ended_batches`` (a stream that stops before ``message_stop`` ends with its
  ``cut_short`` error); a driver that raises is answered with an ``error_received``
  (the exception's own ``code`` and ``retryable``). Feeding pauses while an async presenter is
  over its backpressure mark. The call goes through the middleware onion when there is
  one (docs/middleware.md). A driver that may have the whole answer at hand
  (``receive_at_once``: a scripted model with no delay) is asked for it once the input
  that asked is folded (``after``), with no task: its events are fed as they would have
  been streamed, in one batch.
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
    ended,
    ended_batches,
    is_terminal,
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
        after: Callable[[Callable[[], object]], None] | None = None,
    ) -> None:
        self._shared = shared
        self._driver = driver
        self._collect = collect
        self._stop_collecting = stop_collecting
        self._feed_stream = feed_stream
        self._after = after
        self.task: asyncio.Task[None] | None = None
        self._cancelling = False
        self._streaming = False
        self._waiting: CallModel | None = None
        """A call put ``after`` the feed, not begun yet."""
        self._current: CallModel | None = None
        """The call asked for last."""
        self.inline = False
        """Whether a call's whole answer is being fed now (no task)."""

    def call(self, effect: CallModel) -> None:
        self._cancelling = self._streaming = False
        self._current = effect
        if type(effect) is SummariseContext:
            work = self._summary(effect)
        elif self._after is not None and (at_once := self._at_once()) is not None:
            self._waiting = effect
            self._after(lambda: self._answer(effect, at_once))
            return
        else:
            work = self._stream(effect)
        self.task = asyncio.get_running_loop().create_task(work)

    def _at_once(self) -> Callable[[ModelRequest], Any] | None:
        """The driver's ``receive_at_once``, when a call may take it: a caller waits on
        the run (``awaited``), and nothing must run between the call and its answer
        (middleware, a blocking or an input guardrail started after the prompt)."""
        shared = self._shared
        if (
            shared.middleware
            or shared.guards.blocking is not None
            or shared.guards.input
            or not shared.awaited()
        ):
            return None
        try:
            driver = self._driver()
        except Exception:  # the call fails in its task, where it is reported
            return None
        at_once: Callable[[ModelRequest], Any] | None = getattr(driver, "receive_at_once", None)
        return at_once

    def _answer(self, effect: CallModel, at_once: Callable[[ModelRequest], Any]) -> None:
        """A call put ``after`` the feed that asked for it: the driver's whole answer
        fed as ``_from_driver`` would feed its batch; a driver that streams after all is
        read in a task."""
        if self._waiting is not effect:  # cancelled before it began
            return
        self._waiting = None
        shared = self._shared
        try:
            request = effect.request
        except Exception as exc:
            shared.feed(_hook_failure(exc, shared.clock()))
            return
        try:
            answer = at_once(request)
        except Exception as exc:  # a failing driver never takes the agent down
            shared.feed(driver_failure(exc, shared.clock()))
            return
        if isinstance(answer, Sequence):
            self._feed_whole(effect, answer, 0)
        else:  # its batches, to stream
            self.task = asyncio.get_running_loop().create_task(self._stream(effect, answer))

    def _feed_whole(self, effect: CallModel, events: Sequence[Any], done: int) -> None:
        """Feed ``effect``'s whole answer from ``events[done]`` until it ends, an
        ``error_received`` or a cancellation stops it; one the driver cut short ends with
        ``cut_short``. An outlet over its backpressure mark is waited for in a task."""
        shared, feed_stream, end = self._shared, self._feed_stream, len(events)
        last = events[done - 1] if done else None
        self.inline = True
        try:
            while done < end:
                done = feed_stream(events, done)
                last = events[done - 1]
                if type(last) is ErrorReceived or self._cancelling:
                    break
                if self._current is not effect:  # its end asked for the next call
                    return
                if shared.outlet.congested and done < end:
                    rest = self._relieved(effect, events, done)
                    self.task = asyncio.get_running_loop().create_task(rest)
                    return
            else:
                if not is_terminal(last):
                    shared.feed(cut_short(shared.clock()))
        finally:
            self.inline = False
        if self._cancelling and self._current is effect:
            shared.feed(Interrupt("abort", timestamp=shared.clock()))

    async def _relieved(self, effect: CallModel, events: Sequence[Any], done: int) -> None:
        """The rest of a whole answer, once the presenters are below their mark."""
        self._streaming = True
        try:
            await self._shared.outlet.relieve()
        except asyncio.CancelledError:
            if self._release() and self._cancelling:
                self._shared.feed(Interrupt("abort", timestamp=self._shared.clock()))
            return
        self._release()
        self._feed_whole(effect, events, done)

    def cancel_call(self) -> None:
        """``CancelModel``: stop the call; its end is fed as an ``interrupt``."""
        self._cancelling = True
        if self._waiting is not None:  # put after the feed, not begun: it never will
            self._waiting = None
            self._shared.feed(Interrupt("abort", timestamp=self._shared.clock()))
            return
        if self.inline:  # its answer is being fed: it stops after the input being folded
            self._driver().interrupt()
            return
        task = self.task
        if task is not None and not self._streaming:  # cancelled before it ever ran
            task.cancel()
            self.task = task = None
        if task is None:  # nothing runs here (a resumed run, or not yet): the call ends now
            self._shared.feed(Interrupt("abort", timestamp=self._shared.clock()))
            return
        self._driver().interrupt()
        task.cancel()

    def cancel(self) -> None:
        """Stop the call in flight, if any (the performer's ``cancel``)."""
        self._waiting = None
        if self.inline:
            self._cancelling = True
        task = self.task
        if task is not None:
            self._cancelling = True
            self._driver().interrupt()
            task.cancel()

    async def _stream(self, effect: CallModel, batches: Any = None) -> None:
        """The call in its task; ``batches``: the driver's, asked for already."""
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
                await self._from_driver(request, batches)
        except asyncio.CancelledError:
            pass
        finally:
            ours = self._release()
        if self._cancelling and ours:
            shared.feed(Interrupt("abort", timestamp=shared.clock()))

    def _release(self) -> bool:
        """Forget the task of the call that ends now; whether it still was the call's
        (a call the loop asked for while this one's last inputs were fed has its own)."""
        ours = self.task is asyncio.current_task()
        if ours:
            self.task = None
        return ours

    async def _from_driver(self, request: ModelRequest, batches: Any = None) -> Any:
        """Feed the driver's answer to ``request`` (``ended_batches``: it ends with
        ``message_stop`` or ``error_received``), or its ``batches`` asked for already;
        return the last event fed (``None`` when the call was cancelled). A raise is
        answered with an ``error_received``. Cancellation propagates."""
        shared = self._shared
        outlet, feed, feed_stream = shared.outlet, shared.feed, self._feed_stream
        stream: AsyncIterator[Sequence[Any]] | None = None
        last: Any = None
        try:
            stream = (
                ended_batches(self._driver(), request, shared.clock)
                if batches is None
                else ended(batches, shared.clock)
            )
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
