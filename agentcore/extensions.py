"""Extensions: ``agent.use(extension) -> dispose`` (docs/middleware.md), and the three
agentcore ships: ``tool_logger``, ``context_info``, ``bash_guard``."""

from ._coding.bash_guard import bash_guard as bash_guard
from ._runtime.extensions import Block as Block
from ._runtime.extensions import Continue as Continue
from ._runtime.extensions import Extension as Extension
from ._runtime.extensions import ExtensionAPI as ExtensionAPI
from ._runtime.extensions import HookName as HookName
from ._runtime.extensions import extension as extension
from ._runtime.shipped_extensions import context_info as context_info
from ._runtime.shipped_extensions import tool_logger as tool_logger

__all__ = [
    "Block",
    "Continue",
    "Extension",
    "ExtensionAPI",
    "HookName",
    "bash_guard",
    "context_info",
    "extension",
    "tool_logger",
]
