"""Drivers' batches (``Driver.receive_batches``): how a batch is split must never show.

The runtime reads a driver through ``receive_batches`` and folds a batch in one pass;
these tests hold that every way of cutting a call into batches gives the same outputs,
journal and history as one event at a time, and that the runtime still stops where it
must inside a batch (an abort, an error, a congested presenter)."""

from __future__ import annotations

import asyncio
import itertools
import pathlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import (
    Agent,
    BaseDriver,
    FallbackDriver,
    MemoryJournal,
    ModelRequest,
    as_driver,
    tool,
)
from agentcore.drivers.anthropic import AnthropicDriver, RetryPolicy
from agentcore.drivers.scripted import FunctionDriver, Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.events import ErrorReceived, StreamEvent, TextDelta, UserMessage
from agentcore.presenters.recording import RecordingPresenter


class Cut(BaseDriver):
    """Plays scripted calls, each cut into batches at the given offsets."""

    def __init__(self, calls: list[list[Any]], cuts: list[list[int]]) -> None:
        self._calls = iter(zip(calls, cuts, strict=True))

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:  # type: ignore[override]
        raise AssertionError("the runtime reads receive_batches")
        yield  # pragma: no cover

    async def receive_batches(  # type: ignore[override]
        self, request: ModelRequest
    ) -> AsyncIterator[Sequence[StreamEvent]]:
        events, cuts = next(self._calls)
        bounds = [0, *sorted(c % (len(events) + 1) for c in cuts), len(events)]
        for start, end in itertools.pairwise(bounds):
            if start < end:
                yield events[start:end]


class OneByOne(BaseDriver):
    """Only ``receive``: the runtime gets ``BaseDriver``'s one-event batches."""

    def __init__(self, calls: list[list[Any]]) -> None:
        self._calls = iter(calls)

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:  # type: ignore[override]
        for event in next(self._calls):
            yield event


@tool(idempotent=True)
async def echo(n: int) -> str:
    """Echo ``n``."""
    return f"n={n}"


def _calls(words: list[str]) -> list[list[Any]]:
    return [
        tool_turn([("c1", "echo", {"n": 1}), ("c2", "echo", {"n": 2})]),
        text_turn(" ".join(words), chunk=1),
    ]


async def _run(driver: Any) -> tuple[list[Any], list[Any], Any]:
    rec = RecordingPresenter()
    journal = MemoryJournal()
    ids = itertools.count()
    agent = Agent(
        driver,
        tools=[echo],
        presenters=[rec],
        journal=journal,
        agent_id="a",
        clock=lambda: 7,
        id_factory=lambda: f"id{next(ids)}",
    )
    await agent.prompt("go")
    return rec.outputs(), [e.event for e in journal.entries("a")], agent.state.messages


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(st.sampled_from(["a", "bb", "sk-", "ccc ", "\n"]), min_size=1, max_size=30),
    cuts=st.lists(st.lists(st.integers(0, 60), max_size=8), min_size=2, max_size=2),
)
def test_any_cut_into_batches_gives_the_outputs_of_one_event_at_a_time(
    words: list[str], cuts: list[list[int]]
) -> None:
    calls = _calls(words)
    batched = asyncio.run(_run(Cut(calls, cuts)))
    single = asyncio.run(_run(OneByOne(calls)))
    assert batched == single


def test_scripted_batches_are_the_runs_between_pauses_and_flatten_to_receive() -> None:
    boom = RuntimeError("boom")
    turn: list[Any] = [*text_turn("a b", chunk=1)[:3], Pause(0), *text_turn("c")[1:], boom]

    async def main() -> tuple[list[Any], list[Any]]:
        batches: list[Any] = []
        try:
            async for batch in ScriptedDriver([turn], clock=lambda: 3).receive_batches(
                ModelRequest(messages=())
            ):
                batches.append(list(batch))
        except RuntimeError:
            pass
        events: list[Any] = []
        try:
            async for event in ScriptedDriver([turn], clock=lambda: 3).receive(
                ModelRequest(messages=())
            ):
                events.append(event)
        except RuntimeError:
            pass
        return batches, events

    batches, events = asyncio.run(main())
    assert [len(b) for b in batches] == [3, len(text_turn("c")) - 1]
    assert [e for b in batches for e in b] == events


def test_an_abort_inside_a_batch_folds_nothing_after_it() -> None:
    turn = text_turn("one two three four five six", chunk=1)
    rec = RecordingPresenter()
    agent = Agent(ScriptedDriver([turn, text_turn("next")]), presenters=[rec])

    def on_delta(event: Any) -> None:
        if len(rec.outputs(type=TextDelta)) == 2:
            agent.abort()

    async def main() -> None:
        unsubscribe = agent.on("text_delta", on_delta)
        await agent.prompt("go")
        unsubscribe()
        await agent.prompt("again")

    asyncio.run(main())
    assert [o.text for o in rec.outputs(type=TextDelta)] == ["o", "n", "next"]
    assert agent.state.messages[-1].text == "next"


