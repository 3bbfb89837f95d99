"""The high-level agent API: ``Agent``, its results and state snapshots. See docs/agent.md."""

from ._runtime.agent import Agent as Agent
from ._runtime.agent import AgentResult as AgentResult
from ._runtime.agent import AgentSnapshot as AgentSnapshot
from ._runtime.loop_runtime import LoopRuntime as LoopRuntime
from ._runtime.loop_runtime import replay_journal as replay_journal

__all__ = ["Agent", "AgentResult", "AgentSnapshot", "LoopRuntime", "replay_journal"]
