"""Shell-side observation of a machine's steps: ``Step``, observers, and ``with_logging``.

Observers never run inside a pure processor: the machine calls them after a step is
committed. ``with_logging(processor, logger)`` marks a processor so that the machine
calls ``logger(step)`` after each of its steps; the processor itself is unchanged.
This module sits below both the combinators and the machine, so neither imports the
other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

from .processor import AnyProcessor

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = ["Logged", "Step", "StepObserver", "call_hooks", "logged_parts", "with_logging"]


@frozen
class Step:
    """One committed step: the agent, the input event and every output (re-fed ones too)."""

    agent_id: str
    event: Any
    outputs: tuple[Any, ...]


StepObserver: TypeAlias = Callable[[Step], object]
"""Shell-side hook called with each committed ``Step``."""


def call_hooks(
    hooks: Iterable[Callable[[Any], object]],
    payload: Any,
    on_error: Callable[[Exception, Any], object] | None,
    what: str,
) -> None:
    """Call every hook with ``payload``; one failing never stops the rest.

    Failures go to ``on_error(exc, payload)`` when given; otherwise, once all hooks ran,
    they are raised together as ``ExceptionGroup(f"{what} failed", ...)``.
    """
    failures: list[Exception] = []
    for hook in hooks:
        try:
            hook(payload)
        except Exception as exc:
            if on_error is None:
                failures.append(exc)
            else:
                on_error(exc, payload)
    if failures:
        raise ExceptionGroup(f"{what} failed", failures)


def _name(obj: object) -> str:
    return getattr(obj, "__qualname__", None) or repr(obj)


class Logged:
    """A processor marked by ``with_logging``: called, it just runs ``processor``. A plain
    slotted class, as the combinators are (identity equality, its own repr)."""

    __slots__ = ("loggers", "processor")

    processor: AnyProcessor
    loggers: tuple[StepObserver, ...]

    def __init__(self, processor: AnyProcessor, loggers: tuple[StepObserver, ...]) -> None:
        self.processor = processor
        self.loggers = loggers

    def __call__(self, state: Any, event: Any) -> tuple[Any, tuple[Any, ...]]:
        return self.processor(state, event)

    def __repr__(self) -> str:
        return f"with_logging({_name(self.processor)}, {', '.join(map(_name, self.loggers))})"


def with_logging(processor: AnyProcessor, logger: StepObserver) -> AnyProcessor:
    """``processor`` unchanged, plus a ``logger(step)`` the machine calls after each step.

    ``step`` is a ``agentcore.machine.Step`` (agent id, event, outputs), passed once the
    new state is stored. Logging is shell-side by construction: the pure processor never
    sees the logger. It must be the outermost processor handed to a machine (a
    combinator refuses it as a child). Nested ``with_logging`` flatten, inner logger first.
    """
    if not callable(logger):
        raise TypeError(f"with_logging logger must be callable, got {logger!r}")
    if isinstance(processor, Logged):
        return Logged(processor.processor, (*processor.loggers, logger))
    if not callable(processor):
        raise TypeError(f"with_logging processor must be callable, got {processor!r}")
    return Logged(processor, (logger,))


def logged_parts(processor: AnyProcessor) -> tuple[AnyProcessor, tuple[StepObserver, ...]]:
    """Split a ``with_logging`` processor into the pure processor and its loggers."""
    if isinstance(processor, Logged):
        return processor.processor, processor.loggers
    return processor, ()
