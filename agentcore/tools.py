"""Tools for the agent loop: ``define_tool``, ``@tool``, ``as_tool``, results, the running
context, toolsets.

See docs/tools.md.
"""

from ._loop.tools import Tool as Tool
from ._loop.tools import ToolFunction as ToolFunction
from ._loop.tools import ToolOutput as ToolOutput
from ._loop.tools import as_tool as as_tool
from ._loop.tools import define_tool as define_tool
from ._loop.tools import schema_for as schema_for
from ._loop.tools import to_result_content as to_result_content
from ._loop.tools import tool as tool
from ._runtime.tool_runner import AbortSignal as AbortSignal
from ._runtime.tool_runner import ToolContext as ToolContext
from ._runtime.tool_runner import ToolRunOutcome as ToolRunOutcome
from ._runtime.tool_runner import run_tool as run_tool
from ._runtime.toolsets import Toolset as Toolset

__all__ = [
    "AbortSignal",
    "Tool",
    "ToolContext",
    "ToolFunction",
    "ToolOutput",
    "ToolRunOutcome",
    "Toolset",
    "as_tool",
    "define_tool",
    "run_tool",
    "schema_for",
    "to_result_content",
    "tool",
]
