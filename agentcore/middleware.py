"""Middleware over a run's typed actions (docs/middleware.md).

``async def middleware(action, next) -> action``, added with ``Agent(middleware=[...])``
or, declared ``@middleware``, with ``agent.use(mw)``: an onion around the start and end
of each run, each model call and each tool call.
"""

from ._runtime.actions import Action as Action
from ._runtime.actions import ErrorAction as ErrorAction
from ._runtime.actions import LoopEndAction as LoopEndAction
from ._runtime.actions import LoopEndReason as LoopEndReason
from ._runtime.actions import LoopStartAction as LoopStartAction
from ._runtime.actions import Middleware as Middleware
from ._runtime.actions import ModelCallAction as ModelCallAction
from ._runtime.actions import ModelResponseAction as ModelResponseAction
from ._runtime.actions import Next as Next
from ._runtime.actions import ToolCallAction as ToolCallAction
from ._runtime.actions import ToolResultAction as ToolResultAction
from ._runtime.actions import events_of as events_of
from ._runtime.actions import middleware as middleware

__all__ = [
    "Action",
    "ErrorAction",
    "LoopEndAction",
    "LoopEndReason",
    "LoopStartAction",
    "Middleware",
    "ModelCallAction",
    "ModelResponseAction",
    "Next",
    "ToolCallAction",
    "ToolResultAction",
    "events_of",
    "middleware",
]
