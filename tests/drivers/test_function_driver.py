"""FunctionDriver: a model scripted by a function of the request (sync, async, streaming)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore import Agent, ModelRequest, tool
from agentcore.drivers.scripted import FunctionDriver, Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.drivers.testing import assemble, check_stream
from agentcore.events import (
    AssistantMessage,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ToolResultMessage,
    UserMessage,
)

REQUEST = ModelRequest(messages=(UserMessage(message_id="u1", content="hi"),))


async def collect(driver: FunctionDriver, request: ModelRequest = REQUEST) -> list[StreamEvent]:
    return [event async for event in driver.receive(request)]


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def echo(request: ModelRequest) -> list[StreamEvent]:
    """Answers with the last user message, upper-cased."""
    return text_turn(str(request.messages[-1].content).upper())


async def async_echo(request: ModelRequest) -> list[StreamEvent]:
    await asyncio.sleep(0)
    return echo(request)


async def streaming_echo(request: ModelRequest) -> AsyncIterator[StreamEvent]:
    for event in echo(request):
        await asyncio.sleep(0)
        yield event


@pytest.mark.parametrize(
    "fn",
    [echo, async_echo, streaming_echo, lambda request: "HI"],
    ids=["sync", "async", "async-iterator", "string"],
)
def test_every_kind_of_function_answers_and_the_request_is_recorded(fn: Any) -> None:
    driver = FunctionDriver(fn, clock=lambda: 42)
    events = asyncio.run(collect(driver))
    check_stream(events)
    assert text_of(events) == "HI"
    assert driver.requests == [REQUEST]
    assert {e.timestamp for e in events} == {42}  # stamped by the driver's clock


def test_events_that_carry_a_timestamp_keep_it() -> None:
    driver = FunctionDriver(lambda r: [MessageStart("m", "x", timestamp=7), MessageStop()])
    events = asyncio.run(collect(driver))
    assert events[0].timestamp == 7 and events[1].timestamp > 7


def weather_model(request: ModelRequest) -> list[StreamEvent]:
    """Calls get_weather for a question, then reports what the tool said."""
    last = request.messages[-1]
    if isinstance(last, ToolResultMessage):
        said = last.result if isinstance(last.result, str) else last.result[0].text  # type: ignore[union-attr]
        return text_turn(f"It is {said} in Paris.")
    return tool_turn([("call_1", "get_weather", {"city": "Paris"})])


@tool
async def get_weather(city: str) -> str:
    """The weather in a city."""
    return "sunny" if city == "Paris" else "unknown"


def test_a_model_that_decides_from_the_request_drives_a_tool_using_agent() -> None:
    async def main() -> tuple[str, int]:
        driver = FunctionDriver(weather_model)
        agent = Agent(driver, tools=[get_weather])
        try:
            result = await agent.run("What is the weather in Paris?")
        finally:
            await agent.aclose()
        return result.output, len(driver.requests)

    assert asyncio.run(main()) == ("It is sunny in Paris.", 2)


def conversation_model(request: ModelRequest) -> str:
    """Answers each user message with its number and the history's length."""
    users = [m for m in request.messages if isinstance(m, UserMessage)]
    return f"reply {len(users)} to {users[-1].content} after {len(request.messages)} messages"


def _texts(messages: Any) -> list[str]:
    return [m.text for m in messages if isinstance(m, AssistantMessage)]


def test_a_new_process_continues_a_conversation_the_same_way() -> None:
    """Resume: a fresh driver given the history answers as the first one would have."""

    async def conversation(prompts: list[str], history: list[Any]) -> list[Any]:
        agent = Agent(FunctionDriver(conversation_model), messages=history)
        try:
            for prompt in prompts:
                await agent.run(prompt)
            return list(agent.state.messages)
        finally:
            await agent.aclose()

    async def main() -> tuple[list[str], list[str]]:
        uninterrupted = await conversation(["one", "two"], [])
        continued = await conversation(["two"], await conversation(["one"], []))
        return _texts(uninterrupted), _texts(continued)

    uninterrupted, continued = asyncio.run(main())
    assert continued == uninterrupted
    assert uninterrupted[-1] == "reply 2 to two after 3 messages"


def test_interrupt_cuts_a_pause_short_and_ends_the_stream() -> None:
    driver = FunctionDriver(lambda r: [MessageStart("m", "x"), Pause(30), *text_turn("late")])

    async def main() -> tuple[list[StreamEvent], float]:
        seen: list[StreamEvent] = []
        start = time.perf_counter()
        async for event in driver.receive(REQUEST):
            seen.append(event)
            asyncio.get_running_loop().call_later(0.05, driver.interrupt)
        return seen, time.perf_counter() - start

    seen, took = asyncio.run(main())
    assert [type(e) for e in seen] == [MessageStart] and took < 5


