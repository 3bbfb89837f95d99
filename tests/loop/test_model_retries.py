"""A failed model call: retried by the loop's policy, or continued by hand."""

from __future__ import annotations

import asyncio
from typing import Any

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import AssistantMessage, ErrorReceived, UserMessage
from agentcore.journal import MemoryJournal
from agentcore.loop import ModelCallRetry, history_problems
from agentcore.testing import assert_replays

CUT = ErrorReceived("connection reset", "CONNECTION_ERROR", retryable=True)


def _run(agent: Agent, *prompts: str) -> list[Any]:
    delivered: list[Any] = []
    agent.subscribe(delivered.append)

    async def main() -> None:
        for prompt in prompts:
            await agent.prompt(prompt)

    asyncio.run(main())
    return delivered


def test_a_retryable_failure_after_the_first_token_is_retried_with_backoff() -> None:
    cut_off = [*text_turn("Hello wor", chunk=3)[:3], CUT]
    with_call = [*tool_turn([("t1", "nope", {})])[:-2], CUT]  # a call cut off mid-reply
    driver = ScriptedDriver([cut_off, with_call, text_turn("Hello world")])
    agent = Agent(driver, model_retries=2, retry_delay=0.01, journal=MemoryJournal())
    delivered = _run(agent, "hi")
    retries = [o for o in delivered if type(o) is ModelCallRetry]
    assert [(r.attempt, r.delay_ms, r.code) for r in retries] == [
        (1, 10, "CONNECTION_ERROR"),
        (2, 20, "CONNECTION_ERROR"),
    ]
    assert [type(m) for m in agent.state.messages] == [UserMessage, AssistantMessage]
    assert agent.state.messages[-1].text == "Hello world" and agent.state.error is None
    assert len(driver.requests) == 3 and driver.requests[2] == driver.requests[0]
    # the cut-off call was closed in every layer, though it never entered the history
    assert [o.tool_call_id for o in delivered if o.type == "tool_result_message"] == ["t1"]
    assert_replays(agent, delivered)


def test_retries_are_off_by_default_and_bounded() -> None:
    failing = [*text_turn("Hi", chunk=1)[:2], CUT]
    agent = Agent(ScriptedDriver([failing]))
    _run(agent, "hi")
    assert agent.state.error is not None and agent.state.error.code == "CONNECTION_ERROR"
    assert getattr(agent.state.error, "retryable", False)
    bounded = Agent(ScriptedDriver([failing, failing]), model_retries=1, retry_delay=0)
    delivered = _run(bounded, "hi")
    assert sum(type(o) is ModelCallRetry for o in delivered) == 1
    assert bounded.state.error is not None
    assert history_problems(bounded.state.messages) == []


def test_a_non_retryable_failure_is_not_retried() -> None:
    fatal = [ErrorReceived("bad request", "PROVIDER_ERROR", retryable=False)]
    agent = Agent(ScriptedDriver([fatal]), model_retries=3, retry_delay=0)
    delivered = _run(agent, "hi")
    assert not [o for o in delivered if type(o) is ModelCallRetry]
    assert agent.state.error is not None and agent.state.error.code == "PROVIDER_ERROR"


def test_continue_after_a_failed_stream_drops_the_cut_off_reply_and_asks_again() -> None:
    driver = ScriptedDriver([[*text_turn("Hel", chunk=1)[:3], CUT], text_turn("Hello")])
    agent = Agent(driver, journal=MemoryJournal())
    delivered = _run(agent, "hi")
    assert isinstance(agent.state.messages[-1], AssistantMessage)
    assert agent.state.messages[-1].incomplete  # what was streamed is kept after a failure

    async def go_on() -> None:
        await agent.continue_()

    asyncio.run(go_on())
    assert [type(m) for m in agent.state.messages] == [UserMessage, AssistantMessage]
    assert agent.state.messages[-1].text == "Hello"
    assert driver.requests[1].messages == driver.requests[0].messages
    assert history_problems(agent.state.messages) == []
    assert delivered
