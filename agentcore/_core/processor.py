"""The shape every pure processor has: ``(state, event) -> (state, outputs)``.

A processor never mutates ``state`` or ``event``, never reads a clock, draws a random
number, logs or does I/O; equal inputs give equal outputs. Outputs are a tuple (the empty
tuple when there is nothing to say, which costs no allocation). Each processor comes with
a zero-argument factory for its initial state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar

__all__ = ["InitialState", "Processor"]

S = TypeVar("S")
E = TypeVar("E")
O = TypeVar("O")  # noqa: E741

Processor: TypeAlias = Callable[[S, E], tuple[S, tuple[O, ...]]]
"""``processor(state, event) -> (new_state, outputs)``; pure."""

InitialState: TypeAlias = Callable[[], S]
"""A zero-argument factory returning a fresh initial state."""

AnyProcessor: TypeAlias = Processor[Any, Any, Any]
