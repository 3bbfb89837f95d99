"""A lone tool call of an async tool with no deadline, asked for by the feed of the task
that streams the run (the run's caller, or the task of the tool before it), runs in that
task up to its first suspension: a tool that never waits costs no task and no event-loop
iteration, and one that waits goes on in a task of its own from there.

These tests hold that path equal to a task per call (the agent's ``hold_calls`` turned
off, or only the tool's hold): the same outputs delivered, history and error, for any
model turns asking for one or more calls of tools that answer at once, wait, fail,
report progress or swallow their cancellation, the model streaming or not, with the run
aborted by a subscriber at any output or not at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent, ModelRequest, ToolContext, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import StreamEvent
from agentcore.presenters.recording import RecordingPresenter

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


TOOLS = [tool(f) for f in (now, later, fails, noisy, stubborn)]
NAMES = [t.name for t in TOOLS]


class Streaming:
    """A scripted driver whose every batch comes after a loop iteration."""

    def __init__(self, inner: ScriptedDriver) -> None:
        self._inner = inner
        self.name = "streaming"

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return self._inner.receive(request)

    async def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        async for batch in self._inner.receive_batches(request):
            await asyncio.sleep(0)
            yield batch

    def interrupt(self) -> None:
        self._inner.interrupt()

    async def aclose(self) -> None:
        """Nothing to release."""


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
    """The run's caller runs a lone call of a tool that answers at once (no task of its
    own); a tool that waits goes on in a task of its own, and a batch of two calls has a
    task per call."""
    tasks: list[tuple[str, bool]] = []

    async def where(name: str) -> str:
        """Tells which task runs it."""
        mine = asyncio.current_task()
        if name != "now":
            await asyncio.sleep(0)
        tasks.append((name, asyncio.current_task() is mine is caller))
        return name

    script = ScriptedDriver(
        [
            tool_turn([("c1", "where", {"name": "now"})]),
            tool_turn([("c2", "where", {"name": "later"})]),
            tool_turn([("c3", "where", {"name": "now"}), ("c4", "where", {"name": "now"})]),
            text_turn("done"),
        ]
    )
    agent = Agent(script, tools=[tool(where)])
    caller: asyncio.Task[Any] | None = None

    async def main() -> str:
        nonlocal caller
        caller = asyncio.current_task()
        return (await agent.run("go")).text

    assert asyncio.run(main()) == "done"
    assert tasks == [("now", True), ("later", False), ("now", False), ("now", False)]
