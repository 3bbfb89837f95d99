"""Performing the loop's effect requests: model calls, tool calls, timers.

``LocalPerformer`` implements the ``Performer`` protocol (``performing``) in this process:
``perform(effect)`` is where effects turn into I/O. Every result comes back as an
input through ``feed``, so the journal holds it and a replay reproduces what followed:

- ``CallModel``: the driver's stream events are fed one by one; a driver that raises, or
  whose stream ends without ``message_stop`` or ``error_received``, is answered with an
  ``error_received`` (retryable ``CONNECTION_ERROR`` for a cut stream; the exception's
  own ``code`` and ``retryable`` otherwise). Feeding pauses while an async presenter is
  over its backpressure mark.
- ``SummariseContext``: the driver is called the same way, but its reply is read here
  by the message assembler (``collect_reply``) and never fed (it would enter the
  conversation): one ``context_summary`` is fed with the text, usage and model, or with
  the error the call ended with.
- ``CancelModel``: the driver is told to stop and its task cancelled (a summary's too);
  once the stream has ended, an ``interrupt`` is fed (the processor flushes the partial
  reply).
- ``ExecuteTools``: one task per call (``run_tool``: timeouts that fire even for a tool
  that swallows cancellation); each result is fed as a ``tool_result``.
- ``CancelTools``: each call is answered at once with an ``ABORTED`` result and its task
  cancelled and abandoned, so a tool that ignores cancellation never holds the run.
- ``SetTimer``: a ``clock_tick`` is fed at the given time (one timer at a time).
- ``AwaitApproval`` / ``AwaitElicitation`` / ``Finish``: the run pauses or ends;
  ``on_pause(effect)`` is told.
- ``AnswerElicitation``: the answer goes to the tool call waiting in ``ctx.elicit``.
  A call that asks feeds its ``elicitation_request`` (with a fresh id and its call id);
  one that stops waiting before the answer (a timeout, a cancellation) feeds a
  ``cancel`` answer, so every question is closed in the journal too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs

from .._core.content import ToolCallPart, Usage
from .._core.driver import Driver, ModelRequest, close_stream
from .._core.errors import AgentError, ErrorCode, OutputParseError
from .._core.events import (
    AssistantMessage,
    ErrorMessage,
    ErrorReceived,
    Interrupt,
    MessageStop,
    ToolResult,
)
from .._core.replies import collect_reply
from .._loop.events import (
    AnswerElicitation,
    AwaitApproval,
    AwaitElicitation,
    CallModel,
    CancelModel,
    CancelTools,
    CheckOutput,
    ClockTick,
    ContextSummary,
    ElicitationAnswer,
    ElicitationRequest,
    ExecuteTools,
    Finish,
    GuardrailTripped,
    OutputPassed,
    SetTimer,
    SummariseContext,
    ToolProgress,
)
from .._loop.tools import Tool
from .actions import (
    ErrorAction,
    Middleware,
    ModelCallAction,
    ModelResponseAction,
    ToolCallAction,
    ToolResultAction,
    events_of,
    through,
)
from .delivery import EngineFailure, FailureSource
from .extensions import Block, Hooks
from .guardrails import Guards, Verdict, judge, judged
from .outlet import Outlet, new_id
from .output_stream import build_output
from .performing import BasePerformer, aborted
from .tool_runner import AbortSignal, ToolContext, run_tool

__all__ = ["LocalPerformer", "driver_failure"]

_TERMINAL = (MessageStop, ErrorReceived)


class LocalPerformer(BasePerformer):
    """Performs one agent's effects with ``driver`` and ``tools`` (module docstring).

    ``messages()`` gives the conversation so far (for ``ToolContext``); ``deps`` is the
    object handed to tools as ``ToolContext.deps`` (the agent's, or the current run's);
    ``on_pause(effect)`` is called with each ``AwaitApproval``/``AwaitElicitation``/
    ``Finish``. ``hooks``, ``middleware`` and ``guards`` bend model and tool calls
    (docs/middleware.md); ``collect()``/``stop_collecting(list)`` watch delivered
    outputs (for middleware). ``feed_stream(events, start)`` feeds a driver's batch from
    ``start`` and returns where it stopped (``Conversation.feed_stream``); without it, the
    batch is fed one event at a time through ``feed``. ``barrier()`` is called before
    a batch of tool calls holding one that is not idempotent runs (the journal writes what
    it holds back).
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
        collect: Callable[[], list[Any]],
        stop_collecting: Callable[[list[Any]], None],
        *,
        feed_stream: Callable[[Sequence[Any], int], int] | None = None,
        barrier: Callable[[], None] = lambda: None,
    ) -> None:
        self._feed = feed
        self._barrier = barrier
        self._feed_stream = feed_stream or _one_at_a_time(feed)
        self._collect = collect
        self._stop_collecting = stop_collecting
        self.hooks = Hooks()
        self.middleware: tuple[Middleware, ...] = ()
        self.guards = Guards()
        self.build_output: Callable[[Any], Any] | None = None
        """The current run's builder of its typed answer (a structured-output run)."""
        self._check: asyncio.Task[None] | None = None
        self._driver = driver
        self.tools = dict(tools)
        self._outlet = outlet
        self._clock = clock
        self._messages = messages
        self._on_pause = on_pause
        self.deps: Any = None
        self.settle: Callable[[], Awaitable[None]] | None = None
        """Awaited before a tool's result is fed (an agent with toolsets: a list change
        the call caused reaches the next model call)."""
        self._model: asyncio.Task[None] | None = None
        self._cancelling = False
        self._streaming = False
        self._calls: dict[str, tuple[asyncio.Task[None], AbortSignal]] = {}
        self._timer: asyncio.Task[None] | None = None
        self._asked: dict[str, asyncio.Future[ElicitationAnswer]] = {}

    @property
    def in_flight(self) -> bool:
        """Whether a model call or a tool call is running."""
        return self._model is not None or bool(self._calls)

    def perform(self, effect: Any) -> None:
        cls = type(effect)
        if cls is CallModel or cls is SummariseContext:
            self._call_model(effect)
        elif cls is ExecuteTools:
            tools = self.tools
            if not all(
                getattr(tools.get(c.tool_name), "idempotent", False) for c in effect.tool_calls
            ):
                self._barrier()  # the journal holds the request before the effect happens
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
        elif cls is CheckOutput:
            self._check_output(effect)
        elif cls is AnswerElicitation:
            waiting = self._asked.pop(effect.answer.elicitation_id, None)
            if waiting is not None and not waiting.done():
                waiting.set_result(effect.answer)
        elif cls in (AwaitApproval, AwaitElicitation, Finish):
            self._cancel_timer()
            if cls is Finish:
                self._end_checks()
            self._on_pause(effect)
        else:
            raise TypeError(f"not an effect request: {effect!r}")

    def cancel(self) -> None:
        """Cancel whatever is in flight (timer, checks, tool calls, the model call)."""
        self._cancel_timer()
        self._end_checks()
        for task, signal in list(self._calls.values()):
            signal.abort()
            task.cancel()
        self._calls.clear()
        model = self._model
        if model is not None:
            self._cancelling = True
            self._driver().interrupt()
            model.cancel()

    async def aclose(self) -> None:
        """``cancel``, then wait for the model task to end; idempotent."""
        self.cancel()
        model = self._model
        if model is not None:
            await asyncio.wait([model])

    # -- model calls ----------------------------------------------------------------------

    def _call_model(self, effect: CallModel) -> None:
        self._cancelling = self._streaming = False
        work = self._summary(effect) if type(effect) is SummariseContext else self._stream(effect)
        self._model = asyncio.get_running_loop().create_task(work)

    def _cancel_model(self) -> None:
        self._cancelling = True
        task = self._model
        if task is not None and not self._streaming:  # cancelled before it ever ran
            task.cancel()
            self._model = task = None
        if task is None:  # nothing runs here (a resumed run, or not yet): the call ends now
            self._feed(Interrupt("abort", timestamp=self._clock()))
            return
        self._driver().interrupt()
        task.cancel()

    async def _stream(self, effect: CallModel) -> None:
        self._streaming = True
        try:
            try:
                request = effect.request  # built now: the config's hooks run here
            except Exception as exc:
                self._feed(_hook_failure(exc, self._clock()))
                return
            guards = self.guards
            if guards.blocking is not None and not await guards.passed(guards.blocking):
                return  # the trip was fed: the loop cancels this call
            if self.middleware:
                await self._model_through_middleware(request)
            else:
                await self._from_driver(request)
        except asyncio.CancelledError:
            pass
        finally:
            self._model = None
        if self._cancelling:
            self._feed(Interrupt("abort", timestamp=self._clock()))

    async def _from_driver(self, request: ModelRequest) -> Any:
        """Feed the driver's answer to ``request``; return the last event fed (``None``
        when the call was cancelled). A raise or a cut stream is answered with an
        ``error_received``. Cancellation propagates."""
        outlet, feed, feed_stream = self._outlet, self._feed, self._feed_stream
        stream: AsyncIterator[Sequence[Any]] | None = None
        last: Any = None
        try:
            stream = self._driver().receive_batches(request)
            async for batch in stream:
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
            last = driver_failure(exc, self._clock())
            feed(last)
            return last
        finally:
            if stream is not None:
                await close_stream(stream)
        if self._cancelling:
            return None
        if type(last) not in _TERMINAL:
            last = _cut(self._clock())
            feed(last)
        return last

    async def _summary(self, effect: SummariseContext) -> None:
        """Read a summary call's reply here (``collect_reply``: the message assembler,
        never the conversation); feed its ``context_summary``."""
        self._streaming = True
        message: AssistantMessage | None = None
        failure: ErrorReceived | ErrorMessage | None = None
        try:
            try:
                request = effect.request
            except Exception as exc:
                failure = _hook_failure(exc, self._clock())
            else:
                message, failure = await collect_reply(self._driver(), request)
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # a failing driver never takes the agent down
            failure = driver_failure(exc, self._clock())
        finally:
            self._model = None
        now = self._clock()
        usage, model = (Usage(), "") if message is None else (message.usage, message.model)
        if self._cancelling:
            self._feed(Interrupt("abort", timestamp=now))
        elif failure is None and message is not None and not message.incomplete:
            self._feed(ContextSummary(message.text, usage, model, timestamp=now))
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

    async def _model_through_middleware(self, request: ModelRequest) -> None:
        """The call through the middleware onion (docs/middleware.md): what a
        short-circuit returns is fed as the stream events it stands for."""
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
                self.middleware,
                ModelCallAction(request),
                call_driver,
                (ModelResponseAction, ErrorAction),
            )
        except Exception as exc:
            self._report_plugin("middleware", exc, request)
            if not produced:  # the call was never made: it fails
                self._feed(_plugin_failure("a middleware", exc, self._clock()))
            return
        if produced:
            if result is not produced[0]:
                why = TypeError(
                    "a middleware returned another response than the streamed one; a "
                    "streamed reply cannot be rewritten: short-circuit instead"
                )
                self._report_plugin("middleware", why, result)
            return
        now = self._clock()
        if type(result) is ErrorAction:
            self._feed(ErrorReceived(result.message, result.code, result.retryable, timestamp=now))
        else:
            for event in events_of(result.message, now):
                self._feed(event)

    # -- tool calls -----------------------------------------------------------------------

    def _run_tool(self, call: Any) -> None:
        signal = AbortSignal()
        task = asyncio.get_running_loop().create_task(self._tool(call, signal))
        self._calls[call.tool_call_id] = (task, signal)

    async def _tool(self, call: ToolCallPart, signal: AbortSignal) -> None:
        call_id = call.tool_call_id
        trip = None
        try:
            guards = self.guards
            if guards.parallel is not None and not await guards.passed(guards.parallel):
                return  # the input tripped: the loop cancels (and answers) this call
            hooks = self.hooks
            if self.middleware or guards.tool or hooks.before_tool_call or hooks.after_tool_result:
                result, trip = await self._bent_tool(call, signal)
            else:
                result = await self._execute(call, signal)
        except asyncio.CancelledError:
            return  # cancelled by CancelTools or aclose, which answered the call
        self._answer(call_id, result)
        if trip is not None:  # after the call's own answer: the history stays well-formed
            self._feed(trip)

    async def _bent_tool(
        self, call: ToolCallPart, signal: AbortSignal
    ) -> tuple[ToolResult, GuardrailTripped | None]:
        """A tool call through the middleware, the extensions' hooks and the tool
        guardrails, in the order docs/middleware.md gives; a trip comes back with the
        call's result, to be fed after it."""
        call_id = call.tool_call_id
        trips: list[GuardrailTripped] = []

        async def hooked(action: ToolCallAction) -> ToolResultAction:
            began = time.perf_counter()
            try:
                decided = await self.hooks.before(action.call, self.tools.get(call.tool_name))
            except Exception as exc:
                self._report_plugin("extension", exc, action.call)
                return ToolResultAction(action.call, _hook_result(call_id, exc, self._clock()))
            if isinstance(decided, Block):
                details = {"error_code": ErrorCode.TOOL_REJECTED.value, "blocked": True}
                blocked = ToolResult(
                    call_id, decided.result, decided.is_error, details, timestamp=self._clock()
                )
                return ToolResultAction(action.call, blocked)
            verdict = await judge(self.guards.tool, decided, None)
            if verdict.tripped:
                trips.append(self._trip(verdict, "tool_input"))
                return ToolResultAction(decided, _withheld(call_id, verdict, self._clock()))
            result = await self._execute(decided, signal)
            try:
                result = await self.hooks.after(decided, result)
            except Exception as exc:
                self._report_plugin("extension", exc, decided)
                result = _hook_result(call_id, exc, self._clock())
            return ToolResultAction(decided, result, time.perf_counter() - began)

        try:
            action = await through(self.middleware, ToolCallAction(call), hooked, ToolResultAction)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._report_plugin("middleware", exc, call)
            return _plugin_result(call_id, exc, self._clock()), None
        result = action.result
        if self.guards.tool and not trips:
            verdict = await judge(self.guards.tool, action.call, result)
            if verdict.tripped:
                trips.append(self._trip(verdict, "tool_output"))
                result = _withheld(call_id, verdict, self._clock())
        return result, trips[0] if trips else None

    async def _execute(self, call: ToolCallPart, signal: AbortSignal) -> ToolResult:
        """Run the tool itself; every failure becomes an error result."""
        call_id = call.tool_call_id
        tool = self.tools.get(call.tool_name)
        if tool is None:
            text = f"Tool {call.tool_name!r} is not available in this process."
            return ToolResult(call_id, text, True, _code(ErrorCode.TOOL_NOT_FOUND))
        ctx = ToolContext(
            call_id,
            call.tool_name,
            signal,
            self._messages(),
            lambda progress: self._progress(call_id, progress),
            deps=self.deps,
            elicit=lambda request: self._elicit(call_id, request),
        )
        try:
            outcome = await run_tool(tool, call.input, ctx)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug while running a tool still answers its call
            text = f"Tool {call.tool_name!r} failed: {type(exc).__name__}: {exc}"
            return ToolResult(call_id, text, True, _code(ErrorCode.TOOL_EXECUTION_ERROR))
        if self.settle is not None:
            await self.settle()
        return ToolResult(
            call_id, outcome.content, outcome.is_error, outcome.details, timestamp=self._clock()
        )

    async def _elicit(self, call_id: str, request: ElicitationRequest) -> ElicitationAnswer:
        """Ask the user for call ``call_id`` and wait for the answer (module docstring)."""
        if type(request) is not ElicitationRequest:
            raise TypeError(f"ctx.elicit() takes an ElicitationRequest, got {request!r}")
        elicitation_id = f"elicit_{new_id()}"
        waiting: asyncio.Future[ElicitationAnswer] = asyncio.get_running_loop().create_future()
        self._asked[elicitation_id] = waiting
        try:
            self._feed(
                attrs.evolve(
                    request,
                    elicitation_id=elicitation_id,
                    tool_call_id=call_id,
                    timestamp=self._clock(),
                )
            )
            return await waiting
        finally:
            if self._asked.pop(elicitation_id, None) is not None:  # gave up unanswered
                cancel = ElicitationAnswer("cancel", None, elicitation_id, timestamp=self._clock())
                self._feed(cancel)

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
        self._feed(aborted(call_id, self._clock()))

    # -- guardrails -----------------------------------------------------------------------

    def check_input(self, messages: tuple[Any, ...]) -> None:
        """Start the input guardrails on a run's prompt (a trip is fed when it happens)."""
        self.guards.start(messages, lambda verdict: self._feed(self._trip(verdict, "input")))

    def _check_output(self, effect: CheckOutput) -> None:
        """Judge the final answer: inline when the input checks have settled and every
        output check answers at once (no task, no suspension), else in a task."""
        passed = self.guards.input_passed()
        if passed is False:
            return  # the input tripped: that ends the run
        if passed is None:
            self._check = asyncio.get_running_loop().create_task(self._output_after_input(effect))
            return
        verdict = judged(self.guards.output, self._judged_answer(effect))
        if isinstance(verdict, Verdict):
            self._output_judged(verdict)
        else:
            self._check = asyncio.get_running_loop().create_task(self._output_awaited(verdict))

    async def _output_after_input(self, effect: CheckOutput) -> None:
        guards = self.guards
        for task in (guards.blocking, guards.parallel):
            if task is not None and not await guards.passed(task):
                return  # the input tripped: that ends the run
        self._output_judged(await judge(guards.output, self._judged_answer(effect)))

    def _judged_answer(self, effect: CheckOutput) -> Any:
        """What output guardrails judge: the final reply, or on a structured-output run
        its answer, typed when the run's class builds it (else its JSON value)."""
        if effect.output is None:
            return effect.message
        if self.build_output is not None:
            try:
                return build_output(self.build_output, effect.output)
            except OutputParseError:  # the run ends with it when its answer is built
                pass
        return effect.output

    async def _output_awaited(self, verdict: Awaitable[Verdict]) -> None:
        self._output_judged(await verdict)

    def _output_judged(self, verdict: Verdict) -> None:
        self._check = None
        if verdict.tripped:
            self._feed(self._trip(verdict, "output"))
        else:  # stamped here: the shell would evolve an unstamped event
            self._feed(OutputPassed(timestamp=self._clock()))

    def _end_checks(self) -> None:
        self.guards.cancel()
        if self._check is not None:
            self._check.cancel()
            self._check = None

    def _trip(self, verdict: Verdict, stage: str) -> GuardrailTripped:
        assert verdict.guardrail is not None
        if verdict.error is not None:
            self._report_plugin("guardrail", verdict.error, verdict.guardrail)
        return GuardrailTripped(verdict.guardrail, stage, verdict.reason, timestamp=self._clock())

    def _report_plugin(self, source: FailureSource, exc: Exception, subject: Any) -> None:
        self._outlet.report(EngineFailure(source, type(exc).__name__, exc, subject))

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


