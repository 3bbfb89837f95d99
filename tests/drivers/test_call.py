"""StreamCall on its own: opening, interrupting (any step, any thread), closing.

Tests the private module ``agentcore.drivers._common``: the skeleton's streaming call and
its retries."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable

import hypothesis.strategies as st
from hypothesis import given, settings

from agentcore.drivers._common.call import StreamCall
from agentcore.drivers._common.retry import Opened, RetryPolicy
from agentcore.drivers.streaming import Failure
from agentcore.errors import ErrorCode

FAST = RetryPolicy(max_retries=3, initial_delay=0.0, jitter=0.0)
BUSY = Failure(ErrorCode.OVERLOADED, "busy", True)
DENIED = Failure(ErrorCode.AUTHENTICATION_ERROR, "denied", False)


class Busy(Exception):
    """A retryable failure of one attempt."""


class Denied(Exception):
    """A failure not worth retrying."""


def classify(exc: BaseException) -> Failure:
    return BUSY if isinstance(exc, Busy) else DENIED


class FakeResponse:
    """An HTTP response: yields ``items`` then, unless ``ends``, waits until closed.

    A read pending when the response is closed fails, as httpx's does.
    """

    def __init__(self, items: list[str], ends: bool = True) -> None:
        self.items = list(items)
        self.ends = ends
        self.closes = 0
        self._closed = asyncio.Event()

    async def close(self) -> None:
        self.closes += 1
        self._closed.set()

    def __aiter__(self) -> FakeResponse:
        return self

    async def __anext__(self) -> str:
        if self._closed.is_set():
            raise ConnectionError("read on a closed response")
        if self.items:
            return self.items.pop(0)
        if self.ends:
            raise StopAsyncIteration
        await self._closed.wait()
        raise ConnectionError("response closed during a read")


def starter(
    call: StreamCall, responses: list[FakeResponse | BaseException]
) -> tuple[Callable[[], Awaitable[AsyncIterator[str]]], list[FakeResponse]]:
    """``start`` for ``call``: each attempt takes the next response (or raises the next error)."""
    attached: list[FakeResponse] = []

    async def start() -> AsyncIterator[str]:
        outcome = responses.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        call.attach(outcome.close)
        attached.append(outcome)
        return outcome

    return start, attached


async def no_sleep(_: float) -> None:
    return None


def test_open_returns_the_first_item_and_aclose_closes_the_response_once() -> None:
    async def main() -> tuple[object, int, int]:
        call = StreamCall()
        response = FakeResponse(["a", "b"])
        start, _ = starter(call, [response])
        opened = await call.open(start, classify, FAST)
        assert isinstance(opened, Opened)
        rest = [item async for item in opened.stream]
        await call.aclose()
        await call.aclose()  # idempotent
        call.interrupt()  # after the end: nothing left to close
        await asyncio.sleep(0)
        return (opened.first, rest), opened.attempts, response.closes

    assert asyncio.run(main()) == (("a", ["b"]), 1, 1)


def test_each_retry_closes_the_previous_attempts_response_first() -> None:
    async def main() -> tuple[int, list[int]]:
        call = StreamCall()
        empty, bad, good = FakeResponse([]), FakeResponse(["x"]), FakeResponse(["a"])

        def check(item: str) -> None:
            if item == "x":
                raise Busy

        start, attached = starter(call, [empty, Busy(), bad, good])
        opened = await call.open(start, classify, FAST, sleep=no_sleep, check=check)
        assert isinstance(opened, Opened)
        await call.aclose()
        return opened.attempts, [r.closes for r in attached]

    assert asyncio.run(main()) == (4, [1, 1, 1])


def test_a_failure_is_returned_and_its_response_still_closed() -> None:
    async def main() -> tuple[object, int]:
        call = StreamCall()
        response = FakeResponse(["x"])

        def check(_: str) -> None:
            raise Denied

        start, _ = starter(call, [response])
        opened = await call.open(start, classify, FAST, check=check)
        await call.aclose()
        return opened, response.closes

    assert asyncio.run(main()) == (DENIED, 1)


def test_interrupt_before_open_sends_nothing() -> None:
    async def main() -> tuple[object, int]:
        call = StreamCall()
        responses: list[FakeResponse | BaseException] = [FakeResponse(["a"])]
        start, _ = starter(call, responses)
        call.interrupt()
        return await call.open(start, classify, FAST), len(responses)

    assert asyncio.run(main()) == (None, 1)


async def _open_interrupted(
    call: StreamCall, start: Callable[[], Awaitable[AsyncIterator[str]]], ready: asyncio.Event
) -> tuple[object, int]:
    """Open in a task, interrupt once ``ready``; the result and the task's cancellations."""

    async def opener() -> tuple[object, int]:
        result = await call.open(start, classify, RetryPolicy(initial_delay=30.0, jitter=0.0))
        await asyncio.sleep(0)  # a leaked cancellation would be delivered here
        task = asyncio.current_task()
        assert task is not None
        return result, task.cancelling()

    task = asyncio.create_task(opener())
    await ready.wait()
    call.interrupt()
    call.interrupt()  # idempotent
    return await asyncio.wait_for(task, 1.0)


def test_interrupt_while_the_request_is_pending_returns_none_without_cancelling_the_caller() -> (
    None
):
    async def main() -> tuple[object, int]:
        call = StreamCall()
        never = asyncio.Event()
        ready = asyncio.Event()

        async def start() -> AsyncIterator[str]:
            ready.set()
            await never.wait()
            raise AssertionError("unreachable")

        return await _open_interrupted(call, start, ready)

    assert asyncio.run(main()) == (None, 0)


