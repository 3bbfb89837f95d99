"""Agents over the A2A protocol (Agent2Agent 1.0): ``a2a_app`` serves agents, ``RemoteAgent``
drives a local agent with a remote one. Needs the ``a2a`` extra
(``pip install 'agentcore-engine[a2a]'``). See docs/a2a.md.
"""

try:
    import a2a as _sdk  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        "agentcore.a2a needs the A2A SDK: pip install 'agentcore-engine[a2a]'"
    ) from exc

from ._a2a.client import RemoteAgent as RemoteAgent
from ._a2a.server import AgentA2AExecutor as AgentA2AExecutor
from ._a2a.server import a2a_app as a2a_app
from ._a2a.server import a2a_routes as a2a_routes
from ._a2a.server import agent_card as agent_card
from ._a2a.server import serve_mount as serve_mount
from ._a2a.tasks import JournalTaskStore as JournalTaskStore

__all__ = [
    "AgentA2AExecutor",
    "JournalTaskStore",
    "RemoteAgent",
    "a2a_app",
    "a2a_routes",
    "agent_card",
    "serve_mount",
]
