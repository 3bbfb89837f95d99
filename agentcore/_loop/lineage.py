"""Sub-agents in one stream: the lineage of a child's run, and the event that tags its outputs.

A child agent (docs/subagents.md) is a full agent with its own journal lane. Each time it
is spawned (or resumed by its task id), the prompt that starts its run begins with a
``Lineage``: a message of its own kind that stays in the child's history and journal and
is never sent to a model (``default_convert_to_llm`` keeps provider messages only). It
names the child (agent id, run id, task id, agent type) and where it sits in the tree
(its parent's agent id and run id, and the runs above it).

Every output of the child reaches its parent's presenters and subscribers as a
``SubagentEvent(lineage, event)``. A grandchild's events pass through its parent
unchanged: their lineage already names every ancestor, so one flat stream holds the
whole tree and a UI nests it by ``parent_run_id`` (or by the path ``ancestor_run_ids``).

Run ids: a spawned run's id is ``run_id`` of its lineage, ``"<agent_id>#<n>"`` for the
n-th spawn of that child; a run that nobody spawned (the root's) is named after its
agent and the timestamp of its ``agent_start``: ``"<agent_id>@<ms>"`` (``root_run_id``).
Both are read back from the journal, so a replay or a resumed process names runs exactly
as the live one did.

Usage rolls up through results: a spawn's tool result carries the usage and cost of the
children it ran (theirs and their own children's) in ``details["subagents"]``, so the
parent's turn (``turn_end.tool_results``) holds them and ``tree_usage`` sums a whole run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from .._core.checks import checked, shown
from .._core.content import Usage
from .._core.errors import InvalidEventError
from .._core.events import AssistantMessage, ToolResultMessage, event_type
from .._core.pricing import ModelPrice, cost_of
from .events import to_message

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see _core/records.py)
    from .._core.records import frozen

__all__ = [
    "Lineage",
    "SubagentEvent",
    "TreeUsage",
    "child_run_id",
    "root_run_id",
    "subagent_details",
    "tree_usage",
]


def _ts() -> Any:
    return attrs.field(default=0, kw_only=True)


def _strings(value: Any) -> Any:
    """A list of run ids read from the wire form becomes the tuple the field holds."""
    return tuple(value) if type(value) is list else value


@event_type("subagent_lineage", "subagent")
@frozen
@checked
class Lineage:
    """Who a spawned run is and where it sits in the tree of agents.

    ``agent_id`` is the child's journal lane, ``run_id`` this spawn's run, ``task_id``
    what the parent passes to resume the child, ``agent_type`` its definition's id and
    ``name`` its display name; ``parent_agent_id`` and ``parent_run_id`` say who spawned
    it, ``ancestor_run_ids`` the runs above it from the root's down to the parent's, and
    ``tool_call_id`` the parent's tool call that spawned it.
    """

    type: ClassVar[str] = "subagent_lineage"
    agent_id: str
    run_id: str
    parent_agent_id: str
    parent_run_id: str
    ancestor_run_ids: tuple[str, ...] = attrs.field(converter=_strings)
    task_id: str
    agent_type: str
    name: str = ""
    tool_call_id: str = ""
    timestamp: int = _ts()

    @property
    def depth(self) -> int:
        """1 for a child of the root, 2 for a grandchild..."""
        return len(self.ancestor_run_ids)


@event_type("subagent_event", "subagent")
@frozen
class SubagentEvent:
    """An output of a sub-agent, as its ancestors' presenters and subscribers get it.

    ``event`` is the child's output unchanged (any output: a user's processor may emit
    objects that are no registered event, which then have no wire form); ``lineage``
    says which run of which child produced it (the same object for every event of that
    run). ``timestamp`` is the event's own.
    """

    type: ClassVar[str] = "subagent_event"
    lineage: Lineage
    event: Any
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        """Built once per event of every child: no converters; the wire form's dicts are
        turned into events here, only when they come (``from_dict``)."""
        if type(self.event) is dict:
            object.__setattr__(self, "event", to_message(self.event))
        if type(self.lineage) is not Lineage:
            lineage: Any = self.lineage
            if type(lineage) is dict:
                lineage = to_message(lineage)
                object.__setattr__(self, "lineage", lineage)
            if type(lineage) is not Lineage:
                raise InvalidEventError(
                    f"SubagentEvent (subagent_event): field 'lineage' must be a Lineage, "
                    f"got {shown(lineage)}"
                )
        if type(self.timestamp) is not int:
            raise InvalidEventError(
                f"SubagentEvent (subagent_event): field 'timestamp' must be an int, "
                f"got {shown(self.timestamp)}"
            )

    @property
    def agent_id(self) -> str:
        return self.lineage.agent_id

    @property
    def run_id(self) -> str:
        return self.lineage.run_id

    @property
    def parent_run_id(self) -> str:
        return self.lineage.parent_run_id


def root_run_id(agent_id: str, started_at: int) -> str:
    """The id of a run nobody spawned: its agent and its ``agent_start`` timestamp (ms)."""
    return f"{agent_id}@{started_at}"


def child_run_id(agent_id: str, spawn: int) -> str:
    """The id of the ``spawn``-th run (1, 2...) of the spawned agent ``agent_id``."""
    return f"{agent_id}#{spawn}"


@frozen
class TreeUsage:
    """Tokens and cost (USD) of a run and of every sub-agent it ran; ``cost`` is ``None``
    when a part of it has no known price."""

    usage: Usage = attrs.field(factory=Usage)
    cost: float | None = 0.0

    def __add__(self, other: TreeUsage) -> TreeUsage:
        cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        return TreeUsage(self.usage + other.usage, cost)

    def to_wire(self) -> dict[str, Any]:
        return {"usage": attrs.asdict(self.usage), "cost": self.cost}

    @classmethod
    def from_wire(cls, wire: Mapping[str, Any]) -> TreeUsage:
        cost = wire.get("cost")
        return cls(Usage(**wire.get("usage", {})), None if cost is None else float(cost))


def subagent_details(details: Any) -> Mapping[str, Any] | None:
    """The ``details["subagents"]`` of a spawn's tool result, ``None`` for any other."""
    if isinstance(details, Mapping):
        found = details.get("subagents")
        if isinstance(found, Mapping):
            return found
    return None


def tree_usage(messages: Iterable[Any], price: ModelPrice | None) -> TreeUsage:
    """The usage of ``messages``' replies (priced at ``price``) plus what the spawn
    results among them report for their sub-agents: a run's share of the whole tree."""
    total = TreeUsage()
    for m in messages:
        if isinstance(m, AssistantMessage):
            usage = m.usage
            if price is not None:
                total += TreeUsage(usage, cost_of(usage, price))
            else:
                total += TreeUsage(usage, None if usage.total_tokens else 0.0)
        elif isinstance(m, ToolResultMessage):
            found = subagent_details(m.details)
            if found is not None:
                total += TreeUsage.from_wire(found)
    return total
