"""A scripted model that has its whole answer at hand is fed with no task, and nothing
shows it but the time.

``ScriptedDriver``/``FunctionDriver`` with no delay answer ``receive_at_once`` with the
call's events in one list; the runtime feeds them once the input that asked for the call
is folded (``Conversation.after``), as it feeds a streamed batch. These tests hold the
two paths equal: the same outputs delivered, history and error, for any model turns,
with the run aborted by a subscriber at any output or not at all; an agent with a
journal streams every call in a task (its eval rerun must reproduce the recording); and
the inputs a tool's call feeds together (its result and a guardrail's trip) are folded
before the next model call answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent, ModelRequest
from agentcore.drivers.scripted import FunctionDriver, ScriptedDriver, text_turn, tool_turn
from agentcore.events import StreamEvent, UserMessage
from agentcore.journal import MemoryJournal
from agentcore.presenters.recording import RecordingPresenter
from agentcore.testing import turns


class Streaming:
    """A scripted driver seen through ``receive``/``receive_batches`` only: its calls
    are read in a task, as any driver's."""

    def __init__(self, inner: ScriptedDriver) -> None:
        self._inner = inner
        self.name = "streaming"

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return self._inner.receive(request)

    def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        return self._inner.receive_batches(request)

    def interrupt(self) -> None:
        self._inner.interrupt()

    async def aclose(self) -> None:
        """Nothing to release."""


def _run(calls: list[list[Any]], at_once: bool, abort_at: int | None) -> tuple[Any, ...]:
    """Run a prompt against ``calls``; abort when the ``abort_at``-th output is seen."""
    scripted = ScriptedDriver(calls, clock=lambda: 5)
    driver: Any = scripted if at_once else Streaming(scripted)
    rec = RecordingPresenter()
    agent = Agent(
        driver,
        presenters=[rec],
        agent_id="a",
        clock=lambda: 5,
        id_factory=lambda: "i",
        max_iterations=len(calls),
    )
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

    asyncio.run(main())
    return (
        tuple(rec.outputs()),
        agent.state.messages,
        repr(agent.state.error),  # an error is equal to itself only
    )


@settings(max_examples=60, deadline=None)
@given(turn=turns(max_calls=3), abort_at=st.none() | st.integers(1, 60))
def test_an_answer_at_once_is_what_streaming_it_gives(turn: Any, abort_at: int | None) -> None:
    calls = [list(call.events) for call in turn.calls]
    assert all(type(e) is not UserMessage for call in calls for e in call)
    assert _run(calls, True, abort_at) == _run(calls, False, abort_at)


def test_a_function_that_answers_at_once_needs_no_task() -> None:
    """The whole run is over once the prompt is folded: no task runs in between."""
    agent = Agent(FunctionDriver(lambda request: "hello"))

    async def main() -> tuple[bool, str]:
        tasks = len(asyncio.all_tasks())
        run = asyncio.get_running_loop().create_task(agent.prompt("hi"))
        await asyncio.sleep(0)  # the prompt task's one step: the run ends in it
        return run.done() and len(asyncio.all_tasks()) == tasks, agent.state.messages[-1].text

    assert asyncio.run(main()) == (True, "hello")


def test_an_async_function_a_delay_or_a_journal_streams_in_a_task() -> None:
    async def answer(request: ModelRequest) -> str:
        return "later"

    for driver, journal in (
        (FunctionDriver(answer), None),
        (ScriptedDriver([text_turn("later")], delay=0.001), None),
        (FunctionDriver(lambda request: "later"), MemoryJournal()),
    ):
        agent = Agent(driver, journal=journal, agent_id="a")

        async def main(agent: Agent = agent) -> bool:
            run = asyncio.get_running_loop().create_task(agent.prompt("hi"))
            await asyncio.sleep(0)
            streaming = not run.done()
            await run
            return streaming and agent.state.messages[-1].text == "later"

        assert asyncio.run(main())


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
