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
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from .awaitables import awaitable

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .._core.records import frozen

__all__ = ["Guardrail", "Guards", "Tripwire", "Verdict", "guardrail", "guardrails_of", "judge"]


@frozen
class Tripwire:
    """What a guardrail returns to stop the run: why (the run's error message says so)."""

    reason: str
    info: Any = None


@frozen
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


@frozen
class Verdict:
    """The first guardrail that tripped (``None``: every one passed) and why."""

    guardrail: str | None = None
    reason: str = ""
    error: Exception | None = None

    @property
    def tripped(self) -> bool:
        return self.guardrail is not None


_PASSED = Verdict()
"""Every guardrail passed (one shared value: a verdict is immutable)."""


async def judge(guards: Sequence[Guardrail], *args: Any) -> Verdict:
    """Run ``guards`` on ``args`` concurrently; the first trip (in list order) wins.

    Plain functions are called in turn at once; only coroutines are gathered."""
    verdict = judged(guards, *args)
    return verdict if isinstance(verdict, Verdict) else await verdict


def judged(guards: Sequence[Guardrail], *args: Any) -> Verdict | Coroutine[Any, Any, Verdict]:
    """``judge`` without a suspension when no check returns an awaitable: the verdict at
    once, else a coroutine that awaits the pending checks (so a caller on a hot path
    needs no task when every check is a plain function)."""
    verdicts, pending = _called(guards, args)
    return _settled(verdicts, pending) if pending else _first(verdicts)


_Pending = list[tuple[int, Guardrail, Any]]


def _called(guards: Sequence[Guardrail], args: tuple[Any, ...]) -> tuple[list[Verdict], _Pending]:
    """Call every check: the verdicts of those that answered, and the awaitables of the
    others (with their index)."""
    verdicts: list[Verdict] = []
    pending: _Pending = []
    for guard in guards:
        try:
            result = guard.check(*args)
        except Exception as exc:
            verdicts.append(_raised(guard, exc))
            continue
        if awaitable(result):
            pending.append((len(verdicts), guard, result))
            verdicts.append(_PASSED)
        else:
            verdicts.append(_verdict(guard, result))
    return verdicts, pending


async def _settled(verdicts: list[Verdict], pending: _Pending) -> Verdict:
    if len(pending) == 1:  # no gather (and its task) for a lone check
        ((index, guard, result),) = pending
        verdicts[index] = await _awaited(guard, result)
        return _first(verdicts)
    done = await asyncio.gather(*(_awaited(g, r) for _, g, r in pending))
    for (index, _, _), verdict in zip(pending, done, strict=True):
        verdicts[index] = verdict
    return _first(verdicts)


def _first(verdicts: list[Verdict]) -> Verdict:
    for verdict in verdicts:
        if verdict.guardrail is not None:
            return verdict
    return _PASSED


async def _awaited(guard: Guardrail, result: Any) -> Verdict:
    try:
        return _verdict(guard, await result)
    except Exception as exc:
        return _raised(guard, exc)


def _raised(guard: Guardrail, exc: Exception) -> Verdict:
    """Fail closed: a broken check never lets a run through."""
    return Verdict(guard.name, f"the guardrail raised {type(exc).__name__}: {exc}", exc)


def _verdict(guard: Guardrail, result: Any) -> Verdict:
    if result is None:
        return _PASSED
    if isinstance(result, Tripwire):
        return Verdict(guard.name, result.reason)
    error = TypeError(f"guardrail {guard.name!r} returned {result!r}; return None or Tripwire")
    return Verdict(guard.name, str(error), error)


class Guards:
    """An agent's guardrails and the input checks of the current run (their tasks)."""

    __slots__ = ("_blocking", "_parallel", "blocking", "input", "output", "parallel", "tool")

    def __init__(
        self,
        input: Sequence[Guardrail] = (),
        output: Sequence[Guardrail] = (),
        tool: Sequence[Guardrail] = (),
    ) -> None:
        self.input, self.output, self.tool = tuple(input), tuple(output), tuple(tool)
        self._blocking = tuple(g for g in self.input if g.blocking)
        self._parallel = tuple(g for g in self.input if not g.blocking)
        self.blocking: asyncio.Future[Verdict] | None = None
        self.parallel: asyncio.Future[Verdict] | None = None

    def start(self, messages: tuple[Any, ...], on_trip: Callable[[Verdict], None]) -> None:
        """Check ``messages`` (a run's prompt, already fed): blocking guardrails and the
        others each as one future; ``on_trip(verdict)`` is called once if one trips
        (at once when every check of a group is a plain function)."""
        self.cancel()
        if self._blocking:
            self.blocking = _started(self._blocking, (messages,), on_trip)
        if self._parallel:
            self.parallel = _started(self._parallel, (messages,), on_trip)

    def input_passed(self) -> bool | None:
        """Whether the run's input checks passed: ``None`` while one is still running,
        ``False`` when one tripped (its trip is fed) or was cancelled."""
        checks = (self.blocking, self.parallel)
        for check in checks:
            if check is not None and not check.done():
                return None
        for check in checks:
            if check is not None and (check.cancelled() or check.result().tripped):
                return False
        return True

    async def passed(self, check: asyncio.Future[Verdict]) -> bool:
        """Wait for an input check; whether it passed."""
        verdict = check.result() if check.done() else await asyncio.shield(check)
        return not verdict.tripped

    def cancel(self) -> None:
        """Forget the current run's input checks (the run is over)."""
        for task in (self.blocking, self.parallel):
            if task is not None:
                task.cancel()
        self.blocking = self.parallel = None


def _started(
    guards: Sequence[Guardrail], args: tuple[Any, ...], on_trip: Callable[[Verdict], None]
) -> asyncio.Future[Verdict]:
    """One group of input checks as one future: done at once when every check answered
    (``on_trip`` called now if one tripped), else a task (``on_trip`` called when done)."""
    verdicts, pending = _called(guards, args)
    loop = asyncio.get_running_loop()
    if pending:
        task = loop.create_task(_settled(verdicts, pending))
        task.add_done_callback(
            lambda t: on_trip(t.result()) if not t.cancelled() and t.result().tripped else None
        )
        return task
    verdict = _first(verdicts)
    done: asyncio.Future[Verdict] = loop.create_future()
    done.set_result(verdict)
    if verdict.tripped:
        on_trip(verdict)
    return done
