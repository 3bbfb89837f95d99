"""What every agent of one tree shares: its limits, counters and budget.

A ``Tree`` reads its registry and its root through ``Catalogue`` and ``Member``, the
little it needs of ``AgentRegistry`` and ``AgentNode``: those modules build on this one,
so it never imports them (no import cycle, tests/test_layout.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

import attrs

from .._core.errors import ConfigurationError
from .._core.events import AssistantMessage
from .._edges.driver import Driver
from .._journal.journal import Journal
from .._journal.snapshots import SnapshotStore
from .._loop.lineage import TreeUsage
from .._loop.tools import Tool
from .._runtime.agent import Agent
from .definition import AgentDefinition

__all__ = ["Catalogue", "Member", "Refused", "Tree", "TreeLimits"]


def _at_least_one(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None and attribute.name in ("max_tokens", "max_cost"):
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigurationError(f"TreeLimits.{attribute.name} must be > 0, got {value!r}")


@attrs.frozen(slots=True)
class TreeLimits:
    """Limits of a whole tree of agents (a child's own run limits are its definition's).

    ``max_depth``: how deep children may nest (1: the root's children only);
    ``max_agents``: children created in the tree by this process (continuing a task is
    not creating one); ``max_running``: children running at once (a spawn beyond it is
    refused, never queued: a queue could wait on its own ancestors); ``max_tokens`` and
    ``max_cost`` (USD): the whole tree's use, beyond which the root is aborted;
    ``max_handoffs``: handoffs in a row without a user message between them (one more is
    refused, so agents handing the conversation back and forth stop; docs/handoffs.md).
    """

    max_depth: int = attrs.field(default=3, validator=_at_least_one)
    max_agents: int = attrs.field(default=50, validator=_at_least_one)
    max_running: int = attrs.field(default=16, validator=_at_least_one)
    max_tokens: int | None = attrs.field(default=None, validator=_at_least_one)
    max_cost: float | None = attrs.field(default=None, validator=_at_least_one)
    max_handoffs: int = attrs.field(default=8, validator=_at_least_one)


class Refused(Exception):
    """A child that cannot start; the message says why (the parent's model reads it)."""


class Catalogue(Protocol):
    """What a tree reads of its registry (``AgentRegistry`` is one)."""

    @property
    def limits(self) -> TreeLimits: ...

    @property
    def driver_factory(self) -> Callable[[str], Driver] | None: ...

    def get(self, agent_type: str) -> AgentDefinition: ...

    def tools_for(self, definition: AgentDefinition) -> list[Tool]: ...


class Member(Protocol):
    """What a tree reads of its nodes (``AgentNode`` is one)."""

    @property
    def agent(self) -> Agent: ...

    def cost_of(self, message: AssistantMessage) -> float | None: ...


class Tree:
    """What every node of one tree shares."""

    def __init__(
        self,
        registry: Catalogue,
        journal: Journal | None,
        snapshots: SnapshotStore | None,
        clock: Callable[[], int],
        id_factory: Callable[[], str],
    ) -> None:
        self.registry = registry
        self.limits: TreeLimits = registry.limits
        self.journal = journal
        self.snapshots = snapshots
        self.clock = clock
        self.id_factory = id_factory
        self.created = 0
        self.running = 0
        self.used = TreeUsage()
        self.stopped: str | None = None
        self.root: Member | None = None
        self.closing: set[asyncio.Task[None]] = set()

    def count(self, message: AssistantMessage, node: Member) -> None:
        """Add a reply's use to the tree's; past the tree's budget, stop the tree."""
        limits = self.limits
        if self.stopped is not None or (limits.max_tokens is None and limits.max_cost is None):
            return
        self.used += TreeUsage(message.usage, node.cost_of(message))
        over = None
        if limits.max_tokens is not None and self.used.usage.total_tokens > limits.max_tokens:
            over = f"the tree of agents used {self.used.usage.total_tokens} tokens "
            over += f"(max_tokens={limits.max_tokens})"
        cost = self.used.cost
        if limits.max_cost is not None and cost is not None and cost > limits.max_cost:
            over = f"the tree of agents spent ${cost:.6f} (max_cost=${limits.max_cost})"
        if over is not None:
            self.stopped = over
            root = self.root
            if root is not None:  # never inside this delivery: on the next loop iteration
                asyncio.get_running_loop().call_soon(root.agent.abort, over)
