"""An async tool that may wait runs in a task of its own, from its first line: what a
coroutine binds to the task it starts in (``asyncio.timeout``, a ``TaskGroup``, anyio's
cancel scopes) must bind to the tool's task, never to the task streaming the run.

A shortcut that ran a lone tool call in the run's caller up to its first suspension and
moved the rest to a task was measured and taken out: a tool's ``asyncio.timeout`` then
cancelled the run's caller, and a failing ``TaskGroup`` child did too, so the run raised
``CancelledError`` instead of answering the call with the tool's error. Only a tool whose
code cannot wait runs in the caller (tests/runtime/test_lone_tool_in_caller.py).
"""

from __future__ import annotations

import asyncio

import pytest

from agentcore import Agent, ModelRequest, tool
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.events import StreamEvent, ToolResultMessage


def _calling(name: str) -> FunctionDriver:
    """A model that calls ``name`` once, then answers with the tool's result text."""

    async def answer(request: ModelRequest) -> list[StreamEvent]:
        last = request.messages[-1]
        if isinstance(last, ToolResultMessage):
            return text_turn(f"error={last.is_error}: {last.result}", chunk=10_000)
        return tool_turn([("c1", name, {"x": 1})])

    return FunctionDriver(answer)


async def timed_out(x: int) -> str:
    """Waits longer than its own deadline."""
    async with asyncio.timeout(0.01):
        await asyncio.sleep(5)
    return "too late"


async def group_failed(x: int) -> str:
    """A task group whose child fails while the tool waits."""

    async def child() -> None:
        await asyncio.sleep(0.005)
        raise ValueError("the child failed")

    async with asyncio.TaskGroup() as group:
        group.create_task(child())
        await asyncio.sleep(5)
    return "never"


@pytest.mark.parametrize(
    ("fn", "expected"),
    [(timed_out, "TimeoutError"), (group_failed, "TaskGroup")],
)
def test_a_tools_task_bound_context_fails_the_tool_not_the_run(fn: object, expected: str) -> None:
    async def main() -> tuple[str, int]:
        agent = Agent(_calling(fn.__name__), tools=[tool(fn)])  # type: ignore[attr-defined]
        result = await agent.run("go")
        return result.output, asyncio.current_task().cancelling()  # type: ignore[union-attr]

    output, cancelling = asyncio.run(asyncio.wait_for(main(), 10))
    assert output.startswith("error=True: "), output
    assert expected in output
    assert cancelling == 0


def test_a_tool_that_may_wait_runs_in_another_task_than_the_runs_caller() -> None:
    seen: list[asyncio.Task[object] | None] = []

    async def where(x: int) -> str:
        """Says which task it runs in."""
        seen.append(asyncio.current_task())
        await asyncio.sleep(0)
        return "here"

    async def main() -> tuple[str, object]:
        agent = Agent(_calling("where"), tools=[tool(where)])
        result = await agent.run("go")
        return result.output, asyncio.current_task()

    output, caller = asyncio.run(main())
    assert output == "error=False: here"
    assert seen and seen[0] is not None and seen[0] is not caller
