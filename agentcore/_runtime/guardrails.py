"""Guardrails: checks that end a run with ``GUARDRAIL_TRIPPED`` when they trip.

A guardrail is a function (sync or async) that returns ``None`` to pass or a
``Tripwire(reason)`` to stop the run:

- input guardrails get the run's prompt messages. They run *alongside* the first model
  call (no latency added); the run's tools wait for them (no side effect happens before
  they pass) and so does its completion. A trip cancels the model call. With
  ``guardrail(check, blocking=True)`` a check runs before the model is called instead.
- output guardrails get the final ``AssistantMessage``: the run completes only once
  every one passed (the loop waits in phase ``checking``).
- tool guardrails get ``(call, None)`` before a tool runs (after the extensions' hooks:
  the arguments it would run with) and ``(call, result)`` before its result enters the
  conversation. A trip answers the call with an error result and ends the run.

The verdict is fed to the conversation as an input (``guardrail_tripped``,
``output_passed``), so it is journaled and a replay does not run guardrails. A guardrail
that raises trips (fail closed) with the exception as its reason, and is reported.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import attrs

__all__ = ["Guardrail", "Guards", "Tripwire", "Verdict", "guardrail", "guardrails_of", "judge"]


@attrs.frozen(slots=True)
class Tripwire:
    """What a guardrail returns to stop the run: why (the run's error message says so)."""

    reason: str
    info: Any = None


@attrs.frozen(slots=True)
class Guardrail:
    """A named check; ``blocking`` input guardrails finish before the model is called."""

    check: Callable[..., Any]
    name: str
    blocking: bool = False


def guardrail(
    check: Callable[..., Any], *, name: str | None = None, blocking: bool = False
) -> Guardrail:
    """Wrap ``check`` with a name (default: its ``__name__``) and its mode."""
    if not callable(check):
        raise TypeError(f"a guardrail must be callable, got {check!r}")
    return Guardrail(check, name or str(getattr(check, "__name__", repr(check))), blocking)


def guardrails_of(what: str, values: Sequence[Any]) -> tuple[Guardrail, ...]:
    """``values`` as guardrails (plain functions are wrapped); ``TypeError`` names the bad one."""
    out = []
    for value in values:
        if isinstance(value, Guardrail):
            out.append(value)
        elif callable(value):
            out.append(guardrail(value))
        else:
            raise TypeError(f"{what} must be callables or Guardrail, got {value!r}")
    return tuple(out)


@attrs.frozen(slots=True)
class Verdict:
    """The first guardrail that tripped (``None``: every one passed) and why."""

    guardrail: str | None = None
    reason: str = ""
    error: Exception | None = None

    @property
    def tripped(self) -> bool:
        return self.guardrail is not None


async def judge(guards: Sequence[Guardrail], *args: Any) -> Verdict:
    """Run ``guards`` on ``args`` concurrently; the first trip (in list order) wins."""
    results = await asyncio.gather(*(_one(g, args) for g in guards))
    return next((v for v in results if v.tripped), Verdict())


async def _one(guard: Guardrail, args: tuple[Any, ...]) -> Verdict:
    try:
        result = guard.check(*args)
        if inspect.isawaitable(result):
            result = await result
    except Exception as exc:  # fail closed: a broken check never lets a run through
        return Verdict(guard.name, f"the guardrail raised {type(exc).__name__}: {exc}", exc)
    if result is None:
        return Verdict()
    if isinstance(result, Tripwire):
        return Verdict(guard.name, result.reason)
    error = TypeError(f"guardrail {guard.name!r} returned {result!r}; return None or Tripwire")
    return Verdict(guard.name, str(error), error)


class Guards:
    """An agent's guardrails and the input checks of the current run (their tasks)."""

    __slots__ = ("blocking", "input", "output", "parallel", "tool")

    def __init__(
        self,
        input: Sequence[Guardrail] = (),
        output: Sequence[Guardrail] = (),
        tool: Sequence[Guardrail] = (),
    ) -> None:
        self.input, self.output, self.tool = tuple(input), tuple(output), tuple(tool)
        self.blocking: asyncio.Task[Verdict] | None = None
        self.parallel: asyncio.Task[Verdict] | None = None

    def start(self, messages: tuple[Any, ...], on_trip: Callable[[Verdict], None]) -> None:
        """Start the input guardrails on ``messages``: blocking ones and the others in a
        task each; ``on_trip(verdict)`` is called once if one trips."""
        self.cancel()
        if not self.input:
            return
        loop = asyncio.get_running_loop()

        def started(guards: list[Guardrail]) -> asyncio.Task[Verdict] | None:
            if not guards:
                return None
            task = loop.create_task(judge(guards, messages))
            task.add_done_callback(
                lambda t: on_trip(t.result()) if not t.cancelled() and t.result().tripped else None
            )
            return task

        self.blocking = started([g for g in self.input if g.blocking])
        self.parallel = started([g for g in self.input if not g.blocking])

    async def passed(self, task: asyncio.Task[Verdict]) -> bool:
        """Wait for an input check; whether it passed."""
        verdict = await asyncio.shield(task)
        return not verdict.tripped

    def cancel(self) -> None:
        """Forget the current run's input checks (the run is over)."""
        for task in (self.blocking, self.parallel):
            if task is not None:
                task.cancel()
        self.blocking = self.parallel = None
