"""The presenter protocol: a sink for the machine's outputs.

The engine calls ``present(agent_id, output)`` for every output of every layer, in order.
It may return ``None`` or an awaitable. A presenter that raises or is slow is isolated by
the engine: the others still receive every output.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol, runtime_checkable

__all__ = ["Presenter"]


@runtime_checkable
class Presenter(Protocol):
    """Receives ``(agent_id, output)`` pairs; sync or async."""

    def present(self, agent_id: str, output: Any) -> Awaitable[None] | None: ...