def test_interrupt_during_a_backoff_returns_none_and_sends_nothing_more() -> None:
    async def main() -> tuple[object, int, int]:
        call = StreamCall()
        responses: list[FakeResponse | BaseException] = [Busy(), FakeResponse(["a"])]
        start, _ = starter(call, responses)
        ready = asyncio.Event()

        async def counted() -> AsyncIterator[str]:
            try:
                return await start()
            finally:
                ready.set()

        return (*await _open_interrupted(call, counted, ready), len(responses))

    assert asyncio.run(main()) == (None, 0, 1)


def test_interrupt_while_the_first_item_is_awaited_closes_that_response() -> None:
    async def main() -> tuple[object, int, int]:
        call = StreamCall()
        response = FakeResponse([], ends=False)
        ready = asyncio.Event()

        async def start() -> AsyncIterator[str]:
            call.attach(response.close)
            ready.set()
            return response

        result = await _open_interrupted(call, start, ready)
        await call.aclose()
        return (*result, response.closes)

    assert asyncio.run(main()) == (None, 0, 1)


def test_the_caller_being_cancelled_propagates() -> None:
    async def main() -> bool:
        call = StreamCall()
        never = asyncio.Event()

        async def start() -> AsyncIterator[str]:
            await never.wait()
            raise AssertionError("unreachable")

        task = asyncio.create_task(call.open(start, classify, FAST))
        await asyncio.sleep(0.01)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return task.cancelled()
        return False

    assert asyncio.run(main())


def _interrupt_mid_stream(from_thread: bool) -> tuple[list[str], str, int]:
    async def main() -> tuple[list[str], str, int]:
        call = StreamCall()
        response = FakeResponse(["a", "b"], ends=False)
        start, _ = starter(call, [response])
        opened = await call.open(start, classify, FAST)
        assert isinstance(opened, Opened)
        seen = [opened.first]
        ended = "end"
        try:
            async for item in opened.stream:
                seen.append(item)
                if from_thread:
                    thread = threading.Thread(target=call.interrupt)
                    thread.start()
                    await asyncio.to_thread(thread.join)
                else:
                    call.interrupt()
        except ConnectionError:  # the read in progress ends when the response closes
            ended = "closed" if call.interrupted else "error"
        await call.aclose()
        return seen, ended, response.closes

    return asyncio.run(main())


def test_interrupt_mid_stream_closes_the_response_so_the_pending_read_ends() -> None:
    assert _interrupt_mid_stream(from_thread=False) == (["a", "b"], "closed", 1)


def test_interrupt_from_another_thread_closes_the_response() -> None:
    assert _interrupt_mid_stream(from_thread=True) == (["a", "b"], "closed", 1)


def test_interrupt_after_the_loop_closed_is_harmless() -> None:
    async def make() -> StreamCall:
        return StreamCall()

    call = asyncio.run(make())
    call.interrupt()
    assert call.interrupted


def test_aclose_also_closes_an_async_generator_wrapped_around_the_response() -> None:
    async def main() -> tuple[list[str], int]:
        call = StreamCall()
        response = FakeResponse(["a", "b", "c"])
        finished: list[str] = []

        async def decoded() -> AsyncIterator[str]:
            try:
                async for item in response:
                    yield item.upper()
            finally:
                finished.append("generator closed")

        async def start() -> AsyncIterator[str]:
            call.attach(response.close)
            return decoded()

        opened = await call.open(start, classify, FAST)
        assert isinstance(opened, Opened) and opened.first == "A"
        await call.aclose()
        return finished, response.closes

    assert asyncio.run(main()) == (["generator closed"], 1)


# outcome of one attempt: 0 a retryable error, 1 an empty response, 2 a first item that
# fails the check (retryable), 3 a refused request, 4 an opened stream
Outcome = st.integers(min_value=0, max_value=4)


@settings(max_examples=150, deadline=None)
@given(st.lists(Outcome, min_size=1, max_size=5), st.integers(min_value=-1, max_value=6))
def test_every_response_is_closed_exactly_once_whatever_happens(
    outcomes: list[int], interrupt_at: int
) -> None:
    """Any attempts, an interrupt at any step (or none): each response closes once."""

    async def main() -> tuple[object, list[int]]:
        call = StreamCall()
        made: list[FakeResponse] = []
        steps = 0

        async def start() -> AsyncIterator[str]:
            nonlocal steps
            steps += 1
            if steps == interrupt_at:
                call.interrupt()
            kind = outcomes[min(steps, len(outcomes)) - 1]
            if kind == 0:
                raise Busy
            if kind == 3:
                raise Denied
            response = FakeResponse({1: [], 2: ["x"], 4: ["a", "b"]}[kind])
            made.append(response)
            call.attach(response.close)
            return response

        def check(item: str) -> None:
            if item == "x":
                raise Busy

        if interrupt_at == 0:
            call.interrupt()
        opened = await call.open(start, classify, FAST, sleep=no_sleep, check=check)
        if isinstance(opened, Opened):
            call.interrupt()
            assert [item async for item in opened.stream] in ([], ["b"])
        await call.aclose()
        await asyncio.sleep(0)
        return opened, [r.closes for r in made]

    opened, closes = asyncio.run(main())
    assert closes == [1] * len(closes)
    if interrupt_at == 0:
        assert (opened, closes) == (None, [])
