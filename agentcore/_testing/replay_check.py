"""``assert_replays``: an agent's journal, folded again, gives what the agent delivered."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._journal.conversation import Conversation
from .._loop.events import EFFECTS

if TYPE_CHECKING:
    from .._runtime.agent import Agent

__all__ = ["assert_replays"]


def assert_replays(agent: Agent, delivered: Sequence[Any]) -> None:
    """Fold ``agent``'s journal through a fresh state of its processor and check that the
    outputs are exactly ``delivered`` (every output delivered since the agent was created,
    in order: what a presenter or an ``agent.subscribe`` handler recorded) and the final
    state is the agent's. Raises ``AssertionError`` saying where they first differ."""
    journal = agent.journal
    if journal is None:
        raise AssertionError(f"agent {agent.agent_id} has no journal to replay")
    conversation = Conversation(agent.processor, agent.initial_state(), agent_id=agent.agent_id)
    outputs: list[Any] = []
    for entry in journal.entries(agent.agent_id):
        out = conversation.replayed(entry.event)
        outputs.extend(o for o in out if type(o) not in EFFECTS)
    for i, (replayed, live) in enumerate(zip(outputs, delivered, strict=False)):
        if replayed != live:
            raise AssertionError(f"output #{i} differs: replayed {replayed!r}, delivered {live!r}")
    if len(outputs) != len(delivered):
        raise AssertionError(
            f"replay gives {len(outputs)} outputs, {len(delivered)} were delivered"
        )
    if conversation.state != agent.conversation_state:
        raise AssertionError("the replayed conversation state differs from the agent's")
