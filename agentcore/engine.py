"""The async runtime: ``create_agent`` and the ``AgentEngine`` it returns (docs/runtime.md)."""

from ._delivery import EngineFailure as EngineFailure
from ._delivery import FailureSource as FailureSource
from ._engine import AgentEngine as AgentEngine
from ._engine import create_agent as create_agent
from ._middleware import Interceptor as Interceptor
from ._middleware import MessageQueueView as MessageQueueView
from ._middleware import Middleware as Middleware
from ._middleware import Next as Next
from ._middleware import Reply as Reply
from ._subscriptions import Handler as Handler
from ._subscriptions import Unsubscribe as Unsubscribe

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
