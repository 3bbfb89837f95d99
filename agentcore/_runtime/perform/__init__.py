"""``LocalPerformer``: the ``Performer`` protocol (``performing``) in this process.

``perform(effect)`` is where effects turn into I/O; every result comes back as an input
through ``feed``, so the journal holds it and a replay reproduces what followed. The
work is split by effect, one module each: ``model`` (model calls and summaries),
``tools`` (tool calls and their elicitations), ``checks`` (guardrails) and ``timers``;
``shared`` holds what they all read. What is left here:

- ``AwaitApproval`` / ``AwaitElicitation`` / ``Finish``: the run pauses or ends (the
  timer is cancelled; ``Finish`` ends the checks too); ``on_pause(effect)`` is told.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..._edges.driver import Driver
from ..._edges.performer import BasePerformer
from ..._loop.events import (
    AnswerElicitation,
    AwaitApproval,
    AwaitElicitation,
    CallModel,
    CancelModel,
    CancelTools,
    CheckOutput,
    ExecuteTools,
    Finish,
    SetTimer,
    SummariseContext,
)
from ..._loop.tools import Tool
from ..outlet import Outlet
from .checks import Checks
from .model import ModelCalls, driver_failure, one_at_a_time
from .shared import Shared
from .timers import Timer
from .tools import ToolCalls

__all__ = ["LocalPerformer", "driver_failure"]


class LocalPerformer(Shared, BasePerformer):
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
    it holds back). ``feed_all(inputs)`` folds inputs that belong together (a tool's
    result and its trip: ``Conversation.feed_all``). ``holds``: whether a run's caller
    may stream the model calls its command asks for (``hold_calls``).
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
        feed_all: Callable[[Sequence[Any]], None] | None = None,
        holds: bool = False,
    ) -> None:
        super().__init__(feed, tools, outlet, clock, feed_all)
        self._on_pause = on_pause
        self._model = ModelCalls(
            self, driver, collect, stop_collecting, feed_stream or one_at_a_time(feed)
        )
        self._holds = holds
        self._tools = ToolCalls(self, messages, barrier)
        self._checks = Checks(self)
        self._timer = Timer(feed, clock)

    @property
    def in_flight(self) -> bool:
        """Whether a model call or a tool call is running."""
        model = self._model
        return model.task is not None or bool(self._tools.calls)

    def perform(self, effect: Any) -> None:
        cls = type(effect)
        if cls is CallModel or cls is SummariseContext:
            self._model.call(effect)
        elif cls is ExecuteTools:
            self._tools.execute(effect)
        elif cls is CancelModel:
            self._model.cancel_call()
        elif cls is CancelTools:
            for call_id in effect.tool_call_ids:
                self._tools.cancel_call(call_id)
        elif cls is SetTimer:
            self._timer.set(effect.at_ms)
        elif cls is CheckOutput:
            self._checks.check_output(effect)
        elif cls is AnswerElicitation:
            self._tools.answer_elicitation(effect)
        elif cls in (AwaitApproval, AwaitElicitation, Finish):
            self._timer.cancel()
            if cls is Finish:
                self._checks.end()
            self._on_pause(effect)
        else:
            raise TypeError(f"not an effect request: {effect!r}")

    def hold_calls(self) -> None:
        """Let the running task (a run's caller about to feed its command, a tool's task
        about to feed its result) stream the model calls its feed asks for itself
        (``stream_held``), with no task per call, and run a lone tool call it asks for
        (``ToolCalls.run_held``)."""
        model = self._model
        if self._holds and model.caller is None:  # one task streams at a time
            model.caller = asyncio.current_task()

    async def stream_held(self) -> None:
        """Stream the calls held for this task (``hold_calls``); let go of it after."""
        if self._model.caller is asyncio.current_task():
            await self._model.drive()

    def streams_here(self) -> bool:
        caller = self._model.caller
        return caller is not None and caller is asyncio.current_task()

    def run_held(self) -> bool:
        return self._tools.run_held()

    def check_input(self, messages: tuple[Any, ...]) -> None:
        """Start the input guardrails on a run's prompt (a trip is fed when it happens)."""
        self._checks.check_input(messages)

    def cancel(self) -> None:
        """Cancel whatever is in flight (timer, checks, tool calls, the model call)."""
        self._timer.cancel()
        self._checks.end()
        self._tools.cancel()
        self._model.cancel()

    async def aclose(self) -> None:
        """``cancel``, then wait for the model task to end; idempotent."""
        self.cancel()
        await self._model.wait_ended()
