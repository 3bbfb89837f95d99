"""Replaying a tree of agents: what the root's presenters got, from the shared journal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .._journal.replay import JournalSource, ReplayMachine, entries_of
from .._loop.conversation import create_conversation_machine
from .._loop.events import EFFECTS, AgentPrompt
from .._loop.lineage import Lineage, SubagentEvent

__all__ = ["replay_tree"]


def _default_factory() -> ReplayMachine:
    machine: ReplayMachine = create_conversation_machine()
    return machine


def replay_tree(
    source: JournalSource,
    agent_id: str | None = None,
    machine_factory: Callable[[], ReplayMachine] = _default_factory,
) -> Iterator[tuple[str, Any]]:
    """Fold every lane of a tree's journal in journal order; yield ``(root id, output)``
    for what the root ``agent_id`` (default: the journal's first agent) delivered, its
    sub-agents' outputs as the ``SubagentEvent`` its presenters got.

    A lane joins the tree with the first prompt whose ``Lineage`` names a parent already
    in it; its outputs before that (none, for lanes the runtime made) are not part of the
    root's stream. Lanes of other agents in the same journal are folded and left out.
    Each lane's turns are priced by its journaled configuration, as they were live.
    """
    machine = machine_factory()
    process = machine.process
    root = agent_id
    lineages: dict[str, Lineage] = {}
    for lane, _seq, event in entries_of(source):
        if root is None:
            root = lane
        if type(event) is AgentPrompt and event.messages and type(event.messages[0]) is Lineage:
            lineage = event.messages[0]
            if lineage.parent_agent_id == root or lineage.parent_agent_id in lineages:
                lineages[lane] = lineage
        outputs = process(lane, event)
        if lane == root:
            for output in outputs:
                if type(output) not in EFFECTS:
                    yield root, output
            continue
        tag = lineages.get(lane)
        if tag is not None:
            for output in outputs:
                if type(output) not in EFFECTS:
                    yield root, SubagentEvent(tag, output, timestamp=output.timestamp)
