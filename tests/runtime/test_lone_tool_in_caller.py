"""A lone tool call of a tool that cannot wait (an ``async`` function whose code holds no
``await``), with no deadline, asked for by the feed of the task that streams the run
(the run's caller, or the task of the tool before it), runs in that task: no task and
no event-loop iteration of its own. A tool that may wait keeps a task per call.

These tests hold that path equal to a task per call (the agent's ``hold_calls`` turned
off, or only the tool's hold): the same outputs delivered, history, error and what the
tools did, for any model turns asking for one or more calls of tools that answer at
once, wait, fail, report progress or swallow their cancellation, the model streaming or
not, with the run aborted by a subscriber at any output or not at all. A tool that took
``asyncio.current_task()`` before it waits (``asyncio.timeout``) finds its own task.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent, ToolContext, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.presenters.recording import RecordingPresenter

from .test_caller_streams import Streaming

RAN: list[str] = []
"""What the tools did, in order: a call cancelled before it began never runs."""


async def now(a: int) -> int:
    """Answers at once."""
    RAN.append(f"now {a}")
    return a + 1


async def later(a: int) -> int:
    """Waits one loop iteration, then answers."""
    RAN.append(f"later {a}")
    await asyncio.sleep(0)
    RAN.append(f"later {a} woke")
    return a + 2


async def fails(a: int) -> int:
    """Raises at once."""
    RAN.append(f"fails {a}")
    raise ValueError(f"no {a}")


async def noted(a: int, ctx: ToolContext) -> int:
    """Reports progress and answers, never waiting (an abort at the progress lands while
    it runs)."""
    RAN.append(f"noted {a}")
    ctx.on_update({"step": a})
    RAN.append(f"noted {a} aborted {ctx.signal.aborted}")
    return a


async def noisy(a: int, ctx: ToolContext) -> int:
    """Reports progress, then waits (an abort at the progress reaches it there)."""
    RAN.append(f"noisy {a}")
    ctx.on_update({"step": a})
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        RAN.append(f"noisy {a} cancelled")
        raise
    return a


async def stubborn(a: int) -> str:
    """Swallows a cancellation while it waits, then answers."""
    RAN.append(f"stubborn {a}")
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        RAN.append(f"stubborn {a} swallowed")
        return "swallowed"
    return "waited"


TOOLS = [tool(f) for f in (now, later, fails, noted, noisy, stubborn)]
NAMES = [t.name for t in TOOLS]


def _run(
    batches: list[list[str]], streams: bool, hold: str, abort_at: int | str | None
) -> tuple[Any, ...]:
    """A prompt whose model asks for ``batches`` of tool calls, then answers; ``hold``:
    ``"all"`` (the default), ``"model"`` (no tool held) or ``"none"`` (a task per call).
    The run is aborted at the ``abort_at``-th output, or the first of that class name."""
    calls = [
        tool_turn([(f"c{n}-{i}", name, {"a": i}) for i, name in enumerate(batch)])
        for n, batch in enumerate(batches)
    ]
    script = ScriptedDriver([*calls, text_turn("done")], clock=lambda: 5)
    rec = RecordingPresenter()
    agent = Agent(
        Streaming(script) if streams else script,
        tools=TOOLS,
        presenters=[rec],
        agent_id="a",
        clock=lambda: 5,
        id_factory=lambda: "i",
        max_iterations=len(calls) + 1,
    )
    if hold == "none":
        agent._performer.hold_calls = lambda: None  # type: ignore[method-assign]
    elif hold == "model":
        agent._performer._tools._holdable = lambda call: False  # type: ignore[method-assign]
    seen = 0
    RAN.clear()

    def aborting(output: Any) -> None:
        nonlocal seen
        seen += 1
        if seen == abort_at or type(output).__name__ == abort_at:
            agent.abort()

    agent.subscribe(aborting)

    async def main() -> None:
        await agent.prompt("go")
        await agent.wait()
        for _ in range(5):  # what an abandoned tool does after its answer is not fed
            await asyncio.sleep(0)
        assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]

    asyncio.run(main())
    return (
        tuple(rec.outputs()),
        agent.state.messages,
        repr(agent.state.error),  # an error is equal to itself only
        tuple(RAN),
    )


@settings(max_examples=80, deadline=None)
@given(
    batches=st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2), max_size=3),
    streams=st.booleans(),
    abort_at=st.none()
    | st.integers(1, 70)
    | st.sampled_from(["ToolExecutionStart", "ToolExecutionUpdate", "ToolResult"]),
)
def test_a_lone_call_run_by_the_streaming_task_is_what_its_own_task_runs(
    batches: list[list[str]], streams: bool, abort_at: int | str | None
) -> None:
    held = _run(batches, streams, "all", abort_at)
    assert held == _run(batches, streams, "model", abort_at)
    assert held == _run(batches, streams, "none", abort_at)


def test_a_tool_that_never_waits_runs_in_the_runs_caller() -> None:
    """The run's caller runs a lone call of a tool whose code holds no await (no task of
    its own); a tool that may wait has a task of its own, and so has each call of a batch
    of two."""
    tasks: list[tuple[str, bool]] = []
    caller: asyncio.Task[Any] | None = None

    seen = contextvars.ContextVar("seen", default="nobody")

    async def here(name: str) -> str:
        """Tells which task runs it, never waiting; sets a context variable (in its own
        copy of the context, as in a task of its own)."""
        tasks.append((name, asyncio.current_task() is caller))
        seen.set(name)
        return name

    async def there(name: str) -> str:
        """Tells which task runs it, then waits."""
        tasks.append((name, asyncio.current_task() is caller))
        await asyncio.sleep(0)
        return name

    script = ScriptedDriver(
        [
            tool_turn([("c1", "here", {"name": "lone"})]),
            tool_turn([("c2", "there", {"name": "waits"})]),
            tool_turn([("c3", "here", {"name": "one"}), ("c4", "here", {"name": "two"})]),
            tool_turn([("c5", "here", {"name": "after"})]),
            text_turn("done"),
        ]
    )
    agent = Agent(script, tools=[tool(here), tool(there)])

    async def main() -> str:
        nonlocal caller
        caller = asyncio.current_task()
        text = (await agent.run("go")).text
        return f"{text}, seen by {seen.get()}"

    assert asyncio.run(main()) == "done, seen by nobody"
    expected = [("lone", True), ("waits", False), ("one", False), ("two", False)]
    assert tasks == [*expected, ("after", False)]  # streamed by the task of "two" or "one"


def test_a_tool_that_takes_its_task_before_it_waits_finds_it_after() -> None:
    """``asyncio.timeout`` inside a tool cancels the tool's own task at its deadline, not
    the run's caller: the tool answers, the run goes on."""

    async def slow(a: int) -> str:
        """Waits longer than its own deadline."""
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(5)
        except TimeoutError:
            return "timed out"
        return "slept"

    script = ScriptedDriver([tool_turn([("c1", "slow", {"a": 1})]), text_turn("done")])
    agent = Agent(script, tools=[tool(slow)])

    async def main() -> tuple[str, str]:
        result = await agent.run("go")
        assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
        return result.text, result.messages[2].result

    assert asyncio.run(asyncio.wait_for(main(), 5)) == ("done", "timed out")