def test_interrupt_stops_an_async_iterator_at_the_next_event() -> None:
    async def endless(request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield MessageStart("m", "x")
        while True:
            await asyncio.sleep(0)
            yield TextDelta("tick ", 0)

    driver = FunctionDriver(endless)

    async def main() -> list[StreamEvent]:
        seen: list[StreamEvent] = []
        async for event in driver.receive(REQUEST):
            seen.append(event)
            if len(seen) == 3:
                driver.interrupt()
        return seen

    assert len(asyncio.run(main())) == 3


def test_an_exception_the_function_raises_comes_out_of_the_stream() -> None:
    def broken(request: ModelRequest) -> list[StreamEvent]:
        raise ConnectionError("model unreachable")

    with pytest.raises(ConnectionError, match="model unreachable"):
        asyncio.run(collect(FunctionDriver(broken)))


@pytest.mark.parametrize(
    ("reply", "named"),
    [(42, "42 (int)"), ({"text": "hi"}, "(dict)"), (None, "None (NoneType)")],
    ids=["int", "dict", "none"],
)
def test_a_function_returning_the_wrong_type_fails_with_a_clear_error(
    reply: object, named: str
) -> None:
    with pytest.raises(TypeError, match=r"return a list of stream events") as raised:
        asyncio.run(collect(FunctionDriver(lambda request: reply)))
    assert named in str(raised.value) and "model call 1" in str(raised.value)


def test_an_item_that_is_not_an_event_is_named() -> None:
    def bad(request: ModelRequest) -> list[Any]:
        return [MessageStart("m", "x"), "hello", MessageStop()]

    with pytest.raises(TypeError, match=r"holds 'hello' \(str\)"):
        asyncio.run(collect(FunctionDriver(bad)))


def test_a_bad_item_from_an_async_iterator_is_named_too() -> None:
    async def bad(request: ModelRequest) -> AsyncIterator[Any]:
        yield MessageStart("m", "x")
        yield 3.5

    with pytest.raises(TypeError, match=r"holds 3.5 \(float\)"):
        asyncio.run(collect(FunctionDriver(bad)))


def test_construction_rejects_what_is_not_a_function() -> None:
    with pytest.raises(TypeError, match="function of the request"):
        FunctionDriver("not callable")  # type: ignore[arg-type]


def test_a_scripted_driver_rejects_a_bad_item_when_it_is_built() -> None:
    with pytest.raises(TypeError, match="model call 2 of the script holds 'oops'"):
        ScriptedDriver([text_turn("fine"), [MessageStart("m", "x"), "oops"]])  # type: ignore[list-item]


def test_the_reply_assembles_like_any_model_reply() -> None:
    events = asyncio.run(collect(FunctionDriver(lambda r: tool_turn([("c1", "f", {"a": 1})]))))
    message = assemble(events)
    assert message.stop_reason == "tool_use" and message.tool_calls[0].input == {"a": 1}


_EVENTS = st.lists(
    st.one_of(
        st.builds(TextDelta, st.text(max_size=5), st.integers(0, 2), timestamp=st.integers(0, 3)),
        st.builds(MessageStart, st.just("m1"), st.just("model"), timestamp=st.integers(0, 3)),
        st.builds(MessageStop, st.just("end_turn"), timestamp=st.integers(0, 3)),
    ),
    max_size=8,
)


@given(_EVENTS, st.booleans())
def test_a_whole_list_is_played_as_its_items_one_by_one_would_be(
    events: list[StreamEvent], awaits: bool
) -> None:
    """The fast path (a list of events with nothing to wait between them: one batch, no
    generator per layer) hands the same stamped events as the path that plays items as
    they come (an async iterator of the same items), and as a sync function's answer."""

    def listed(request: ModelRequest) -> list[StreamEvent]:
        return list(events)

    async def awaited(request: ModelRequest) -> list[StreamEvent]:
        return list(events)

    async def one_by_one(request: ModelRequest) -> AsyncIterator[StreamEvent]:
        for event in events:
            yield event

    async def batches(fn: Any) -> list[list[StreamEvent]]:
        driver = FunctionDriver(fn, clock=lambda: 7)
        return [list(b) async for b in driver.receive_batches(REQUEST)]

    whole = asyncio.run(batches(awaited if awaits else listed))
    plain = asyncio.run(batches(one_by_one))
    assert [e for b in whole for e in b] == [e for b in plain for e in b]
    assert len(whole) == (1 if events else 0)  # one batch: nothing waits between them
    assert all(e.timestamp != 0 for b in whole for e in b)
