"""The async shell around the agent's fold: it performs effects and feeds back results.

``LoopRuntime`` records every input (stamped with the runtime's clock when it carries no
timestamp) in ``inputs``, appends the stream-layer ones to the ``journal`` (the engine's
format: ``agentcore.journal.replay`` folds it through the core machine), and folds it
through ``AgentFold`` (core machine, then loop processor), so
``replay_journal(config, inputs)`` rebuilds the same state and outputs exactly. Each
stream-layer input, then its core outputs (messages, state, turns), then the loop's
lifecycle events are delivered in order through the ``Outlet`` (presenter lanes and
subscribers). A user message that enters the conversation (prompt, steering, follow-up)
is fed back as a ``user_message`` input. The runtime never decides anything itself:

- ``CallModel``: stream the driver and feed each stream event; the core assembles the
  ``AssistantMessage`` the loop gets. A driver that raises, or ends without
  ``message_stop``, is answered with an ``ErrorReceived`` (which flushes the partial
  message first). Feeding pauses while an async presenter is over its mark.
- ``CancelModel``: ``driver.interrupt()`` and cancel the stream task; an ``interrupt`` is
  fed (the partial message comes back marked incomplete), else an ``ABORTED`` error.
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
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from .._core.driver import Driver, ModelRequest
from .._core.errors import AgentError, ErrorCode
from .._core.events import AssistantMessage, ErrorReceived, Interrupt, ToolResult, UserMessage
from .._core.machine import MealyMachine
from .._journal.journal import Journal
from .._loop.events import (
    AgentAbort,
    AgentMessageEnd,
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
from .._loop.fold import AgentFold, is_stream_input, replay_journal
from .._loop.state import LoopConfig, LoopState
from .outlet import Outlet, ms_clock
from .tool_runner import AbortSignal, ToolContext, run_tool

__all__ = ["LoopRuntime", "replay_journal"]

_EFFECTS = frozenset(
    (CallModel, CancelModel, ExecuteTools, CancelTools, SetDeadline, AwaitApproval, Finish)
)
"""The loop's effect requests (exact classes: the loop builds them)."""


class LoopRuntime:
    """Runs one agent's fold: feed inputs, perform effects, deliver outputs.

    ``outlet`` gets every stream-layer input and every non-effect output, in order;
    ``journal`` (optional) every stream-layer input under ``agent_id``; ``machine`` is
    the core machine to continue (a fresh one by default, priced with ``prices``).
    """

    def __init__(
        self,
        config: LoopConfig,
        driver: Driver,
        outlet: Outlet,
        *,
        messages: Iterable[Any] = (),
        clock: Callable[[], int] = ms_clock,
        journal: Journal | None = None,
        machine: MealyMachine | None = None,
    ) -> None:
        self.config = config
        self.driver = driver
        self.agent_id = outlet.agent_id
        self.fold = AgentFold(config, messages, agent_id=self.agent_id, machine=machine)
        self.initial_messages = tuple(messages)
        self.inputs: list[Any] = []
        """Every input folded, in order: ``replay_journal`` reproduces the run from it."""
        self.journal = journal
        self.outputs: list[Any] = []
        self.core_outputs: list[Any] = []
        self._outlet = outlet
        self._clock = clock
        self._answered = False
        self._cancelling = False
        self._feeding = False
        self._backlog: deque[Any] = deque()
        self._model_task: asyncio.Task[None] | None = None
        self._tools: dict[str, tuple[asyncio.Task[None], AbortSignal]] = {}
        self._timer: asyncio.Task[None] | None = None
        self._stretch: asyncio.Future[Finish | AwaitApproval] | None = None
        self.record_outputs = False

    # -- feeding ------------------------------------------------------------------------

    @property
    def state(self) -> LoopState:
        """The loop state after the last folded input."""
        return self.fold.state

    def feed(self, event: Any) -> None:
        """Record, journal and fold ``event``; deliver its outputs and perform the effects."""
        if getattr(event, "timestamp", 1) == 0:
            event = attrs.evolve(event, timestamp=self._clock())
        self._fold_in(event)

    def _fold_in(self, event: Any) -> None:
        """``feed`` for an event already stamped (its timestamp is kept even if 0)."""
        self._backlog.append(event)
        if self._feeding:
            return
        self._feeding = True
        deliver = self._outlet.deliver
        backlog, fold, inputs = self._backlog, self.fold, self.inputs
        try:
            while backlog:
                next_event = backlog.popleft()
                inputs.append(next_event)
                stream = is_stream_input(next_event)
                if stream and self.journal is not None:
                    self.journal.append(self.agent_id, next_event)
                core, outputs = fold.fold(next_event)
                if self.record_outputs:
                    self.core_outputs.extend(core)
                    self.outputs.extend(core)
                    self.outputs.extend(outputs)
                if stream:
                    deliver(next_event)
                for output in core:
                    if isinstance(output, AssistantMessage):
                        self._answered = True
                    deliver(output)
                for output in outputs:
                    if type(output) in _EFFECTS:
                        self._perform(output)
                        continue
                    deliver(output)
                    if type(output) is AgentMessageEnd and isinstance(output.message, UserMessage):
                        backlog.append(output.message)  # it enters the conversation
                # calls the loop answered itself reach the core layers as tool results
                backlog.extend(fold.derived_results(outputs))
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
            self._cancelling = True
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
            if self.journal is not None:
                self.journal.sync()
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
        self._answered = self._cancelling = False
        outlet = self._outlet
        stream = None
        try:
            stream = self.driver.receive(request)
            async for event in stream:
                self.feed(event)
                if isinstance(event, ErrorReceived):
                    return
                if outlet.congested:
                    await outlet.relieve()
            if self._cancelling:
                self._interrupted()  # a driver that ends its stream when told to stop
            elif not self._answered:
                self._fail("the model stream ended before message_stop", "PROVIDER_ERROR")
        except asyncio.CancelledError:
            self._interrupted()
        except Exception as exc:  # a failing driver never takes the loop down
            code = exc.code.value if isinstance(exc, AgentError) else "PROVIDER_ERROR"
            self._fail(f"{type(exc).__name__}: {exc}", code)
        finally:
            self._model_task = None
            if stream is not None and hasattr(stream, "aclose"):
                await stream.aclose()

    def _interrupted(self) -> None:
        """Flush the partial reply (``interrupt``); without one, answer ``ABORTED``."""
        if not self._answered:
            self.feed(Interrupt("abort", timestamp=self._clock()))
        if not self._answered:
            self.feed(ErrorReceived("the model call was cancelled", ErrorCode.ABORTED.value))

    def _fail(self, message: str, code: str) -> None:
        self.feed(ErrorReceived(message, code, timestamp=self._clock()))

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
        except Exception as exc:  # a bug while running a tool still answers its call
            self._tools.pop(call_id, None)
            text = f"Tool {call.tool_name!r} failed: {type(exc).__name__}: {exc}"
            code = ErrorCode.TOOL_EXECUTION_ERROR.value
            self.feed(ToolResult(call_id, text, True, {"error_code": code}))
            return
        self._tools.pop(call_id, None)
        self._fold_in(
            ToolResult(
                call_id,
                outcome.content,
                outcome.is_error,
                outcome.details,
                timestamp=self._clock(),
            )
        )
