"""Tool calls: ``ExecuteTools``, ``CancelTools``, ``AnswerElicitation``.

- ``ExecuteTools``: one task per call (``run_tool``: timeouts that fire even for a tool
  that swallows cancellation), through the middleware, the extensions' hooks and the
  tool guardrails; each result is fed as a ``tool_result``. A batch holding a call that
  is not idempotent waits for ``barrier()`` first (the journal writes what it holds back).
  A lone call of a tool that cannot wait (an ``async`` function whose code holds no
  ``await``, ``async for`` or ``async with``), with no deadline and nothing bending it,
  asked for by the feed of the task that streams the run's model calls
  (``LocalPerformer.hold_calls``), is held for that task instead (``run_held``): the task
  runs it to its end, in a copy of the context as its own task would, and feeds the
  result itself: no task, no event-loop iteration. A call that may wait keeps its task:
  code that took ``asyncio.current_task()`` (``asyncio.timeout``, a ``TaskGroup``) must
  find the same task after each wait, and an abort must never wait for the tool.
- ``CancelTools``: each call's task is cancelled and abandoned, so a tool that ignores
  cancellation never holds the run; the loop answered the call itself, so nothing more
  is fed for it.
- ``AnswerElicitation``: the answer goes to the tool call waiting in ``ctx.elicit``.
  A call that asks feeds its ``elicitation_request`` (with a fresh id and its call id);
  one that stops waiting before the answer (a timeout, a cancellation) feeds a
  ``cancel`` answer, so every question is closed in the journal too.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable
from typing import Any

import attrs

from ..._core.content import ToolCallPart
from ..._core.errors import ErrorCode
from ..._core.events import ToolResult
from ..._edges.clock import new_id
from ..._loop.events import (
    AnswerElicitation,
    ElicitationAnswer,
    ElicitationRequest,
    ExecuteTools,
    GuardrailTripped,
    ToolProgress,
)
from ..actions import ToolCallAction, ToolResultAction, through
from ..extensions import Block
from ..guardrails import Verdict, judge
from ..tool_runner import AbortSignal, ToolContext, run_tool
from .shared import Shared, code

__all__ = ["ToolCalls"]


class ToolCalls:
    """The tool calls in flight (module docstring); ``messages()`` gives the
    conversation so far (for ``ToolContext``)."""

    def __init__(
        self, shared: Shared, messages: Callable[[], Any], barrier: Callable[[], None]
    ) -> None:
        self._shared = shared
        self._messages = messages
        self._barrier = barrier
        self.calls: dict[str, tuple[asyncio.Task[None] | None, AbortSignal]] = {}
        """Each call in flight: its task (``None`` while it is held), its signal."""
        self._held: tuple[ToolCallPart, tuple[None, AbortSignal]] | None = None
        """A lone call held for the task that streams the run (``run_held``)."""
        self._asked: dict[str, asyncio.Future[ElicitationAnswer]] = {}

    def execute(self, effect: ExecuteTools) -> None:
        shared = self._shared
        tools = shared.tools
        calls = effect.tool_calls
        if not all(getattr(tools.get(c.tool_name), "idempotent", False) for c in calls):
            self._barrier()  # the journal holds the request before the effect happens
        if len(calls) == 1 and self._holdable(calls[0]) and shared.streams_here():
            entry = (None, AbortSignal())
            self.calls[calls[0].tool_call_id] = entry
            self._held = (calls[0], entry)
            return
        loop = asyncio.get_running_loop()
        for call in calls:
            signal = AbortSignal()
            task = loop.create_task(self._tool(call, signal))
            self.calls[call.tool_call_id] = (task, signal)

    def _holdable(self, call: ToolCallPart) -> bool:
        """Whether ``call`` may run in the task that streams the run: its tool cannot
        wait (``never_waits``), has no deadline, and nothing bends the call."""
        shared = self._shared
        tool = shared.tools.get(call.tool_name)
        if tool is None or tool.timeout is not None or shared.settle is not None:
            return False
        guards, hooks = shared.guards, shared.hooks
        if (
            shared.middleware
            or guards.tool
            or guards.parallel is not None
            or hooks.before_tool_call
            or hooks.after_tool_result
        ):
            return False
        return tool.never_waits

    def run_held(self) -> bool:
        """Run the call held for this task (``execute``) to its end, in a copy of the
        context as its task would, and feed its result (the model call it asks for is
        held for this task too). Whether a result was fed."""
        held, self._held = self._held, None
        if held is None:
            return False
        call, entry = held
        call_id = call.tool_call_id
        if self.calls.get(call_id) is not entry:
            return False  # cancelled before it began, as its task would have been
        work = self._execute(call, entry[1])
        try:
            contextvars.copy_context().run(work.send, None)
        except StopIteration as done:
            return self._answered(call_id, done.value, None)
        except asyncio.CancelledError:
            return False  # the tool let an abort through: the loop answers the call
        work.close()
        raise RuntimeError(f"tool {call.tool_name!r} waited, though its code holds no await")

    def cancel_call(self, call_id: str) -> None:
        """``CancelTools``: abandon the call's task (the loop answered the call)."""
        entry = self.calls.pop(call_id, None)
        if entry is not None:  # else nothing runs here (a resumed run)
            task, signal = entry
            signal.abort()
            if task is not None:  # else held, not begun or running in this task
                task.cancel()

    def cancel(self) -> None:
        """Abandon every call in flight, feeding nothing more for them."""
        for task, signal in list(self.calls.values()):
            signal.abort()
            if task is not None:
                task.cancel()
        self.calls.clear()
        self._held = None

    def answer_elicitation(self, effect: AnswerElicitation) -> None:
        waiting = self._asked.pop(effect.answer.elicitation_id, None)
        if waiting is not None and not waiting.done():
            waiting.set_result(effect.answer)

    async def _tool(self, call: ToolCallPart, signal: AbortSignal) -> None:
        shared = self._shared
        call_id = call.tool_call_id
        trip = None
        try:
            guards = shared.guards
            if guards.parallel is not None and not await guards.passed(guards.parallel):
                return  # the input tripped: the loop cancels (and answers) this call
            hooks = shared.hooks
            if (
                shared.middleware
                or guards.tool
                or hooks.before_tool_call
                or hooks.after_tool_result
            ):
                result, trip = await self._bent(call, signal)
            else:
                result = await self._execute(call, signal)
        except asyncio.CancelledError:
            return  # cancelled by CancelTools (the loop answered the call) or aclose
        if self._answered(call_id, result, trip):
            await shared.stream_held()

    def _answered(self, call_id: str, result: ToolResult, trip: GuardrailTripped | None) -> bool:
        """Feed the call's result (and its trip) unless it was cancelled meanwhile (the
        loop answered it); the model call the result asks for is held for this task.
        Whether the result was fed."""
        shared = self._shared
        answered = self.calls.pop(call_id, None) is not None  # not by a cancel already
        if answered:  # the model call its result asks for streams in this task
            shared.hold_calls()
        if trip is None:
            if answered:
                shared.feed(result)
        else:  # after the call's own answer: the history stays well-formed
            shared.feed_all((result, trip) if answered else (trip,))
        return answered

    async def _bent(
        self, call: ToolCallPart, signal: AbortSignal
    ) -> tuple[ToolResult, GuardrailTripped | None]:
        """A tool call through the middleware, the extensions' hooks and the tool
        guardrails, in the order docs/middleware.md gives; a trip comes back with the
        call's result, to be fed after it."""
        shared = self._shared
        clock = shared.clock
        call_id = call.tool_call_id
        trips: list[GuardrailTripped] = []

        async def hooked(action: ToolCallAction) -> ToolResultAction:
            began = time.perf_counter()
            try:
                decided = await shared.hooks.before(action.call, shared.tools.get(call.tool_name))
            except Exception as exc:
                shared.report_plugin("extension", exc, action.call)
                return ToolResultAction(action.call, _hook_result(call_id, exc, clock()))
            if isinstance(decided, Block):
                details = {"error_code": ErrorCode.TOOL_REJECTED.value, "blocked": True}
                blocked = ToolResult(
                    call_id, decided.result, decided.is_error, details, timestamp=clock()
                )
                return ToolResultAction(action.call, blocked)
            verdict = await judge(shared.guards.tool, decided, None)
            if verdict.tripped:
                trips.append(shared.trip(verdict, "tool_input"))
                return ToolResultAction(decided, _withheld(call_id, verdict, clock()))
            result = await self._execute(decided, signal)
            try:
                result = await shared.hooks.after(decided, result)
            except Exception as exc:
                shared.report_plugin("extension", exc, decided)
                result = _hook_result(call_id, exc, clock())
            return ToolResultAction(decided, result, time.perf_counter() - began)

        try:
            action = await through(
                shared.middleware, ToolCallAction(call), hooked, ToolResultAction
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            shared.report_plugin("middleware", exc, call)
            return _plugin_result(call_id, exc, clock()), None
        result = action.result
        if shared.guards.tool and not trips:
            verdict = await judge(shared.guards.tool, action.call, result)
            if verdict.tripped:
                trips.append(shared.trip(verdict, "tool_output"))
                result = _withheld(call_id, verdict, clock())
        return result, trips[0] if trips else None

    async def _execute(self, call: ToolCallPart, signal: AbortSignal) -> ToolResult:
        """Run the tool itself; every failure becomes an error result."""
        shared = self._shared
        call_id = call.tool_call_id
        tool = shared.tools.get(call.tool_name)
        if tool is None:
            text = f"Tool {call.tool_name!r} is not available in this process."
            return ToolResult(call_id, text, True, code(ErrorCode.TOOL_NOT_FOUND))
        ctx = ToolContext(
            call_id,
            call.tool_name,
            signal,
            self._messages(),
            lambda progress: self._progress(call_id, progress),
            deps=shared.deps,
            elicit=lambda request: self._elicit(call_id, request),
        )
        try:
            outcome = await run_tool(tool, call.input, ctx)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug while running a tool still answers its call
            text = f"Tool {call.tool_name!r} failed: {type(exc).__name__}: {exc}"
            return ToolResult(call_id, text, True, code(ErrorCode.TOOL_EXECUTION_ERROR))
        if shared.settle is not None:
            await shared.settle()
        return ToolResult(
            call_id, outcome.content, outcome.is_error, outcome.details, timestamp=shared.clock()
        )

    async def _elicit(self, call_id: str, request: ElicitationRequest) -> ElicitationAnswer:
        """Ask the user for call ``call_id`` and wait for the answer (module docstring)."""
        if type(request) is not ElicitationRequest:
            raise TypeError(f"ctx.elicit() takes an ElicitationRequest, got {request!r}")
        shared = self._shared
        elicitation_id = f"elicit_{new_id()}"
        waiting: asyncio.Future[ElicitationAnswer] = asyncio.get_running_loop().create_future()
        self._asked[elicitation_id] = waiting
        try:
            shared.feed(
                attrs.evolve(
                    request,
                    elicitation_id=elicitation_id,
                    tool_call_id=call_id,
                    timestamp=shared.clock(),
                )
            )
            return await waiting
        finally:
            if self._asked.pop(elicitation_id, None) is not None:  # gave up unanswered
                cancel = ElicitationAnswer("cancel", None, elicitation_id, timestamp=shared.clock())
                shared.feed(cancel)

    def _progress(self, call_id: str, progress: Any) -> None:
        if call_id in self.calls:
            self._shared.feed(ToolProgress(call_id, progress))


def _plugin_result(call_id: str, exc: Exception, timestamp: int) -> ToolResult:
    text = f"The call failed in a middleware: {type(exc).__name__}: {exc}"
    return ToolResult(
        call_id, text, True, code(ErrorCode.TOOL_EXECUTION_ERROR), timestamp=timestamp
    )


def _hook_result(call_id: str, exc: Exception, timestamp: int) -> ToolResult:
    text = f"The call failed in an extension hook: {type(exc).__name__}: {exc}"
    return ToolResult(
        call_id, text, True, code(ErrorCode.TOOL_EXECUTION_ERROR), timestamp=timestamp
    )


def _withheld(call_id: str, verdict: Verdict, timestamp: int) -> ToolResult:
    text = f"Blocked by guardrail {verdict.guardrail!r}: {verdict.reason}"
    return ToolResult(call_id, text, True, code(ErrorCode.GUARDRAIL_TRIPPED), timestamp=timestamp)
