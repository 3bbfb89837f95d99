"""ScriptedDriver: one list per call, stamping, injected failures and pauses, interrupt."""

from __future__ import annotations

import asyncio
import time

import pytest

from agentcore import Driver, ModelRequest
from agentcore.drivers.scripted import (
    Pause,
    ScriptedDriver,
    ScriptExhaustedError,
    text_turn,
    tool_turn,
)
from agentcore.events import MessageStart, MessageStop, TextDelta, ThinkingDelta, UserMessage

REQUEST = ModelRequest(messages=(UserMessage(message_id="u", content="hi"),))


async def _collect(driver: ScriptedDriver, request: ModelRequest = REQUEST) -> list[object]:
    return [ev async for ev in driver.receive(request)]


def test_each_receive_plays_the_next_call_and_records_requests() -> None:
    driver = ScriptedDriver([text_turn("one"), text_turn("two")], clock=lambda: 42)
    assert isinstance(driver, Driver)
    first = asyncio.run(_collect(driver))
    second = asyncio.run(_collect(driver))
    assert "".join(e.text for e in first if isinstance(e, TextDelta)) == "one"
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == "two"
    assert driver.requests == [REQUEST, REQUEST] and driver.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="2 scripted model call"):
        driver.receive(REQUEST)


def test_zero_timestamps_are_stamped_and_given_ones_kept() -> None:
    given = TextDelta(text="x", index=0, timestamp=7)
    driver = ScriptedDriver([[MessageStart(message_id="m", model="x"), given]], clock=lambda: 42)
    events = asyncio.run(_collect(driver))
    assert [e.timestamp for e in events] == [42, 7]  # type: ignore[attr-defined]


def test_the_clock_is_read_once_per_batch() -> None:
    """The events handed over at once share one stamp; with a delay, each event is its
    own batch and is stamped after its wait."""
    reads = iter(range(100, 200))
    calls = [text_turn("abcdef", chunk=2), text_turn("ab", chunk=1)]
    driver = ScriptedDriver(calls, clock=lambda: next(reads))

    async def batches(d: ScriptedDriver) -> list[list[int]]:
        return [[e.timestamp for e in b] async for b in d.receive_batches(REQUEST)]

    assert asyncio.run(batches(driver)) == [[100] * 6]
    slow = ScriptedDriver([text_turn("ab", chunk=1)], delay=0.001, clock=lambda: next(reads))
    assert asyncio.run(batches(slow)) == [[101], [102], [103], [104], [105]]


def test_an_exception_in_the_script_is_raised_at_that_point() -> None:
    boom = ConnectionError("reset")
    driver = ScriptedDriver([[MessageStart(message_id="m", model="x"), boom, MessageStop()]])

    async def run() -> list[object]:
        seen: list[object] = []
        with pytest.raises(ConnectionError, match="reset"):
            async for ev in driver.receive(REQUEST):
                seen.append(ev)
        return seen

    assert len(asyncio.run(run())) == 1


def test_interrupt_cuts_a_pause_short_and_ends_the_stream() -> None:
    driver = ScriptedDriver([[MessageStart(message_id="m", model="x"), Pause(30), MessageStop()]])

    async def run() -> tuple[list[object], float]:
        start = time.perf_counter()
        seen: list[object] = []
        async for ev in driver.receive(REQUEST):
            seen.append(ev)
            asyncio.get_running_loop().call_later(0.01, driver.interrupt)
        return seen, time.perf_counter() - start

    seen, elapsed = asyncio.run(run())
    assert len(seen) == 1 and elapsed < 5


def test_text_and_tool_turn_helpers() -> None:
    turn = text_turn("abcdefghij", chunk=4, thinking="hmm", signature="sig")
    thinking = [e for e in turn if isinstance(e, ThinkingDelta)]
    assert thinking[-1].signature == "sig"
    assert [e.text for e in turn if isinstance(e, TextDelta)] == ["abcd", "efgh", "ij"]
    calls = tool_turn([("c1", "get", {"q": 1}), ("c2", "get", {"q": 2})])
    assert isinstance(calls[-1], MessageStop) and calls[-1].stop_reason == "tool_use"
    with pytest.raises(ValueError, match="chunk size"):
        text_turn("x", chunk=0)