def test_an_error_inside_a_batch_ends_the_call_there() -> None:
    start, *rest = text_turn("x y", chunk=1)
    error = ErrorReceived("overloaded", "provider_error", False, timestamp=1)
    rec = RecordingPresenter()
    agent = Agent(ScriptedDriver([[start, rest[0], error, *rest[1:]]]), presenters=[rec])
    asyncio.run(agent.prompt("go"))
    assert [o.text for o in rec.outputs(type=TextDelta)] == ["x"]


def test_a_congested_presenter_holds_a_batch_back_and_gets_all_of_it_in_order() -> None:
    words = [f"w{i}" for i in range(400)]
    got: list[str] = []
    waiting = [0, 0]  # now, most

    class Slow:
        def present(self, agent_id: str, output: Any) -> Any:
            waiting[0] += 1
            waiting[1] = max(waiting)
            return self._write(output)

        async def _write(self, output: Any) -> None:
            await asyncio.sleep(0)
            waiting[0] -= 1
            if type(output) is TextDelta:
                got.append(output.text)

    agent = Agent(
        ScriptedDriver([text_turn(" ".join(words), chunk=1)]), presenters=[Slow()], max_pending=4
    )

    async def main() -> None:
        async with agent:
            await agent.prompt("go")

    asyncio.run(main())
    assert "".join(got) == " ".join(words)
    assert waiting[1] <= 16, waiting  # the mark, and what the first events made at once


def test_zero_timestamps_in_a_batch_are_stamped() -> None:
    calls = [[e.__class__(**{**_fields(e), "timestamp": 0}) for e in text_turn("a b", chunk=1)]]
    rec = RecordingPresenter()
    agent = Agent(Cut(calls, [[]]), presenters=[rec], clock=lambda: 42)
    asyncio.run(agent.prompt("go"))
    assert {o.timestamp for o in rec.outputs(type=TextDelta)} == {42}


def test_as_driver_forwards_an_objects_own_batches() -> None:
    class Plain:
        def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
            raise AssertionError("not this one")

        async def receive_batches(
            self, request: ModelRequest
        ) -> AsyncIterator[Sequence[StreamEvent]]:
            yield tuple(text_turn("hi"))

    rec = RecordingPresenter()
    asyncio.run(Agent(as_driver(Plain()), presenters=[rec]).prompt("go"))
    assert [o.text for o in rec.outputs(type=TextDelta)] == ["hi"]


def test_a_function_driver_batches_like_the_script_it_returns() -> None:
    rec = RecordingPresenter()
    driver = FunctionDriver(lambda request: text_turn("a b c", chunk=1))
    asyncio.run(Agent(driver, presenters=[rec]).prompt("go"))
    assert "".join(o.text for o in rec.outputs(type=TextDelta)) == "a b c"


def _fields(event: Any) -> dict[str, Any]:
    return {name: getattr(event, name) for name in event.__slots__ if name != "__weakref__"}


@pytest.mark.parametrize(
    "name", ["parallel_tools", "redacted_thinking", "error_mid_stream", "stop_end_turn"]
)
def test_a_provider_drivers_batches_flatten_to_its_events(name: str) -> None:
    """The streaming skeleton yields one batch per decoded item; flattened, they are
    exactly what ``receive`` yields, failures included."""
    path = pathlib.Path(__file__).parent.parent / "drivers" / "fixtures" / "anthropic"
    request = ModelRequest(messages=(UserMessage("u1", "hi"),))

    async def main() -> tuple[list[Any], list[Any]]:
        response = sse_response(path / f"{name}.sse")
        async with ReplayServer([response, response]) as server:
            driver = AnthropicDriver(
                "claude-test",
                api_key="sk-ant-test",
                base_url=server.base_url,
                clock=lambda: 5,
                retry=RetryPolicy(max_retries=0),
            )
            batches = [list(b) async for b in driver.receive_batches(request)]
            events = [e async for e in driver.receive(request)]
            await driver.aclose()
        return batches, events

    batches, events = asyncio.run(main())
    assert all(batches) and len(batches) > 1
    assert [e for b in batches for e in b] == events


@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.lists(st.integers(0, 40), max_size=6), min_size=3, max_size=3))
def test_a_fallback_chain_keeps_its_drivers_batches_invisible(cuts: list[list[int]]) -> None:
    """The chain holds an attempt's ``message_start`` back across batch edges: an
    overloaded first driver falls back however its call was cut, and the answer is the
    same as one event at a time."""
    start, *rest = text_turn("fallen back", chunk=2)
    overloaded = ErrorReceived("overloaded", "overloaded", True, timestamp=1)
    failing = [start, overloaded]
    answer = [start, *rest]
    tools_turn = _calls(["x"])[0]

    def chain(first: Any, second: Any) -> FallbackDriver:
        return FallbackDriver([first, second])

    batched = asyncio.run(
        _run(chain(Cut([failing, failing], cuts[:2]), Cut([tools_turn, answer], [[], cuts[2]])))
    )
    single = asyncio.run(_run(chain(OneByOne([failing, failing]), OneByOne([tools_turn, answer]))))
    assert batched == single
    assert batched[2][-1].text == "fallen back"
