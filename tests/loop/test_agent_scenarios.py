"""End-to-end scenarios: Agent + conversation processor + ScriptedDriver + real tools."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentcore.agent import Agent
from agentcore.drivers.scripted import Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.errors import AbortedError, LimitExceededError, ProviderError
from agentcore.events import AssistantMessage, ToolResultMessage, UserMessage
from agentcore.journal import MemoryJournal
from agentcore.loop import (
    AgentEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    history_problems,
)
from agentcore.pricing import ModelPrice
from agentcore.testing import assert_replays
from agentcore.tools import ToolContext, tool


@tool
async def sleepy(seconds: float, label: str, ctx: ToolContext) -> str:
    """Sleep, then answer with the label."""
    ctx.on_update({"sleeping": seconds})
    await asyncio.sleep(seconds)
    return label


@tool
async def boom() -> str:
    """Always fails."""
    raise RuntimeError("kaboom")


@tool(sequential=True)
async def step(seconds: float, label: str) -> str:
    """A tool that must run alone."""
    await asyncio.sleep(seconds)
    return label


@tool(requires_approval=True)
async def delete(path: str) -> str:
    """Delete a file (needs approval)."""
    return f"deleted {path}"


TOOLS = [sleepy, boom, step, delete]


_DELIVERED: dict[int, list[Any]] = {}


def _agent(turns: list[Any], **kw: Any) -> tuple[Agent, ScriptedDriver, list[Any]]:
    driver = ScriptedDriver(turns)
    agent = Agent(driver, tools=TOOLS, journal=MemoryJournal(), **kw)
    events: list[Any] = []
    agent.subscribe(events.append)
    _DELIVERED[id(agent)] = events
    return agent, driver, events


def _check(agent: Agent) -> None:
    """Every run leaves a provider-valid history and a journal that replays to exactly
    what was delivered, every layer, and to the same state."""
    assert history_problems(agent.state.messages) == []
    assert_replays(agent, _DELIVERED[id(agent)])


def _results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


def test_text_only_reply() -> None:
    agent, driver, events = _agent([text_turn("Hello there, friend")])
    result = asyncio.run(agent.run("hi", on_token=(tokens := []).append))
    assert result.output == "Hello there, friend"
    assert "".join(tokens) == "Hello there, friend"
    assert [type(m) for m in result.messages] == [UserMessage, AssistantMessage]
    assert driver.requests[0].messages[0].content == "hi"
    assert [e.type for e in events if e.type in ("agent_start", "agent_end")] == [
        "agent_start",
        "agent_end",
    ]
    _check(agent)


def test_two_parallel_calls_finishing_in_reverse_order() -> None:
    calls = [("t1", "sleepy", {"seconds": 0.05, "label": "slow"})]
    calls.append(("t2", "sleepy", {"seconds": 0.0, "label": "fast"}))
    agent, driver, events = _agent([tool_turn(calls), text_turn("done")])
    asyncio.run(agent.prompt("go"))
    ends = [e.tool_call_id for e in events if isinstance(e, ToolExecutionEnd)]
    assert ends == ["t2", "t1"]
    assert [(r.tool_call_id, r.result) for r in _results(agent)] == [("t1", "slow"), ("t2", "fast")]
    sent = driver.requests[1].messages
    assert [m.tool_call_id for m in sent if isinstance(m, ToolResultMessage)] == ["t1", "t2"]
    assert any(isinstance(e, ToolExecutionUpdate) for e in events)
    _check(agent)


def test_a_tool_that_raises_and_an_unknown_tool() -> None:
    turns = [tool_turn([("t1", "boom", {}), ("t2", "nope", {})]), text_turn("sorry")]
    agent, _, _ = _agent(turns)
    result = asyncio.run(agent.run("go"))
    assert result.output == "sorry"
    first, second = _results(agent)
    assert first.is_error and first.result == "Tool 'boom' failed: RuntimeError: kaboom"
    assert second.is_error and "Unknown tool 'nope'" in second.result
    _check(agent)


def test_invalid_arguments_are_not_executed() -> None:
    agent, _, events = _agent(
        [tool_turn([("t1", "sleepy", {"seconds": "soon"})]), text_turn("fixed")]
    )
    asyncio.run(agent.prompt("go"))
    (result,) = _results(agent)
    assert "at $.seconds: 'soon' is not of type 'number'" in result.result
    assert "'label' is a required property" in result.result
    assert not any(isinstance(e, ToolExecutionUpdate) for e in events), "never ran"
    _check(agent)


def test_steering_during_the_first_of_two_tools() -> None:
    calls = [("t1", "step", {"seconds": 0.05, "label": "one"})]
    calls.append(("t2", "step", {"seconds": 0.0, "label": "two"}))
    agent, driver, _ = _agent([tool_turn(calls), text_turn("ok, changing course")])

    def steer_on_start(event: Any) -> None:
        if isinstance(event, ToolExecutionStart) and event.tool_call_id == "t1":
            agent.steer("actually, stop")

    agent.subscribe(steer_on_start)
    asyncio.run(agent.prompt("go"))
    one, two = _results(agent)
    assert (one.result, one.is_error) == ("one", False)
    assert two.is_error and "Skipped" in two.result
    assert driver.requests[1].messages[-1].content == "actually, stop"
    assert agent.state.messages[-2].content == "actually, stop"
    _check(agent)


def test_follow_ups_run_after_the_agent_would_stop() -> None:
    agent, driver, _ = _agent([text_turn("first"), text_turn("second")])
    agent.follow_up("and then?")
    result = asyncio.run(agent.run("hi"))
    assert result.output == "second"
    assert driver.requests[0].messages[-1].content == "hi"
    assert driver.requests[1].messages[-1].content == "and then?"
    assert [m.text for m in result.messages if isinstance(m, AssistantMessage)] == [
        "first",
        "second",
    ]
    assert agent.state.follow_ups == ()
    _check(agent)


def test_max_iterations() -> None:
    turns = [tool_turn([(f"t{i}", "sleepy", {"seconds": 0, "label": "x"})]) for i in range(3)]
    agent, driver, _ = _agent(turns, max_iterations=2)
    with pytest.raises(LimitExceededError) as info:
        asyncio.run(agent.run("loop"))
    assert info.value.code == "MAX_ITERATIONS_EXCEEDED"
    assert len(driver.requests) == 2
    _check(agent)


def test_max_tokens_and_max_cost() -> None:
    usage = {"input_tokens": 600, "output_tokens": 600}
    agent, _, _ = _agent([text_turn("big", usage=usage)], max_tokens=1000)
    with pytest.raises(LimitExceededError, match="max_tokens=1000"):
        asyncio.run(agent.run("hi"))
    price = ModelPrice(input=1.0, output=1.0)
    agent, _, _ = _agent([text_turn("pricey", usage=usage)], max_cost=0.001, price=price)
    with pytest.raises(LimitExceededError) as info:
        asyncio.run(agent.run("hi"))
    assert info.value.code == "MAX_COST_EXCEEDED"
    _check(agent)


def test_timeout_stops_a_slow_tool() -> None:
    turn = tool_turn([("t1", "sleepy", {"seconds": 5, "label": "never"})])
    agent, _, _ = _agent([turn], timeout=0.1)
    with pytest.raises(LimitExceededError) as info:
        asyncio.run(asyncio.wait_for(agent.run("go"), 2))
    assert info.value.code == "TIMEOUT"
    (result,) = _results(agent)
    assert result.is_error and "cancelled" in result.result
    _check(agent)


def test_abort_while_streaming_keeps_the_partial_message() -> None:
    turn = text_turn("partial answer", chunk=4)
    turn.insert(3, Pause(5))
    agent, _, events = _agent([turn])
    agent.steer("queued for later")

    async def main() -> None:
        task = asyncio.create_task(agent.run("go"))
        while sum(e.type == "text_delta" for e in events) < 2:
            await asyncio.sleep(0.001)
        agent.abort()
        with pytest.raises(AbortedError):
            await asyncio.wait_for(task, 2)

    asyncio.run(main())
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.incomplete
    assert last.text.startswith("part") and last.text != "partial answer"
    assert agent.state.steering == ()
    _check(agent)


def test_abort_while_a_tool_runs() -> None:
    agent, _, events = _agent([tool_turn([("t1", "sleepy", {"seconds": 5, "label": "x"})])])
    agent.subscribe(lambda e: isinstance(e, ToolExecutionStart) and agent.abort())
    asyncio.run(asyncio.wait_for(agent.prompt("go"), 2))
    assert agent.state.error is not None and agent.state.error.code == "ABORTED"
    (result,) = _results(agent)
    assert result.is_error and result.details == {"error_code": "ABORTED"}
    assert next(e for e in events if isinstance(e, AgentEnd)).reason == "aborted"
    _check(agent)


def test_abort_before_reply_returns_steering_to_its_queue() -> None:
    agent, _, _ = _agent([[Pause(5), *text_turn("late")]])

    async def main() -> None:
        agent.steer("please")
        task = asyncio.create_task(agent.prompt("go"))
        await asyncio.sleep(0.02)
        assert agent.state.steering == ()
        agent.abort()
        await asyncio.wait_for(task, 2)

    asyncio.run(main())
    assert [m.content for m in agent.state.steering] == ["please"]
    assert [m.content for m in agent.state.messages] == ["go"]
    _check(agent)


def test_approval_and_resume() -> None:
    turns = [tool_turn([("d1", "delete", {"path": "/tmp/x"}), ("d2", "delete", {"path": "/"})])]
    agent, _, _ = _agent([*turns, text_turn("done")])
    result = asyncio.run(agent.run("clean up"))
    assert result.status == "awaiting_approval"
    assert [c.tool_call_id for c in agent.state.pending_approvals] == ["d1", "d2"]

    async def decide() -> None:
        await agent.approve("d1")
        assert agent.state.pending_approvals  # still waiting for d2
        await agent.reject("d2", "not the root")

    asyncio.run(decide())
    first, second = _results(agent)
    assert first.result == "deleted /tmp/x"
    assert second.is_error and "not the root" in second.result
    assert agent.state.messages[-1].text == "done"
    _check(agent)


def test_driver_failure_becomes_provider_error() -> None:
    agent, _, _ = _agent([[*text_turn("cut")[:2], ConnectionError("reset by peer")]])
    with pytest.raises(ProviderError) as info:
        asyncio.run(agent.run("hi"))
    assert "reset by peer" in info.value.message
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.incomplete
    _check(agent)
