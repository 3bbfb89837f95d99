"""Running one tool call: context, cancellation, timeout, and turning the outcome into a result.

Shell code (asyncio). The loop processor has already decided that the call names a
known tool and that its arguments validate; ``run_tool`` only executes it and never
raises for the tool's own failures: a raise, a timeout or a cancellation by abort all
become an error ``ToolRunOutcome`` with a message the model can act on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from .._core.content import Content, JSONValue
from .._core.errors import ErrorCode
from .._loop.tools import Tool, ToolOutput, to_result_content

__all__ = ["AbortSignal", "ToolContext", "ToolRunOutcome", "run_tool"]


class AbortSignal:
    """Set when the run is aborted; tools may poll ``aborted`` or ``await wait()``.

    Setting is idempotent. The runtime also cancels the tool's task, so a tool that
    ignores the signal is still stopped at its next ``await``.
    """

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = asyncio.Event()

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await self._event.wait()


@attrs.frozen(slots=True)
class ToolContext:
    """What a running tool may know and do besides its arguments.

    ``messages`` is the conversation so far (read-only); ``on_update(progress)`` reports
    progress, emitted as ``tool_execution_update`` (progress must be JSON-like and is
    never sent to the model).
    """

    tool_call_id: str
    tool_name: str
    signal: AbortSignal
    messages: Sequence[Any]
    on_update: Callable[[JSONValue], None]


@attrs.frozen(slots=True)
class ToolRunOutcome:
    """The result of one execution, ready to become a ``tool_result`` event."""

    content: Content
    is_error: bool = False
    details: JSONValue = None


async def run_tool(tool: Tool, args: Mapping[str, Any], ctx: ToolContext) -> ToolRunOutcome:
    """Execute ``tool`` with validated ``args``, honouring its timeout.

    Returns an error outcome (never raises) when the tool raises, returns something that
    is not text/JSON/images, or exceeds ``tool.timeout``. ``asyncio.CancelledError``
    propagates so the runtime can answer the call itself with an abort result.
    """
    deadline = None if tool.timeout is None else asyncio.timeout(tool.timeout)
    try:
        built = tool.build_args(args)
        if deadline is None:
            value = await tool.execute(built, ctx)
        else:
            async with deadline:
                value = await tool.execute(built, ctx)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a failing tool never takes the loop down
        if isinstance(exc, TimeoutError) and deadline is not None and deadline.expired():
            return _error(
                f"Tool {tool.name!r} timed out after {tool.timeout:g} s and was stopped.",
                ErrorCode.TOOL_EXECUTION_ERROR,
            )
        return _error(
            f"Tool {tool.name!r} failed: {type(exc).__name__}: {exc}",
            ErrorCode.TOOL_EXECUTION_ERROR,
        )
    output = value if isinstance(value, ToolOutput) else ToolOutput(value)
    try:
        content = to_result_content(output.content)
    except TypeError as exc:
        return _error(f"Tool {tool.name!r} {exc}", ErrorCode.TOOL_EXECUTION_ERROR)
    return ToolRunOutcome(content, output.is_error, output.details)


def _error(message: str, code: ErrorCode) -> ToolRunOutcome:
    return ToolRunOutcome(message, True, {"error_code": code.value})
