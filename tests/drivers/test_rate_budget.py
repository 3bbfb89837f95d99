"""Rate budgets in the driver skeleton, through the Anthropic SDK's real HTTP path: a call
waits (with a ``rate_limited`` notice) instead of being sent over the limit, a wait is
interruptible and gives the reservation back, the provider's headers, 429s and reported
usage feed the buckets."""

from __future__ import annotations

import asyncio
import pathlib
import time
from typing import Any

import pytest

from agentcore import Agent, FallbackDriver, ModelRequest
from agentcore.drivers.anthropic import AnthropicDriver, RetryPolicy
from agentcore.drivers.rate_budget import (
    MemoryRateStore,
    RateBudget,
    RateLimit,
    Rates,
    header_limits,
    process_budget,
    set_process_budget,
)
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.drivers.testing import ReplayServer, ScriptedResponse, check_stream, sse_response
from agentcore.errors import AbortedError
from agentcore.events import ErrorReceived, RateLimited, StreamEvent, UserMessage
from agentcore.journal import MemoryJournal
from agentcore.presenters.console import EMPTY, encode

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "anthropic"
REQUEST = ModelRequest((UserMessage("u1", "hi"),), max_tokens=100)


def ok(**kwargs: Any) -> ScriptedResponse:
    return sse_response(FIXTURES / "stop_end_turn.sse", **kwargs)