def test_never_waits_reads_the_tools_own_code() -> None:
    """An async function with no ``await``, ``async for`` or ``async with`` never waits;
    any of those, a plain function, an object with an async ``__call__`` or a wrapper of
    the user's own (its awaits are its code's) may."""
    import functools

    from agentcore import define_tool

    async def plain(a: int) -> int:
        """No wait."""
        return a

    async def awaits(a: int) -> int:
        """Awaits."""
        await asyncio.sleep(0)
        return a

    async def iterates(a: int) -> int:
        """Iterates asynchronously."""

        async def gen() -> AsyncIterator[int]:
            yield a

        async for x in gen():
            return x
        return a

    async def enters(a: int) -> int:
        """Enters an async context."""
        async with asyncio.timeout(1):
            return a

    def sync(a: int) -> int:
        """A plain function."""
        return a

    class Callable_:
        async def __call__(self, args: Any, ctx: Any) -> int:
            return 1

    def wrapping(f: Any) -> Any:
        @functools.wraps(f)
        async def wrapper(**kwargs: Any) -> Any:
            await asyncio.sleep(0)
            return await f(**kwargs)

        return wrapper

    assert tool(plain).never_waits
    assert not tool(awaits).never_waits
    assert not tool(iterates).never_waits
    assert not tool(enters).never_waits
    assert not tool(sync).never_waits
    assert not tool(wrapping(plain)).never_waits
    schema = {"type": "object", "properties": {}}
    assert not define_tool("c", "an object", schema, Callable_()).never_waits
