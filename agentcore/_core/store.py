"""Per-agent state storage for the Mealy machine.

A store maps agent ids to processor states. States are immutable values, so a store
never copies them. ``MemoryStore`` is the default; a database-backed store implements
the same four methods.
"""

from __future__ import annotations

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
    """A dict in memory; ``get`` returns ``None`` for an unknown agent."""

    __slots__ = ("_states",)

    def __init__(self) -> None:
        self._states: dict[str, Any] = {}

    def get(self, agent_id: str) -> Any | None:
        return self._states.get(agent_id)

    def set(self, agent_id: str, state: Any) -> None:
        self._states[agent_id] = state

    def delete(self, agent_id: str) -> None:
        self._states.pop(agent_id, None)

    def has(self, agent_id: str) -> bool:
        return agent_id in self._states

    def __len__(self) -> int:
        return len(self._states)