class Clock:
    """The store's clock and the driver's sleep: sleeping moves the clock."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def calls(
    responses: list[ScriptedResponse], budget: RateBudget, clock: Clock, n: int
) -> tuple[list[list[StreamEvent]], int]:
    async def main() -> tuple[list[list[StreamEvent]], int]:
        async with ReplayServer(responses) as server:
            driver = AnthropicDriver(
                "claude-test",
                api_key="sk-ant-test",
                base_url=server.base_url,
                clock=lambda: 5,
                sleep=clock.sleep,
                retry=RetryPolicy(max_retries=1),
            )
            driver.rate_budget = budget
            async with driver:
                seen = [[e async for e in driver.receive(REQUEST)] for _ in range(n)]
            return seen, len(server.requests)

    return asyncio.run(main())


def test_a_call_over_the_limit_waits_with_a_notice_instead_of_being_sent() -> None:
    clock = Clock()
    limits = {"anthropic": Rates(requests=RateLimit(2, 60.0, burst=1))}  # 1 per 60 s
    budget = RateBudget(limits, store=MemoryRateStore(lambda: clock.now))
    seen, sent = calls([ok(), ok(), ok()], budget, clock, 3)
    assert sent == 3
    assert type(seen[0][0]) is not RateLimited
    assert seen[1][0] == RateLimited("anthropic", "requests", 60_000, timestamp=5)
    assert seen[2][0] == RateLimited("anthropic", "requests", 60_000, timestamp=5)
    assert clock.sleeps == [pytest.approx(60.0), pytest.approx(60.0)]
    for events in seen:
        check_stream(events)  # a notice first is still a well-formed call


def test_a_model_scope_and_a_provider_scope_both_count() -> None:
    clock = Clock()
    limits = {
        "anthropic": Rates(requests=RateLimit(100, 60.0, burst=1)),
        "anthropic/claude-test": Rates(requests=RateLimit(3, 60.0, burst=1)),  # 1 per 30 s
    }
    budget = RateBudget(limits, store=MemoryRateStore(lambda: clock.now))
    seen, _ = calls([ok(), ok()], budget, clock, 2)
    assert seen[1][0] == RateLimited("anthropic/claude-test", "requests", 30_000, timestamp=5)


def test_an_interrupt_during_the_wait_ends_the_call_and_gives_the_reservation_back() -> None:
    store = MemoryRateStore()
    budget = RateBudget({"anthropic": Rates(requests=RateLimit(2, 600.0, burst=1))}, store=store)

    async def main() -> tuple[list[StreamEvent], int, float]:
        async with ReplayServer([ok(), ok()]) as server:
            driver = AnthropicDriver("claude-test", api_key="sk-ant-test", base_url=server.base_url)
            driver.rate_budget = budget
            first = [e async for e in driver.receive(REQUEST)]
            assert first[-1].type == "message_stop"
            seen: list[StreamEvent] = []

            async def second() -> None:
                async for event in driver.receive(REQUEST):
                    seen.append(event)
                    driver.interrupt()  # as a steer or an abort would, during the wait

            await asyncio.wait_for(second(), 5)  # not the 600 s the bucket asks for
            await driver.aclose()
            ticket = await budget.acquire("anthropic", "claude-test", {}, None)
            assert ticket is not None
            return seen, len(server.requests), ticket.wait

    seen, sent, wait_after = asyncio.run(main())
    assert [e.type for e in seen] == ["rate_limited"]
    assert sent == 1  # the interrupted call was never sent
    # its reservation went back: the next call waits for one refill, not two
    assert wait_after == pytest.approx(600.0, rel=0.01)


def test_reported_usage_corrects_the_token_estimate() -> None:
    clock = Clock()
    limit = RateLimit(2000, 60.0, burst=1000)
    budget = RateBudget(
        {"anthropic": Rates(output_tokens=limit)}, store=MemoryRateStore(lambda: clock.now)
    )
    calls([ok()], budget, clock, 1)  # reserved max_tokens=100, used 3 (the fixture's usage)

    async def level() -> float:
        return await budget.store.update(
            "anthropic:output_tokens", limit, lambda bucket, now: (bucket, bucket.level)
        )

    assert asyncio.run(level()) == pytest.approx(1000 - 3)


def test_the_provider_s_headers_lower_the_bucket_and_teach_a_limit() -> None:
    clock = Clock()
    budget = RateBudget(store=MemoryRateStore(lambda: clock.now), learn=True)
    headers = {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "2026-11-28T08:00:00Z",
    }
    seen, _ = calls([ok(headers=headers), ok()], budget, clock, 2)
    assert budget.scopes("anthropic", "claude-test") == [
        ("anthropic/claude-test", Rates(requests=RateLimit(50)))
    ]
    # nothing remains: the next call waits for one unit at 49 per 60 s
    assert seen[1][0] == RateLimited(
        "anthropic/claude-test", "requests", round(60_000 / 49), timestamp=5
    )


def test_without_learning_the_headers_only_lower_configured_limits() -> None:
    clock = Clock()
    budget = RateBudget(store=MemoryRateStore(lambda: clock.now))
    headers = {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
    }
    seen, _ = calls([ok(headers=headers), ok()], budget, clock, 2)
    assert budget.scopes("anthropic", "claude-test") == []
    assert all(type(e) is not RateLimited for events in seen for e in events)


def test_a_429_holds_the_scope_s_requests_until_its_retry_after() -> None:
    clock = Clock()
    limits = {"anthropic": Rates(requests=RateLimit(600, 60.0))}  # 10 a second: no waits
    budget = RateBudget(limits, store=MemoryRateStore(lambda: clock.now))
    busy = ScriptedResponse.json(
        429,
        {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
        headers={"retry-after": "20"},
    )
    seen, sent = calls([busy, ok(), ok()], budget, clock, 2)
    assert sent == 3
    refill = 1 / limits["anthropic"].requests.rate  # type: ignore[union-attr]
    # the retry waits out retry-after, then reserves its request like any call
    assert clock.sleeps[0] == pytest.approx(20.0 + refill)
    # the budget was held for those same 20 s, so the next call waits one refill at most
    notices = [e for events in seen for e in events if type(e) is RateLimited]
    assert all(n.wait_ms <= 110 for n in notices)
    held = RateBudget(limits, store=MemoryRateStore(lambda: clock.now))
    again = ScriptedResponse.json(429, {}, headers={"retry-after": "20"})
    seen, _ = calls([again, again], held, clock, 1)
    assert seen[0][-1].type == "error_received"  # retries ran out: held 20 s more from now
    ticket = asyncio.run(held.acquire("anthropic", "claude-test", {}, None))
    assert ticket is not None and ticket.wait == pytest.approx(20.0, abs=0.2)


def test_header_limits_read_anthropic_and_openai_names() -> None:
    assert header_limits(
        {
            "anthropic-ratelimit-input-tokens-limit": "30000",
            "anthropic-ratelimit-input-tokens-remaining": "29000",
            "anthropic-ratelimit-output-tokens-limit": "8000",
            "x-ratelimit-limit-requests": "500",
            "X-RateLimit-Remaining-Requests": "499",
            "x-ratelimit-limit-tokens": "nope",
            "content-type": "text/event-stream",
        }
    ) == {
        "input_tokens": (30000.0, 29000.0),
        "output_tokens": (8000.0, None),
        "requests": (500.0, 499.0),
    }


def test_the_process_budget_is_shared_and_replaceable() -> None:
    mine = RateBudget({"anthropic": Rates(requests=RateLimit(10))})
    previous = set_process_budget(mine)
    try:
        assert process_budget() is mine
        assert AnthropicDriver("claude-test", api_key="k").rate_budget is None  # reads it per call
        assert mine.applies("anthropic", "claude-x") and not mine.applies("openai", "gpt-x")
    finally:
        set_process_budget(previous)


def test_an_agent_journals_the_notice_and_the_console_shows_it() -> None:
    clock = Clock()
    limits = {"anthropic": Rates(requests=RateLimit(2, 60.0, burst=1))}
    budget = RateBudget(limits, store=MemoryRateStore(lambda: clock.now))
    journal = MemoryJournal()
    seen: list[Any] = []

    async def main() -> None:
        async with ReplayServer([ok(), ok()]) as server:
            driver = AnthropicDriver(
                "claude-test", api_key="sk-ant-test", base_url=server.base_url, sleep=clock.sleep
            )
            driver.rate_budget = budget
            agent = Agent(driver, journal=journal)
            agent.subscribe(seen.append)
            await agent.run("one")
            await agent.run("two")
            await agent.aclose()
            await driver.aclose()

    asyncio.run(main())
    notices = [o for o in seen if type(o) is RateLimited]
    assert [(n.scope, n.limit, n.wait_ms) for n in notices] == [("anthropic", "requests", 60_000)]
    journaled = [e.event for e in journal.entries() if type(e.event) is RateLimited]
    assert journaled == notices
    _, ops = encode(EMPTY, notices[0])
    assert "[rate limited: waiting 60.0s for anthropic requests]" in str(ops[0].renderable)


def test_a_fallback_chain_passes_the_notice_on_and_still_falls_back() -> None:
    notice = RateLimited("a", "requests", 10, timestamp=1)
    failing = ScriptedDriver([[notice, ErrorReceived("busy", "overloaded", True, timestamp=1)]])
    answering = ScriptedDriver([text_turn("from b")])
    chain = FallbackDriver([failing, answering])

    async def main() -> list[StreamEvent]:
        return [e async for e in chain.receive(REQUEST)]

    events = asyncio.run(main())
    assert events[0] == notice
    assert events[1].type == "message_start"
    assert any(getattr(e, "text", None) == "from b" for e in events)


def test_aborting_an_agent_during_the_wait_ends_its_run_at_once_unsent() -> None:
    budget = RateBudget({"anthropic": Rates(requests=RateLimit(2, 600.0, burst=1))})

    async def main() -> tuple[float, int]:
        async with ReplayServer([ok(), ok()]) as server:
            driver = AnthropicDriver("claude-test", api_key="sk-ant-test", base_url=server.base_url)
            driver.rate_budget = budget
            agent = Agent(driver)
            await agent.run("one")

            def on_output(output: Any) -> None:
                if type(output) is RateLimited:
                    agent.abort()

            agent.subscribe(on_output)
            start = time.monotonic()
            with pytest.raises(AbortedError):
                await asyncio.wait_for(agent.run("two"), 10)  # not the 600 s wait
            took = time.monotonic() - start
            await agent.aclose()
            await driver.aclose()
            return took, len(server.requests)

    took, sent = asyncio.run(main())
    assert took < 5
    assert sent == 1  # the aborted call was never sent
