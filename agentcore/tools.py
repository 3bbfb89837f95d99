"""Tools for the agent loop: ``define_tool``, ``@tool``, results and the running context.

See docs/tools.md.
"""

from ._tool_runner import AbortSignal as AbortSignal
from ._tool_runner import ToolContext as ToolContext
from ._tool_runner import ToolRunOutcome as ToolRunOutcome
from ._tool_runner import run_tool as run_tool
from ._tools import Tool as Tool
from ._tools import ToolFunction as ToolFunction
from ._tools import ToolOutput as ToolOutput
from ._tools import define_tool as define_tool
from ._tools import schema_for as schema_for
from ._tools import to_result_content as to_result_content
from ._tools import tool as tool

__all__ = [
    "AbortSignal",
    "Tool",
    "ToolContext",
    "ToolFunction",
    "ToolOutput",
    "ToolRunOutcome",
    "define_tool",
    "run_tool",
    "schema_for",
    "to_result_content",
    "tool",
]
