"""The high-level agent API: ``Agent``, its results and state snapshots. See docs/agent.md."""

from ._agent import Agent as Agent
from ._agent import AgentResult as AgentResult
from ._agent import AgentSnapshot as AgentSnapshot
from ._agent_runtime import LoopRuntime as LoopRuntime
from ._agent_runtime import replay_journal as replay_journal

__all__ = ["Agent", "AgentResult", "AgentSnapshot", "LoopRuntime", "replay_journal"]
