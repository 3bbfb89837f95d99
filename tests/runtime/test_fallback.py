"""FallbackDriver and ProviderLimits with scripted drivers: when the chain moves on and when
it does not, what reaches the engine, names resolved lazily, interrupts, slots per
provider, and ``Agent(model=[...])``. Through the SDKs' HTTP path:
tests/drivers/test_fallback_chain.py.

Tests the private module ``agentcore._runtime.plugins``: find_model_price, the lookup over
the registered price tables (not public).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import attrs
import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from agentcore import (
    Agent,
    BaseDriver,
    FallbackDriver,
    ModelRequest,
    ProviderLimits,
    falls_back,
)
from agentcore._runtime.plugins import find_model_price
from agentcore.drivers.scripted import FunctionDriver, Pause, ScriptedDriver, text_turn
from agentcore.drivers.testing import check_stream, interrupt_when
from agentcore.errors import AgentError, ConfigurationError, ErrorCode
from agentcore.events import (
    ErrorReceived,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    UserMessage,
)
from agentcore.pricing import ModelPrice

REQUEST = ModelRequest(messages=(UserMessage("u1", "hi"),))


def error(code: ErrorCode, retryable: bool, message: str = "failed") -> ErrorReceived:
    return ErrorReceived(message, code.value, retryable, timestamp=5)


OVERLOADED = error(ErrorCode.OVERLOADED, True, "HTTP 529 overloaded_error: Overloaded")
OVERFLOW = error(ErrorCode.CONTEXT_OVERFLOW, False, "prompt is too long")
DENIED = error(ErrorCode.AUTHENTICATION_ERROR, False, "invalid x-api-key")


def answer(text: str, model: str) -> list[StreamEvent]:
    return text_turn(text, model=model)


async def collect(driver: Any, request: ModelRequest = REQUEST) -> list[StreamEvent]:
    return [event async for event in driver.receive(request)]


def run(driver: Any, request: ModelRequest = REQUEST) -> list[StreamEvent]:
    return asyncio.run(collect(driver, request))


def text_of(events: Sequence[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


# -- when the chain moves on -----------------------------------------------------------


@pytest.mark.parametrize(
    "failed",
    [
        [OVERLOADED],
        [MessageStart("msg_a", "claude-x"), OVERLOADED],  # in-band, right after message_start
        [OVERFLOW],
        [error(ErrorCode.CONNECTION_ERROR, True)],
    ],
    ids=["overloaded", "after-message-start", "overflow", "connection"],
)
def test_a_failure_before_the_answer_goes_to_the_next_driver(failed: list[Any]) -> None:
    first = ScriptedDriver([failed], name="anthropic")
    second = ScriptedDriver([answer("from openai", "gpt-4.1")], name="openai")
    seen: list[tuple[str, str]] = []
    chain = FallbackDriver([first, second], on_fallback=lambda n, e: seen.append((n, e.code)))
    events = run(chain)
    check_stream(events)
    assert events[0] == MessageStart("msg_scripted", "gpt-4.1", timestamp=events[0].timestamp)
    assert text_of(events) == "from openai" and isinstance(events[-1], MessageStop)
    assert not any(isinstance(e, ErrorReceived) for e in events)  # nothing of the failure
    assert seen == [("anthropic", failed[-1].code)]
    assert second.requests == [REQUEST]


def test_a_failure_after_the_answer_began_ends_it_and_asks_no_one_else() -> None:
    cut = [MessageStart("msg_a", "claude-x"), TextDelta("Hel", 0), OVERLOADED]
    second = ScriptedDriver([answer("never", "gpt-4.1")], name="openai")
    events = run(FallbackDriver([ScriptedDriver([cut], name="anthropic"), second]))
    assert [type(e) for e in events] == [MessageStart, TextDelta, ErrorReceived]
    assert events[-1] == OVERLOADED and second.requests == []


def test_an_error_the_rule_rejects_is_reported_at_once() -> None:
    second = ScriptedDriver([answer("never", "gpt-4.1")], name="openai")
    events = run(FallbackDriver([ScriptedDriver([[DENIED]], name="anthropic"), second]))
    assert events == [DENIED] and second.requests == []


def test_a_custom_rule_decides() -> None:
    second = ScriptedDriver([answer("from openai", "gpt-4.1")], name="openai")
    chain = FallbackDriver(
        [ScriptedDriver([[DENIED]], name="anthropic"), second],
        should_fall_back=lambda e: falls_back(e) or e.code == "AUTHENTICATION_ERROR",
    )
    assert text_of(run(chain)) == "from openai"


def test_when_every_driver_fails_the_last_error_names_the_earlier_ones() -> None:
    chain = FallbackDriver(
        [
            ScriptedDriver([[OVERLOADED]], name="anthropic"),
            ScriptedDriver([[MessageStart("c", "gpt"), OVERFLOW]], name="openai"),
            ScriptedDriver([[error(ErrorCode.RATE_LIMITED, True, "HTTP 429 slow down")]]),
        ]
    )
    events = run(chain)
    check_stream(events)
    (last,) = [e for e in events if isinstance(e, ErrorReceived)]
    assert (last.code, last.retryable) == ("RATE_LIMITED", True)  # the last driver's own
    assert last.message == (
        "HTTP 429 slow down (fell back after anthropic: OVERLOADED: HTTP 529 overloaded_error: "
        "Overloaded; openai: CONTEXT_OVERFLOW: prompt is too long)"
    )


def test_a_driver_that_raises_counts_as_its_error() -> None:
    class Busy(AgentError):
        def __init__(self) -> None:
            super().__init__("busy", code=ErrorCode.OVERLOADED)
            self.retryable = True

    second = ScriptedDriver([answer("ok", "gpt-4.1")], name="openai")
    assert text_of(run(FallbackDriver([ScriptedDriver([[Busy()]]), second]))) == "ok"
    events = run(FallbackDriver([ScriptedDriver([[RuntimeError("bug")]]), second]))
    assert [(e.code, e.message) for e in events] == [("DRIVER_ERROR", "RuntimeError: bug")]


def test_only_the_first_driver_gets_the_requests_model_and_options() -> None:
    request = attrs.evolve(REQUEST, model="claude-opus-4-5", options={"top_k": 3})
    first = ScriptedDriver([[OVERLOADED]], name="anthropic")
    second = ScriptedDriver([answer("ok", "gpt-4.1")], name="openai")
    run(FallbackDriver([first, second]), request)
    assert first.requests == [request]
    assert second.requests == [attrs.evolve(request, model=None, options={})]


# -- names, lifecycle ---------------------------------------------------------------------


class Closing(BaseDriver):
    """A driver that answers once and records being closed."""

    def __init__(self, spec: str) -> None:
        self.spec, self.closed = spec, 0
        self._inner = ScriptedDriver([answer(f"from {spec}", spec)], name=spec.partition("/")[0])

    @property
    def name(self) -> str:
        return self._inner.name

    def receive(self, request: ModelRequest) -> Any:
        return self._inner.receive(request)

    async def aclose(self) -> None:
        self.closed += 1


def test_names_are_resolved_only_when_needed_and_closed_with_the_chain() -> None:
    built: list[Closing] = []

    def factory(spec: str) -> Closing:
        built.append(Closing(spec))
        return built[-1]

    async def main() -> tuple[str, list[str], list[int]]:
        passed_in = Closing("mine/model")
        models = ["anthropic/claude-x", "openai/gpt-y", passed_in]
        chain = FallbackDriver(models, driver_factory=factory)
        text = text_of(await collect(chain))
        specs = [d.spec for d in built]
        await chain.aclose()
        await chain.aclose()  # idempotent
        return text, specs, [d.closed for d in (*built, passed_in)]

    assert asyncio.run(main()) == ("from anthropic/claude-x", ["anthropic/claude-x"], [1, 0])


def test_a_name_that_cannot_be_resolved_fails_its_attempt_clearly() -> None:
    def factory(spec: str) -> Any:
        raise ConfigurationError(f"no API key for {spec}: set OPENAI_API_KEY")

    chain = FallbackDriver(
        [ScriptedDriver([[OVERLOADED]], name="anthropic"), "openai/gpt-4.1"], driver_factory=factory
    )
    (event,) = run(chain)
    assert isinstance(event, ErrorReceived) and event.code == "CONFIGURATION_ERROR"
    assert "OPENAI_API_KEY" in event.message and "fell back after anthropic" in event.message


@pytest.mark.parametrize("models", [[], "anthropic/claude-x", [""], [42]], ids=repr)
def test_a_bad_chain_is_a_configuration_error(models: Any) -> None:
    with pytest.raises(ConfigurationError, match="FallbackDriver"):
        FallbackDriver(models)


def test_the_name_lists_the_chain() -> None:
    chain = FallbackDriver(["anthropic/claude-x", ScriptedDriver([], name="local")])
    assert chain.name == "fallback(anthropic/claude-x, local)"


# -- interrupts ----------------------------------------------------------------------------


def test_an_interrupt_mid_answer_ends_it_promptly_and_tries_no_one_else() -> None:
    slow = [MessageStart("m", "claude-x"), TextDelta("Hel", 0), Pause(30.0), TextDelta("lo", 0)]
    second = ScriptedDriver([answer("never", "gpt")], name="openai")
    chain = FallbackDriver([ScriptedDriver([slow], name="anthropic"), second])

    async def main() -> Any:
        return await interrupt_when(chain, REQUEST, lambda ev: TextDelta in map(type, ev))

    seen = asyncio.run(main())
    assert [type(e) for e in seen.events] == [MessageStart, TextDelta]
    assert (seen.delay < 0.5, seen.cancelling, second.requests) == (True, 0, [])


def test_an_interrupt_from_another_thread_before_any_event_sends_nothing_more() -> None:
    first = ScriptedDriver([[Pause(30.0), OVERLOADED]], name="anthropic")
    second = ScriptedDriver([answer("never", "gpt")], name="openai")
    chain = FallbackDriver([first, second])

    async def main() -> Any:
        async def from_thread() -> None:
            await asyncio.to_thread(chain.interrupt)

        return await interrupt_when(chain, REQUEST, lambda _: bool(first.requests), from_thread)

    seen = asyncio.run(main())
    assert (seen.events, seen.cancelling, second.requests) == ([], 0, [])
    assert seen.delay < 0.5


def test_an_interrupt_while_waiting_for_a_slot_ends_the_wait() -> None:
    limits = ProviderLimits({"anthropic": 1})
    busy = ScriptedDriver([[Pause(30.0)]], name="anthropic")
    waiting = ScriptedDriver([answer("never", "claude")], name="anthropic")

    async def main() -> tuple[Any, int]:
        holder = asyncio.create_task(collect(FallbackDriver([busy], limits=limits)))
        while not busy.requests:
            await asyncio.sleep(0.001)
        chain = FallbackDriver([waiting], limits=limits)
        polls = iter(range(3))  # interrupt_when polls every 5 ms: by then the chain waits
        seen = await interrupt_when(chain, REQUEST, lambda _: next(polls, 3) >= 2)
        busy.interrupt()
        await holder
        return seen, limits.in_flight("anthropic")

    seen, in_flight = asyncio.run(main())
    assert (seen.events, seen.cancelling, waiting.requests, in_flight) == ([], 0, [], 0)
    assert seen.delay < 0.5


# -- provider limits -----------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(limit=st.integers(1, 4), calls=st.integers(1, 8), other=st.integers(0, 3))
def test_calls_in_flight_never_exceed_the_providers_limit(
    limit: int, calls: int, other: int
) -> None:
    """Concurrent chains sharing limits: at most ``limit`` calls to the provider at once, all
    of them answered; a provider without a limit is not held back."""
    limits = ProviderLimits({"anthropic": limit})
    peak = {"anthropic": 0, "openai": 0}
    now = {"anthropic": 0, "openai": 0}

    def model(provider: str) -> FunctionDriver:
        async def reply(request: ModelRequest) -> list[StreamEvent]:
            now[provider] += 1
            peak[provider] = max(peak[provider], now[provider])
            await asyncio.sleep(0.002)
            now[provider] -= 1
            return answer("ok", provider)

        return FunctionDriver(reply, name=provider)

    async def main() -> list[str]:
        chains = [FallbackDriver([model("anthropic")], limits=limits) for _ in range(calls)]
        chains += [FallbackDriver([model("openai")], limits=limits) for _ in range(other)]
        results = await asyncio.gather(*(collect(c) for c in chains))
        assert limits.in_flight("anthropic") == 0
        return [text_of(r) for r in results]

    assert asyncio.run(main()) == ["ok"] * (calls + other)
    assert peak["anthropic"] == min(limit, calls)
    assert peak["openai"] == other


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_a_bad_limit_is_a_configuration_error(bad: Any) -> None:
    with pytest.raises(ConfigurationError, match="must be an int >= 1"):
        ProviderLimits({"openai": bad})


# -- the agent ---------------------------------------------------------------------------


def test_agent_with_a_list_of_models_falls_back_and_closes_what_it_built() -> None:
    built: dict[str, Closing] = {}
    failing = ScriptedDriver([[OVERLOADED]], name="anthropic")

    def factory(spec: str) -> Any:
        if spec.startswith("anthropic/"):
            return failing
        built[spec] = Closing(spec)
        return built[spec]

    async def main() -> tuple[str, str, int]:
        agent = Agent(["anthropic/claude-sonnet-4-5", "openai/gpt-4.1"], driver_factory=factory)
        result = await agent.run("hi")
        name = agent._resolve_driver().name
        await agent.aclose()
        return result.output, name, built["openai/gpt-4.1"].closed

    output, name, closed = asyncio.run(main())
    assert output == "from openai/gpt-4.1" and closed == 1
    assert name == "fallback(anthropic/claude-sonnet-4-5, openai/gpt-4.1)"


def test_agent_prices_each_turn_at_its_model_and_budgets_at_the_dearest() -> None:
    agent = Agent(["anthropic/claude-sonnet-4-5", "openai/gpt-4.1"], max_cost=1.0)
    sonnet = find_model_price("anthropic/claude-sonnet-4-5")
    assert sonnet is not None and sonnet.tiers  # its rates above 200k prompt tokens
    assert agent.prices == {"claude-sonnet-4-5": sonnet, "gpt-4.1": find_model_price("gpt-4.1")}
    # each rate at its dearest, long-prompt tiers included; the smallest window
    assert agent.config.price == ModelPrice(
        6.0, 22.5, 0.6, 7.5, cache_write_1h=12.0, context_window=200_000
    )
    assert agent.config.prices == agent.prices  # the loop's ledger charges per model too
    with pytest.raises(ConfigurationError, match="max_cost needs a price"):
        Agent(["anthropic/claude-sonnet-4-5", "ollama/llama3"], max_cost=1.0)
    partly = Agent(["anthropic/claude-sonnet-4-5", "ollama/llama3"])
    assert partly.prices is None and partly.config.price is None  # unknown, never partial
    flat = ModelPrice(1.0, 1.0)
    chosen = Agent(["anthropic/claude-sonnet-4-5", "openai/gpt-4.1"], price=flat)
    assert (chosen.prices, chosen.config.price, chosen.config.prices) == (None, flat, None)
    single = Agent("anthropic/claude-sonnet-4-5")
    assert single.config.prices is None and "prices" not in single.config.to_wire()


# -- the invariant, over any chain -----------------------------------------------------------

_NEXT_MAY_ANSWER = (ErrorCode.CONTEXT_OVERFLOW, ErrorCode.UNSUPPORTED_CONTENT)
"""The codes the default rule falls back on whether or not they are retryable."""

OUTCOMES = st.one_of(
    st.just(("answer",)),
    st.tuples(
        st.just("early"),
        st.sampled_from(list(ErrorCode)),
        st.booleans(),  # retryable
        st.booleans(),  # after a message_start
    ),
    st.tuples(st.just("late"), st.booleans()),
    st.tuples(st.just("raise"), st.booleans()),
)


def _script(outcome: tuple[Any, ...], n: int) -> list[Any]:
    start = MessageStart(f"msg_{n}", f"model-{n}", timestamp=1)
    if outcome[0] == "answer":
        return text_turn(f"answer {n}", message_id=f"msg_{n}", model=f"model-{n}")
    if outcome[0] == "early":
        _, code, retryable, started = outcome
        failure = ErrorReceived(f"early {n}", code.value, retryable, timestamp=1)
        return [start, failure] if started else [failure]
    if outcome[0] == "late":
        return [start, TextDelta(f"part {n}", 0, timestamp=1), error(ErrorCode.OVERLOADED, True)]
    busy = AgentError(f"raised {n}", code=ErrorCode.OVERLOADED)
    busy.retryable = outcome[1]  # type: ignore[attr-defined]
    return [busy]


@settings(max_examples=150, deadline=None)
@given(st.lists(OUTCOMES, min_size=1, max_size=4))
def test_the_engine_sees_exactly_one_attempt_never_a_mix(outcomes: list[Any]) -> None:
    """The events are those of the first attempt that answered or failed in a way the rule
    keeps (its error naming the failures before it), and no driver after it is asked."""
    drivers = [ScriptedDriver([_script(o, n)], name=f"d{n}") for n, o in enumerate(outcomes)]
    events = run(FallbackDriver(drivers))
    check_stream(events)
    deciding = next(
        n
        for n, o in enumerate(outcomes)
        if n == len(outcomes) - 1
        or (
            not (o[0] == "early" and (o[2] or o[1] in _NEXT_MAY_ANSWER))
            and not (o[0] == "raise" and o[1])
        )
    )
    assert [len(d.requests) for d in drivers] == [1] * (deciding + 1) + [0] * (
        len(drivers) - deciding - 1
    )
    starts = [e for e in events if isinstance(e, MessageStart)]
    assert all(s.message_id == f"msg_{deciding}" for s in starts) and len(starts) <= 1
    texts = text_of(events)
    assert texts in ("", f"answer {deciding}", f"part {deciding}")
    if isinstance(events[-1], ErrorReceived) and deciding:
        assert "(fell back after d0: " in events[-1].message or outcomes[deciding][0] == "late"


def test_a_driver_whose_receive_raises_at_once_is_passed_over_too() -> None:
    spent = ScriptedDriver([], name="anthropic")  # receive raises ScriptExhaustedError
    chain = FallbackDriver(
        [spent, ScriptedDriver([answer("ok", "gpt")], name="openai")],
        should_fall_back=lambda e: True,
    )
    assert text_of(run(chain)) == "ok"
