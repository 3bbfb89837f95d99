"""Telling an awaitable from a plain value on a hot path.

``inspect.isawaitable`` ends in an ``isinstance`` against the ``Awaitable`` ABC: about
0.17 µs for each plain value a hook or guardrail returns (``None``, ``Continue``, a
``ToolResult``), where ``awaitable`` takes about 0.06 µs.
"""

from __future__ import annotations

import inspect
from types import CoroutineType, GeneratorType

__all__ = ["awaitable"]


def awaitable(value: object) -> bool:
    """``inspect.isawaitable(value)``, asked only of a coroutine (at once), a generator
    (a ``types.coroutine`` one is awaitable) or a value with ``__await__`` (a future, a
    task). Unlike ``inspect.isawaitable`` it does not see classes only registered with
    ``collections.abc.Awaitable``."""
    if type(value) is CoroutineType:
        return True
    if type(value) is GeneratorType or hasattr(value, "__await__"):
        return inspect.isawaitable(value)
    return False
