"""The seed's engine vocabulary on the one runtime (docs/runtime.md).

``create_agent(driver, presenters)`` returns an ``Agent``; ``AgentEngine`` is kept as an
alias of ``Agent``. Interceptors, ``Reply`` and failures live here; ``Middleware`` is
``agentcore.middleware``'s.
"""

from ._runtime.actions import Middleware as Middleware
from ._runtime.actions import Next as Next
from ._runtime.agent import Agent as Agent
from ._runtime.agent import create_agent as create_agent
from ._runtime.delivery import EngineFailure as EngineFailure
from ._runtime.delivery import FailureSource as FailureSource
from ._runtime.middleware import Interceptor as Interceptor
from ._runtime.middleware import MessageQueueView as MessageQueueView
from ._runtime.middleware import Reply as Reply
from ._runtime.subscriptions import Handler as Handler
from ._runtime.subscriptions import Unsubscribe as Unsubscribe

AgentEngine = Agent
"""The seed's name for ``Agent`` (one runtime serves both vocabularies)."""

__all__ = [
    "Agent",
    "AgentEngine",
    "EngineFailure",
    "FailureSource",
    "Handler",
    "Interceptor",
    "MessageQueueView",
    "Middleware",
    "Next",
    "Reply",
    "Unsubscribe",
    "create_agent",
]