def _plugin_failure(what: str, exc: Exception, timestamp: int) -> ErrorReceived:
    """The ``error_received`` for a model call a middleware failed before it was made."""
    return ErrorReceived(
        f"{what} failed before the model call: {type(exc).__name__}: {exc}",
        ErrorCode.HANDLER_ERROR.value,
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


def _plugin_result(call_id: str, exc: Exception, timestamp: int) -> ToolResult:
    text = f"The call failed in a middleware: {type(exc).__name__}: {exc}"
    return ToolResult(
        call_id, text, True, _code(ErrorCode.TOOL_EXECUTION_ERROR), timestamp=timestamp
    )


def _hook_result(call_id: str, exc: Exception, timestamp: int) -> ToolResult:
    text = f"The call failed in an extension hook: {type(exc).__name__}: {exc}"
    return ToolResult(
        call_id, text, True, _code(ErrorCode.TOOL_EXECUTION_ERROR), timestamp=timestamp
    )


def _withheld(call_id: str, verdict: Verdict, timestamp: int) -> ToolResult:
    text = f"Blocked by guardrail {verdict.guardrail!r}: {verdict.reason}"
    return ToolResult(call_id, text, True, _code(ErrorCode.GUARDRAIL_TRIPPED), timestamp=timestamp)


def _hook_failure(exc: Exception, timestamp: int) -> ErrorReceived:
    """The ``error_received`` for a ``convert_to_llm``/``transform_context`` that raised
    while the request was built: the call fails, the agent goes on."""
    return ErrorReceived(
        f"building the model request failed (convert_to_llm or transform_context): "
        f"{type(exc).__name__}: {exc}",
        ErrorCode.HANDLER_ERROR.value,
        timestamp=timestamp,
    )


def _one_at_a_time(feed: Callable[[Any], None]) -> Callable[[Sequence[Any], int], int]:
    """``feed_stream`` for a feed with no batch path: one event per call."""

    def feed_stream(events: Sequence[Any], start: int) -> int:
        feed(events[start])
        return start + 1

    return feed_stream
