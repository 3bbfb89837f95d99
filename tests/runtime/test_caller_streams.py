"""The model calls a run's command asks for are streamed by the run's caller (the task
awaiting ``prompt``/``run``), and the call a tool's result asks for by that tool's task,
with no task, future or event-loop iteration of their own; nothing shows it but the time.

These tests hold that path equal to a task per call (the agent's ``hold_calls`` turned
off): the same outputs delivered, history and error, for any model turns of a driver
that streams (it has no whole answer at hand), with the run aborted by a subscriber at
any output or not at all. A caller cancelled while its call waits on the model aborts
the run and raises; a timeout or an abort from another task stops a call the caller
streams, however stuck the driver, and the caller goes on uncancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent, AgentError, BaseDriver, ModelRequest
from agentcore.drivers.scripted import FunctionDriver, ScriptedDriver, text_turn, tool_turn
from agentcore.events import MessageStart, StreamEvent, TextDelta, UserMessage
from agentcore.journal import MemoryJournal
from agentcore.presenters.recording import RecordingPresenter
from agentcore.testing import turns


class Streaming:
    """A scripted driver seen through ``receive``/``receive_batches`` only, each batch
    after a loop iteration (a model that streams)."""

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


def _run(calls: list[list[Any]], by_caller: bool, abort_at: int | None) -> tuple[Any, ...]:
    """Run a prompt against ``calls``; abort when the ``abort_at``-th output is seen."""
    rec = RecordingPresenter()
    agent = Agent(
        Streaming(ScriptedDriver(calls, clock=lambda: 5)),
        presenters=[rec],
        agent_id="a",
        clock=lambda: 5,
        id_factory=lambda: "i",
        max_iterations=len(calls),
    )
    if not by_caller:
        agent._performer.hold_calls = lambda: None  # type: ignore[method-assign]
    seen = 0

    def aborting(output: Any) -> None:
        nonlocal seen
        seen += 1
        if seen == abort_at:
            agent.abort()

    agent.subscribe(aborting)

    async def main() -> None:
        await agent.prompt("go")
        await agent.wait()
        assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]

    asyncio.run(main())
    return (
        tuple(rec.outputs()),
        agent.state.messages,
        repr(agent.state.error),  # an error is equal to itself only
    )


@settings(max_examples=60, deadline=None)
@given(turn=turns(max_calls=3), abort_at=st.none() | st.integers(1, 60))
def test_a_call_its_caller_streams_is_what_a_task_streams(turn: Any, abort_at: int | None) -> None:
    calls = [list(call.events) for call in turn.calls]
    assert all(type(e) is not UserMessage for call in calls for e in call)
    assert _run(calls, True, abort_at) == _run(calls, False, abort_at)


class Stuck(BaseDriver):
    """Starts a reply, then waits forever, deaf to ``interrupt`` (a hung connection)."""

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise AssertionError("read through receive_batches")

    async def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        yield (MessageStart("m1", "stuck"), TextDelta("so far", 0))
        await asyncio.Event().wait()


def test_a_timeout_stops_a_stuck_call_its_caller_streams() -> None:
    agent = Agent(Stuck())

    async def main() -> int:
        with pytest.raises(AgentError, match=r"timed out|timeout"):
            await agent.run("go", timeout=0.05)
        task = asyncio.current_task()
        assert task is not None
        await asyncio.sleep(0)  # no cancellation is left for the caller
        return task.cancelling()

    assert asyncio.run(asyncio.wait_for(main(), 5)) == 0
    assert agent.state.messages[-1].text == "so far"


@pytest.mark.parametrize("closing", [False, True])
def test_an_abort_from_another_task_stops_a_stuck_call_its_caller_streams(closing: bool) -> None:
    agent = Agent(Stuck())

    async def stop() -> None:
        await asyncio.sleep(0.01)
        if closing:
            await agent.aclose()
        else:
            agent.abort()

    async def main() -> str:
        stopper = asyncio.get_running_loop().create_task(stop())
        with pytest.raises(AgentError) as raised:
            await agent.run("go")
        await stopper
        await asyncio.sleep(0)
        assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
        return raised.value.code

    assert asyncio.run(asyncio.wait_for(main(), 5)) == "ABORTED"
    assert agent.conversation_state.loop.phase == "idle"


def test_a_caller_cancelled_while_its_call_waits_aborts_the_run_and_raises() -> None:
    agent = Agent(Stuck())

    async def main() -> None:
        run = asyncio.get_running_loop().create_task(agent.run("go"))
        await asyncio.sleep(0.01)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        assert agent.conversation_state.loop.phase == "idle"
        assert agent.state.error is not None and agent.state.error.code == "ABORTED"
        agent.reset()
        agent._driver = ScriptedDriver([text_turn("again")])  # the next run answers
        assert (await agent.run("again?")).text == "again"

    asyncio.run(asyncio.wait_for(main(), 5))


def test_the_caller_streams_the_call_its_prompt_asks_for() -> None:
    """A model call the prompt asks for is streamed by the prompt's own task: a run whose
    model never waits is over in that task's one step; a delay makes it wait, in the same
    task. A journaled agent streams each call in a task (its eval rerun, a replay driver
    in a task, must reproduce the recording)."""

    async def answer(request: ModelRequest) -> str:
        return "now"

    for driver, journal, expected in (
        (FunctionDriver(answer), None, (False, True)),
        (FunctionDriver(lambda request: "now"), None, (False, True)),
        (ScriptedDriver([text_turn("now")], delay=0.001), None, (True, True)),
        (FunctionDriver(answer), MemoryJournal(), (True, False)),
    ):
        agent = Agent(driver, journal=journal, agent_id="a")

        async def main(agent: Agent = agent) -> tuple[bool, bool, str]:
            run = asyncio.get_running_loop().create_task(agent.prompt("hi"))
            await asyncio.sleep(0)
            streaming = not run.done()
            names = [t.get_coro().__qualname__ for t in asyncio.all_tasks()]
            alone = not any("ModelCalls" in name for name in names)  # no task of a call
            await run
            return streaming, alone, agent.state.messages[-1].text

        assert asyncio.run(main()) == (*expected, "now")


def test_a_tool_result_and_its_trip_are_folded_before_the_next_answer() -> None:
    """A tool guardrail trips on the result: the trip ends the run, though the model's
    next call would have answered at once."""
    from agentcore import tool
    from agentcore.guardrails import Tripwire

    @tool
    async def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    def unlucky(call: Any, result: Any) -> Tripwire | None:
        return Tripwire("unlucky") if result is not None else None

    calls = [tool_turn([("c1", "add", {"a": 6, "b": 7})]), text_turn("13")]
    agent = Agent(ScriptedDriver(calls), tools=[add], tool_guardrails=[unlucky])
    asyncio.run(agent.prompt("add"))
    assert agent.state.error is not None and "unlucky" in agent.state.error.message
    assert [m.type for m in agent.state.messages][-1] == "tool_result_message"
