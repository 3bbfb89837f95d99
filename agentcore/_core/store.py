"""Per-agent state storage for the Mealy machine.

A store maps agent ids to processor states. States are immutable values, so a store
never copies them. ``MemoryStore`` is the default; a database-backed store implements
the same four methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

__all__ = ["MemoryStore", "Store"]


@runtime_checkable
class Store(Protocol):
    """Get, set, delete and test per-agent state."""

    def get(self, agent_id: str) -> Any | None: ...

    def set(self, agent_id: str, state: Any) -> None: ...

    def delete(self, agent_id: str) -> None: ...

    def has(self, agent_id: str) -> bool: ...


class MemoryStore:
    """A dict in memory; ``get`` returns ``None`` for an unknown agent.

    A ``MealyMachine`` that made its own store may hold back a run of deltas that only
    append to an agent's state (``MealyMachine(runs=...)``); it then sets ``_settle``,
    which every method calls first, so that the store always shows every event folded.
    """

    __slots__ = ("_settle", "_states")

    def __init__(self) -> None:
        self._states: dict[str, Any] = {}
        self._settle: Callable[[], None] | None = None

    def get(self, agent_id: str) -> Any | None:
        if self._settle is not None:
            self._settle()
        return self._states.get(agent_id)

    def set(self, agent_id: str, state: Any) -> None:
        if self._settle is not None:
            self._settle()
        self._states[agent_id] = state

    def delete(self, agent_id: str) -> None:
        if self._settle is not None:
            self._settle()
        self._states.pop(agent_id, None)

    def has(self, agent_id: str) -> bool:
        if self._settle is not None:
            self._settle()
        return agent_id in self._states

    def __len__(self) -> int:
        return len(self._states)
