"""The async shell around the loop processor: it performs effects and feeds back results.

``LoopRuntime`` owns the loop state and journals every input event (stamped with the
runtime's clock when it carries no timestamp) before folding it through
``loop_processor``, so ``replay_journal(config, journal)`` rebuilds the same state and
outputs exactly. It never decides anything itself:

- ``CallModel``: stream the driver, feed each stream event (for ``agent_message_update``),
  run them through the message assembler, and feed the ``AssistantMessage`` it produces.
  A driver that raises, reports ``error_received``, or ends without ``message_stop``
  yields the flushed partial message (if any) and then an ``ErrorReceived``.
- ``CancelModel``: ``driver.interrupt()`` and cancel the stream task; the partial message
  (marked incomplete) or an ``ABORTED`` error still comes back.
- ``ExecuteTools``/``CancelTools``: one task per call; a cancelled call is answered with
  an error result, so every call gets exactly one ``tool_result``.
- ``SetDeadline``: a timer that feeds a ``clock_tick`` at the deadline.
- ``Finish``/``AwaitApproval``: the run (or its current stretch) is over.

Feeding is synchronous and not re-entrant: an event fed while outputs are being
dispatched (a subscriber calling ``steer``) is queued and folded right after, in order.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from ._assembler import create_initial_message_assembler_state, message_assembler_processor
from ._driver import Driver, ModelRequest
from ._errors import AgentError, ErrorCode
from ._events import AssistantMessage, ErrorMessage, ErrorReceived, Interrupt, ToolResult
from ._loop import loop_processor
from ._loop_events import (
    AgentAbort,
    AwaitApproval,
    CallModel,
    CancelModel,
    CancelTools,
    ClockTick,
    ExecuteTools,
    Finish,
    SetDeadline,
    ToolProgress,
)
from ._loop_state import LoopConfig, LoopState, initial_loop_state
from ._tool_runner import AbortSignal, ToolContext, run_tool

__all__ = ["LoopRuntime", "ms_clock", "replay_journal"]

_EFFECTS = (CallModel, CancelModel, ExecuteTools, CancelTools, SetDeadline, AwaitApproval, Finish)


def ms_clock() -> int:
    """Wall-clock milliseconds: the default stamp for fed events."""
    return time.time_ns() // 1_000_000


def replay_journal(
    config: LoopConfig, journal: Iterable[Any], messages: Iterable[Any] = ()
) -> tuple[LoopState, list[Any]]:
    """Fold a journal through the loop processor: the state and every output, effects too."""
    state = initial_loop_state(config, tuple(messages))
    outputs: list[Any] = []
    for event in journal:
        state, out = loop_processor(state, event)
        outputs.extend(out)
    return state, outputs


class LoopRuntime:
    """Runs one agent's loop: feed events, perform effects, publish outputs.

    ``emit(output)`` receives every non-effect output in order (lifecycle events and
    assembler protocol errors); it must not raise (the ``Agent`` isolates subscribers).
    """

    def __init__(
        self,
        config: LoopConfig,
        driver: Driver,
        emit: Callable[[Any], None],
        *,
        messages: Iterable[Any] = (),
        clock: Callable[[], int] = ms_clock,
    ) -> None:
        self.config = config
        self.driver = driver
        self.state = initial_loop_state(config, tuple(messages))
        self.initial_messages = tuple(messages)
        self.journal: list[Any] = []
        self.outputs: list[Any] = []
        self._emit = emit
        self._clock = clock
        self._feeding = False
        self._backlog: deque[Any] = deque()
        self._model_task: asyncio.Task[None] | None = None
        self._tools: dict[str, tuple[asyncio.Task[None], AbortSignal]] = {}
        self._timer: asyncio.Task[None] | None = None
        self._stretch: asyncio.Future[Finish | AwaitApproval] | None = None
        self.record_outputs = False

    # -- feeding ------------------------------------------------------------------------

    def feed(self, event: Any) -> None:
        """Journal ``event`` and fold it through the processor, then perform the effects."""
        if getattr(event, "timestamp", 1) == 0:
            event = attrs.evolve(event, timestamp=self._clock())
        self._backlog.append(event)
        if self._feeding:
            return
        self._feeding = True
        try:
            while self._backlog:
                next_event = self._backlog.popleft()
                self.journal.append(next_event)
                self.state, outputs = loop_processor(self.state, next_event)
                if self.record_outputs:
                    self.outputs.extend(outputs)
                for output in outputs:
                    if isinstance(output, _EFFECTS):
                        self._perform(output)
                    else:
                        self._emit(output)
        finally:
            self._feeding = False

    @property
    def in_flight(self) -> bool:
        """Whether a model call or a tool call is running."""
        return self._model_task is not None or bool(self._tools)

    async def run(self, event: Any) -> Finish | AwaitApproval | None:
        """Feed ``event`` and wait until the run ends or pauses; ``None`` when the event
        started nothing (rejected, or an approval that still waits for other decisions)."""
        loop = asyncio.get_running_loop()
        self._stretch = stretch = loop.create_future()
        self.feed(event)
        if not stretch.done() and not self.in_flight:
            return None
        try:
            return await asyncio.shield(stretch)
        except asyncio.CancelledError:
            if not stretch.cancelled():  # our caller was cancelled: abort the run
                self.feed(AgentAbort("cancelled"))
            raise

    # -- effects ------------------------------------------------------------------------

    def _perform(self, effect: Any) -> None:
        if isinstance(effect, CallModel):
            self._model_task = task = asyncio.create_task(self._call_model(effect.request))
            task.add_done_callback(self._model_cancelled_early)
        elif isinstance(effect, CancelModel):
            self.driver.interrupt()
            if self._model_task is not None:
                self._model_task.cancel()
        elif isinstance(effect, ExecuteTools):
            for call in effect.tool_calls:
                signal = AbortSignal()
                task = asyncio.create_task(self._run_tool(call, signal))
                task.add_done_callback(functools.partial(self._tool_cancelled_early, call=call))
                self._tools[call.tool_call_id] = (task, signal)
        elif isinstance(effect, CancelTools):
            for call_id in effect.tool_call_ids:
                task, signal = self._tools[call_id]
                signal.abort()
                task.cancel()
        elif isinstance(effect, SetDeadline):
            self._cancel_timer()
            self._timer = asyncio.create_task(self._tick_at(effect.at_ms))
        else:  # Finish or AwaitApproval: nothing is in flight any more
            self._cancel_timer()
            if self._stretch is not None and not self._stretch.done():
                self._stretch.set_result(effect)

    # A task cancelled before it first ran never enters its own handler; answer for it.

    def _model_cancelled_early(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            if self._model_task is task:
                self._model_task = None
            self.feed(ErrorReceived("the model call was cancelled", ErrorCode.ABORTED.value))

    def _tool_cancelled_early(self, task: asyncio.Task[None], *, call: Any) -> None:
        if task.cancelled():
            self._tools.pop(call.tool_call_id, None)
            self._answer_cancelled(call)

    def _answer_cancelled(self, call: Any) -> None:
        self.feed(
            ToolResult(
                call.tool_call_id,
                f"Tool {call.tool_name!r} was cancelled before it finished: the run was stopped.",
                True,
                {"error_code": ErrorCode.ABORTED.value},
            )
        )

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _tick_at(self, at_ms: int) -> None:
        while (now := self._clock()) < at_ms:
            await asyncio.sleep((at_ms - now) / 1000)
        self._timer = None
        self.feed(ClockTick(timestamp=now))

    async def _call_model(self, request: ModelRequest) -> None:
        assembler = create_initial_message_assembler_state()
        answered = False

        def flush(event: Any) -> None:
            nonlocal assembler, answered
            assembler, outs = message_assembler_processor(assembler, event)
            for out in outs:
                if isinstance(out, AssistantMessage):
                    answered = True
                    self.feed(out)
                elif isinstance(out, ErrorMessage):
                    self._emit(out)

        stream = None
        try:
            stream = self.driver.receive(request)
            async for event in stream:
                if isinstance(event, ErrorReceived):
                    flush(event)
                    self.feed(event)
                    return
                self.feed(event)
                flush(event)
            if not answered:
                self._fail(flush, "the model stream ended before message_stop", "PROVIDER_ERROR")
        except asyncio.CancelledError:
            flush(Interrupt("abort", timestamp=self._clock()))
            if not answered:
                self.feed(ErrorReceived("the model call was cancelled", ErrorCode.ABORTED.value))
        except Exception as exc:  # a failing driver never takes the loop down
            code = exc.code.value if isinstance(exc, AgentError) else "PROVIDER_ERROR"
            self._fail(flush, f"{type(exc).__name__}: {exc}", code)
        finally:
            self._model_task = None
            if stream is not None and hasattr(stream, "aclose"):
                await stream.aclose()

    def _fail(self, flush: Callable[[Any], None], message: str, code: str) -> None:
        error = ErrorReceived(message, code, timestamp=self._clock())
        flush(error)
        self.feed(error)

    async def _run_tool(self, call: Any, signal: AbortSignal) -> None:
        tool = self.config.tools_by_name[call.tool_name]
        call_id = call.tool_call_id
        ctx = ToolContext(
            call_id,
            call.tool_name,
            signal,
            self.state.messages,
            lambda progress: self.feed(ToolProgress(call_id, progress)),
        )
        try:
            outcome = await run_tool(tool, call.input, ctx)
        except asyncio.CancelledError:
            self._tools.pop(call_id, None)
            self._answer_cancelled(call)
            return
        self._tools.pop(call_id, None)
        self.feed(ToolResult(call_id, outcome.content, outcome.is_error, outcome.details))
