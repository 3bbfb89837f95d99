"""The async runtime: ``create_agent`` and the ``AgentEngine`` it returns (docs/runtime.md)."""

from ._runtime.delivery import EngineFailure as EngineFailure
from ._runtime.delivery import FailureSource as FailureSource
from ._runtime.engine import AgentEngine as AgentEngine
from ._runtime.engine import create_agent as create_agent
from ._runtime.middleware import Interceptor as Interceptor
from ._runtime.middleware import MessageQueueView as MessageQueueView
from ._runtime.middleware import Middleware as Middleware
from ._runtime.middleware import Next as Next
from ._runtime.middleware import Reply as Reply
from ._runtime.subscriptions import Handler as Handler
from ._runtime.subscriptions import Unsubscribe as Unsubscribe

__all__ = [
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
