"""Performing the loop's effect requests: model calls, tool calls, timers.

``Performer.perform(effect)`` is the one seam where effects turn into I/O (durable
execution and tests plug a different performer in here). Every result comes back as an
input through ``feed``, so the journal holds it and a replay reproduces what followed:

- ``CallModel``: the driver's stream events are fed one by one; a driver that raises, or
  whose stream ends without ``message_stop`` or ``error_received``, is answered with an
  ``error_received`` (retryable ``CONNECTION_ERROR`` for a cut stream; the exception's
  own ``code`` and ``retryable`` otherwise). Feeding pauses while an async presenter is
  over its backpressure mark.
- ``SummariseContext``: the driver is called the same way, but its stream events are
  read here and never fed (they would enter the conversation): one ``context_summary``
  is fed with the text, usage and model, or with the error the call ended with.
- ``CancelModel``: the driver is told to stop and its task cancelled (a summary's too);
  once the stream has ended, an ``interrupt`` is fed (the processor flushes the partial
  reply).
- ``ExecuteTools``: one task per call (``run_tool``: timeouts that fire even for a tool
  that swallows cancellation); each result is fed as a ``tool_result``.
- ``CancelTools``: each call is answered at once with an ``ABORTED`` result and its task
  cancelled and abandoned, so a tool that ignores cancellation never holds the run.
- ``SetTimer``: a ``clock_tick`` is fed at the given time (one timer at a time).
- ``AwaitApproval`` / ``Finish``: nothing is in flight; ``on_pause(effect)`` is told.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from .._core.content import Usage
from .._core.driver import Driver
from .._core.errors import ErrorCode
from .._core.events import (
    ErrorReceived,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResult,
)
from .._loop.events import (
    AwaitApproval,
    CallModel,
    CancelModel,
    CancelTools,
    ClockTick,
    ContextSummary,
    ExecuteTools,
    Finish,
    SetTimer,
    SummariseContext,
    ToolProgress,
)
from .._loop.tools import Tool
from .outlet import Outlet
from .tool_runner import AbortSignal, ToolContext, run_tool

__all__ = ["Performer"]

_TERMINAL = (MessageStop, ErrorReceived)


class Performer:
    """Performs one agent's effects with ``driver`` and ``tools`` (module docstring).

    ``messages()`` gives the conversation so far (for ``ToolContext``); ``deps`` is the
    object handed to tools as ``ToolContext.deps`` (the agent's, or the current run's);
    ``on_pause(effect)`` is called with each ``AwaitApproval``/``Finish``.
    """

    def __init__(
        self,
        feed: Callable[[Any], None],
        driver: Callable[[], Driver],
        tools: Mapping[str, Tool],
        outlet: Outlet,
        clock: Callable[[], int],
        messages: Callable[[], Any],
        on_pause: Callable[[Any], None],
    ) -> None:
        self._feed = feed
        self._driver = driver
        self.tools = dict(tools)
        self._outlet = outlet
        self._clock = clock
        self._messages = messages
        self._on_pause = on_pause
        self.deps: Any = None
        self._model: asyncio.Task[None] | None = None
        self._cancelling = False
        self._calls: dict[str, tuple[asyncio.Task[None], AbortSignal]] = {}
        self._timer: asyncio.Task[None] | None = None

    @property
    def in_flight(self) -> bool:
        """Whether a model call or a tool call is running."""
        return self._model is not None or bool(self._calls)

    def perform(self, effect: Any) -> None:
        cls = type(effect)
        if cls is CallModel or cls is SummariseContext:
            self._call_model(effect)
        elif cls is ExecuteTools:
            for call in effect.tool_calls:
                self._run_tool(call)
        elif cls is CancelModel:
            self._cancel_model()
        elif cls is CancelTools:
            for call_id in effect.tool_call_ids:
                self._cancel_tool(call_id)
        elif cls is SetTimer:
            self._cancel_timer()
            self._timer = asyncio.get_running_loop().create_task(self._tick_at(effect.at_ms))
        elif cls in (AwaitApproval, Finish):
            self._cancel_timer()
            self._on_pause(effect)
        else:
            raise TypeError(f"not an effect request: {effect!r}")

    async def aclose(self) -> None:
        """Cancel whatever is in flight and wait for the model task to end; idempotent."""
        self._cancel_timer()
        for task, signal in list(self._calls.values()):
            signal.abort()
            task.cancel()
        self._calls.clear()
        model = self._model
        if model is not None:
            self._cancelling = True
            self._driver().interrupt()
            model.cancel()
            await asyncio.wait([model])

    # -- model calls ----------------------------------------------------------------------

    def _call_model(self, effect: CallModel) -> None:
        self._cancelling = False
        work = self._summary(effect) if type(effect) is SummariseContext else self._stream(effect)
        self._model = asyncio.get_running_loop().create_task(work)

    def _cancel_model(self) -> None:
        self._cancelling = True
        task = self._model
        if task is None:  # nothing runs here (a resumed run): the call ends now
            self._feed(Interrupt("abort", timestamp=self._clock()))
            return
        self._driver().interrupt()
        task.cancel()

    async def _stream(self, effect: CallModel) -> None:
        outlet, feed = self._outlet, self._feed
        stream = None
        last: Any = None
        try:
            try:
                request = effect.request  # built now: the config's hooks run here
            except Exception as exc:
                last = None
                feed(_hook_failure(exc, self._clock()))
                return
            stream = self._driver().receive(request)
            async for event in stream:
                feed(event)
                last = event
                if type(event) is ErrorReceived or self._cancelling:
                    break
                if outlet.congested:
                    await outlet.relieve()
        except asyncio.CancelledError:
            last = None
        except Exception as exc:  # a failing driver never takes the agent down
            last = None
            if not self._cancelling:
                feed(_failure(exc, self._clock()))
                return
        finally:
            self._model = None
            if stream is not None:
                await _close(stream)
        if self._cancelling:
            self._feed(Interrupt("abort", timestamp=self._clock()))
        elif type(last) not in _TERMINAL:
            self._feed(_cut(self._clock()))

    async def _summary(self, effect: SummariseContext) -> None:
        """Read a summary call's stream here; feed its ``context_summary``."""
        stream = None
        texts: list[str] = []
        usage, model = Usage(), ""
        failure: ErrorReceived | None = None
        stopped = False
        try:
            try:
                request = effect.request
            except Exception as exc:
                failure = _hook_failure(exc, self._clock())
            else:
                stream = self._driver().receive(request)
                async for event in stream:
                    if isinstance(event, TextDelta):
                        texts.append(event.text)
                    elif isinstance(event, MessageDelta):
                        usage = event.usage
                    elif isinstance(event, MessageStart):
                        model = event.model
                    elif isinstance(event, MessageStop):
                        stopped = True
                    elif isinstance(event, ErrorReceived):
                        failure = event
                    if stopped or failure is not None or self._cancelling:
                        break
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # a failing driver never takes the agent down
            failure = _failure(exc, self._clock())
        finally:
            self._model = None
            if stream is not None:
                await _close(stream)
        now = self._clock()
        if self._cancelling:
            self._feed(Interrupt("abort", timestamp=now))
        elif failure is None and stopped:
            self._feed(ContextSummary("".join(texts), usage, model, timestamp=now))
        else:
            failure = failure or _cut(now)
            self._feed(
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

    # -- tool calls -----------------------------------------------------------------------

    def _run_tool(self, call: Any) -> None:
        signal = AbortSignal()
        task = asyncio.get_running_loop().create_task(self._tool(call, signal))
        self._calls[call.tool_call_id] = (task, signal)

    async def _tool(self, call: Any, signal: AbortSignal) -> None:
        call_id = call.tool_call_id
        tool = self.tools.get(call.tool_name)
        if tool is None:
            text = f"Tool {call.tool_name!r} is not available in this process."
            self._answer(call_id, ToolResult(call_id, text, True, _code(ErrorCode.TOOL_NOT_FOUND)))
            return
        ctx = ToolContext(
            call_id,
            call.tool_name,
            signal,
            self._messages(),
            lambda progress: self._progress(call_id, progress),
            deps=self.deps,
        )
        try:
            outcome = await run_tool(tool, call.input, ctx)
        except asyncio.CancelledError:
            return  # cancelled by CancelTools or aclose, which answered the call
        except Exception as exc:  # a bug while running a tool still answers its call
            text = f"Tool {call.tool_name!r} failed: {type(exc).__name__}: {exc}"
            outcome_event = ToolResult(call_id, text, True, _code(ErrorCode.TOOL_EXECUTION_ERROR))
            self._answer(call_id, outcome_event)
            return
        result = ToolResult(
            call_id, outcome.content, outcome.is_error, outcome.details, timestamp=self._clock()
        )
        self._answer(call_id, result)

    def _answer(self, call_id: str, result: ToolResult) -> None:
        if self._calls.pop(call_id, None) is not None:  # not answered by a cancel already
            self._feed(result)

    def _progress(self, call_id: str, progress: Any) -> None:
        if call_id in self._calls:
            self._feed(ToolProgress(call_id, progress))

    def _cancel_tool(self, call_id: str) -> None:
        entry = self._calls.pop(call_id, None)
        if entry is None:  # nothing runs here (a resumed run): answer it all the same
            entry_task = None
        else:
            entry_task, signal = entry
            signal.abort()
            entry_task.cancel()
        text = "The call was cancelled before it finished: the run was stopped."
        self._feed(
            ToolResult(call_id, text, True, _code(ErrorCode.ABORTED), timestamp=self._clock())
        )

    # -- timers ---------------------------------------------------------------------------

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _tick_at(self, at_ms: int) -> None:
        while (now := self._clock()) < at_ms:
            await asyncio.sleep((at_ms - now) / 1000)
        self._timer = None
        self._feed(ClockTick(timestamp=now))


def _code(code: ErrorCode) -> dict[str, str]:
    return {"error_code": code.value}


def _failure(exc: BaseException, timestamp: int) -> ErrorReceived:
    """The ``error_received`` for a driver that raised: its own code and retryability."""
    code = getattr(exc, "code", None)
    code_value = getattr(code, "value", code)
    retryable = getattr(exc, "retryable", False)
    return ErrorReceived(
        f"{type(exc).__name__}: {exc}",
        code_value if isinstance(code_value, str) and code_value else ErrorCode.DRIVER_ERROR.value,
        retryable=retryable if isinstance(retryable, bool) else False,
        timestamp=timestamp,
    )


def _cut(timestamp: int) -> ErrorReceived:
    """The ``error_received`` for a model stream that ended before ``message_stop``."""
    return ErrorReceived(
        "the model stream ended before message_stop",
        ErrorCode.CONNECTION_ERROR.value,
        retryable=True,
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


async def _close(stream: Any) -> None:
    """Close a driver's stream (an async generator) so its ``finally`` runs now."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
