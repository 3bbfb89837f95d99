"""The one runtime: ``Agent`` (and ``create_agent``), its results and snapshots; resume.

See docs/agent.md.
"""

from ._loop.conversation import AgentSnapshot as AgentSnapshot
from ._runtime.agent import Agent as Agent
from ._runtime.agent import AgentResult as AgentResult
from ._runtime.agent import create_agent as create_agent
from ._runtime.output_stream import OutputStream as OutputStream
from ._runtime.run_stream import RunStream as RunStream

__all__ = [
    "Agent",
    "AgentResult",
    "AgentSnapshot",
    "OutputStream",
    "RunStream",
    "create_agent",
]
