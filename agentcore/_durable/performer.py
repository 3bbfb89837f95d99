"""``DurablePerformer``: the ``Performer`` protocol for a durable agent's workflow.

Between two DBOS steps nothing runs, so performing an effect is deciding what the
workflow does next: ``perform`` queues a model call, a summary, an output check or a
batch of tool calls (``pending``, each with the sequence number of the input that asked
for it: the name of its step), keeps a timer's time (``timer``: the workflow sleeps
durably until then), hands an elicitation's answer to the tool call waiting for it in
its step (``asked``: the workflow registers the call's question there), and performs a
cancellation at once: a model call that never started ends with an ``interrupt`` fed
back through the workflow's fold; cancelled tool calls are dropped from what is
pending (the loop answered them itself, and drops a result a step still running
produces later). The workflow (``conversation``) performs what is pending as steps and
feeds what they produced.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from .._core.errors import ConfigurationError
from .._core.events import Interrupt
from .._edges.performer import BasePerformer
from .._loop.events import (
    AnswerElicitation,
    AwaitApproval,
    AwaitElicitation,
    CallModel,
    CancelModel,
    CancelTools,
    CheckOutput,
    ElicitationAnswer,
    ExecuteTools,
    Finish,
    SetTimer,
    SummariseContext,
)

__all__ = ["DurablePerformer"]

_STEPS = frozenset({CallModel, SummariseContext, ExecuteTools, CheckOutput})
"""Effects performed as steps, in the order the fold asked for them."""


class _Lane(Protocol):
    seq: int
    now: int


class DurablePerformer(BasePerformer):
    """The workflow's effects (module docstring); ``lane`` gives the sequence number and
    time of the input being folded, ``feed`` folds answers back."""

    def __init__(self, lane: _Lane, feed: Callable[[Iterable[Any]], None]) -> None:
        self.lane = lane
        self.feed = feed
        self.pending: deque[tuple[int, Any]] = deque()
        self.timer: int | None = None
        self.asked: dict[str, asyncio.Future[ElicitationAnswer]] = {}
        """The questions tool steps wait on, by elicitation id."""

    @property
    def in_flight(self) -> bool:
        return bool(self.pending)

    def perform(self, effect: Any) -> None:
        cls = type(effect)
        if cls in _STEPS:
            self.pending.append((self.lane.seq, effect))
        elif cls is CancelModel:  # nothing streams between two steps: it ends now
            self.pending = deque(p for p in self.pending if not isinstance(p[1], CallModel))
            self.feed([Interrupt("abort", timestamp=self.lane.now)])
        elif cls is CancelTools:
            self._cancel_tools(set(effect.tool_call_ids))
        elif cls is SetTimer:
            self.timer = effect.at_ms
        elif cls is Finish or cls is AwaitApproval or cls is AwaitElicitation:
            self.timer = None  # a paused run's deadline stops; resuming sets it again
        elif cls is AnswerElicitation:
            waiting = self.asked.pop(effect.answer.elicitation_id, None)
            if waiting is not None and not waiting.done():  # none: a resumed run's cancel
                waiting.set_result(effect.answer)
        else:
            raise ConfigurationError(f"a durable agent cannot perform {cls.__name__}")

    def cancel(self) -> None:
        """Forget what was queued and the timer."""
        self.pending.clear()
        self.timer = None

    def _cancel_tools(self, ids: set[str]) -> None:
        kept: deque[tuple[int, Any]] = deque()
        for seq, effect in self.pending:
            if type(effect) is ExecuteTools:
                calls = tuple(c for c in effect.tool_calls if c.tool_call_id not in ids)
                if not calls:
                    continue
                effect = ExecuteTools(calls, effect.parallel)
            kept.append((seq, effect))
        self.pending = kept
