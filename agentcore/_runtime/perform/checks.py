"""Guardrails on a run's prompt and final answer (``CheckOutput``): a trip is fed as a
``guardrail_tripped``, a passed output check as ``output_passed``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from ..._core.errors import OutputParseError
from ..._loop.events import CheckOutput, OutputPassed
from ..guardrails import Verdict, judge, judged
from ..output_stream import build_output
from .shared import Shared

__all__ = ["Checks"]


class Checks:
    """The input and output guardrails of the current run (``shared.guards``)."""

    def __init__(self, shared: Shared) -> None:
        self._shared = shared
        self._check: asyncio.Task[None] | None = None

    def check_input(self, messages: tuple[Any, ...]) -> None:
        """Start the input guardrails on a run's prompt (a trip is fed when it happens)."""
        shared = self._shared
        shared.guards.start(messages, lambda verdict: shared.feed(shared.trip(verdict, "input")))

    def check_output(self, effect: CheckOutput) -> None:
        """Judge the final answer: inline when the input checks have settled and every
        output check answers at once (no task, no suspension), else in a task."""
        guards = self._shared.guards
        passed = guards.input_passed()
        if passed is False:
            return  # the input tripped: that ends the run
        if passed is None:
            self._check = asyncio.get_running_loop().create_task(self._output_after_input(effect))
            return
        verdict = judged(guards.output, self._judged_answer(effect))
        if isinstance(verdict, Verdict):
            self._output_judged(verdict)
        else:
            self._check = asyncio.get_running_loop().create_task(self._output_awaited(verdict))

    def end(self) -> None:
        """Cancel every check still running."""
        self._shared.guards.cancel()
        if self._check is not None:
            self._check.cancel()
            self._check = None

    async def _output_after_input(self, effect: CheckOutput) -> None:
        guards = self._shared.guards
        for task in (guards.blocking, guards.parallel):
            if task is not None and not await guards.passed(task):
                return  # the input tripped: that ends the run
        self._output_judged(await judge(guards.output, self._judged_answer(effect)))

    def _judged_answer(self, effect: CheckOutput) -> Any:
        """What output guardrails judge: the final reply, or on a structured-output run
        its answer, typed when the run's class builds it (else its JSON value)."""
        if effect.output is None:
            return effect.message
        builder = self._shared.build_output
        if builder is not None:
            try:
                return build_output(builder, effect.output)
            except OutputParseError:  # the run ends with it when its answer is built
                pass
        return effect.output

    async def _output_awaited(self, verdict: Awaitable[Verdict]) -> None:
        self._output_judged(await verdict)

    def _output_judged(self, verdict: Verdict) -> None:
        self._check = None
        shared = self._shared
        if verdict.tripped:
            shared.feed(shared.trip(verdict, "output"))
        else:  # stamped here: the shell would evolve an unstamped event
            shared.feed(OutputPassed(timestamp=shared.clock()))
