"""The Agent API surface: busy errors, subscriptions, state, stream, callbacks, options."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentcore.agent import Agent, AgentResult
from agentcore.drivers.scripted import Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.errors import AgentBusyError, ConfigurationError, ProtocolError
from agentcore.events import LAYERS, AssistantMessage, ToolResultMessage, TurnResponse
from agentcore.journal import MemoryJournal, replay
from agentcore.loop import AgentEnd, ToolExecutionStart, create_conversation_machine
from agentcore.presenters.recording import RecordingPresenter
from agentcore.pricing import ModelPrice
from agentcore.state_machine import AgentState, AgentStateMachine
from agentcore.testing import assert_replays
from agentcore.tools import tool


@tool
async def echo(text: str) -> str:
    """Echo the text."""
    await asyncio.sleep(0.01)
    return text


def test_prompt_while_running_raises_busy_and_says_what_to_do() -> None:
    agent = Agent(ScriptedDriver([[Pause(0.05), *text_turn("hi")]]))

    async def main() -> None:
        task = asyncio.create_task(agent.prompt("one"))
        await asyncio.sleep(0.01)
        assert agent.state.is_streaming
        with pytest.raises(AgentBusyError, match=r"steer\(msg\).*follow_up\(msg\)"):
            await agent.prompt("two")
        with pytest.raises(AgentBusyError):
            agent.reset()
        await task

    asyncio.run(main())
    assert not agent.state.is_streaming
    assert agent.state.messages[-1].text == "hi"


def test_subscribe_unsubscribe_and_failing_subscriber_is_isolated() -> None:
    agent = Agent(ScriptedDriver([text_turn("a"), text_turn("b")]))
    seen: list[str] = []

    def bad(event: Any) -> None:
        raise ValueError("subscriber bug")

    agent.subscribe(bad)
    unsubscribe = agent.subscribe(lambda e: seen.append(e.type))
    asyncio.run(agent.prompt("x"))
    assert seen[0] == "agent_start" and seen[-1] == "agent_end"
    unsubscribe()
    unsubscribe()  # idempotent
    count = len(seen)
    asyncio.run(agent.prompt("y"))
    assert len(seen) == count
    assert agent.state.messages[-1].text == "b"


def test_run_callbacks_and_result() -> None:
    turns = [tool_turn([("t1", "echo", {"text": "ping"})], usage={"output_tokens": 5})]
    turns.append(text_turn("pong", usage={"output_tokens": 7}))
    agent = Agent(ScriptedDriver(turns), tools=[echo])
    tokens: list[str] = []
    calls: list[ToolExecutionStart] = []
    results: list[Any] = []
    done: list[AgentResult] = []
    result = asyncio.run(
        agent.run(
            "go",
            on_token=tokens.append,
            on_tool_call=calls.append,
            on_tool_result=results.append,
            on_complete=done.append,
        )
    )
    assert result.output == "pong" and "".join(tokens) == "pong"
    assert [c.tool_name for c in calls] == ["echo"]
    assert isinstance(results[0], ToolResultMessage) and results[0].result == "ping"
    assert [c.tool_call_id for c in result.tool_calls] == ["t1"]
    assert result.usage.output_tokens == 12
    assert done == [result] and result.duration > 0
    assert len(result.messages) == 4


def test_run_error_calls_on_error_and_raises() -> None:
    agent = Agent(ScriptedDriver([]))
    errors: list[Any] = []
    with pytest.raises(Exception) as info:
        asyncio.run(agent.run("hi", on_error=errors.append))
    assert errors == [info.value]
    assert "add a turn to the script" in str(info.value)


def test_stream_yields_events_until_agent_end() -> None:
    agent = Agent(ScriptedDriver([text_turn("streamed")]))

    async def main() -> list[Any]:
        return [event async for event in agent.stream("hi")]

    events = asyncio.run(main())
    assert events[0].type == "agent_start"
    assert isinstance(events[-1], AgentEnd) and events[-1].reason == "completed"


def test_leaving_a_stream_early_aborts_the_run() -> None:
    agent = Agent(ScriptedDriver([[*text_turn("a long answer", chunk=1)[:3], Pause(5)]]))

    async def main() -> None:
        async for event in agent.stream("hi"):
            if event.type == "text_delta":
                break

    asyncio.run(asyncio.wait_for(main(), 2))
    assert agent.state.error is not None and agent.state.error.code == "ABORTED"


def test_continue_after_error_and_rules() -> None:
    agent = Agent(ScriptedDriver([[ConnectionError("down")], text_turn("recovered")]))
    with pytest.raises(ProtocolError, match="cannot continue"):
        asyncio.run(agent.continue_())
    asyncio.run(agent.prompt("hi"))
    # a driver that raises (no code of its own) fails with DRIVER_ERROR
    assert agent.state.error is not None and agent.state.error.code == "DRIVER_ERROR"
    asyncio.run(agent.continue_())
    assert agent.state.error is None
    assert agent.state.messages[-1].text == "recovered"
    with pytest.raises(ProtocolError):
        asyncio.run(agent.continue_())


def test_per_run_limits_and_unknown_options() -> None:
    turns = [tool_turn([(f"t{i}", "echo", {"text": "x"})]) for i in range(3)]
    agent = Agent(ScriptedDriver(turns), tools=[echo], max_iterations=1)
    with pytest.raises(ConfigurationError, match="unknown run option"):
        asyncio.run(agent.prompt("x", max_iteration=3))
    with pytest.raises(ConfigurationError, match="timeout must be a number of seconds > 0"):
        asyncio.run(agent.prompt("x", timeout=-1))
    with pytest.raises(ConfigurationError, match="max_iterations must be an int > 0 or None"):
        asyncio.run(agent.prompt("x", max_iterations="3"))
    asyncio.run(agent.prompt("go", max_iterations=2))
    assert agent.state.error is not None and "max_iterations=2" in agent.state.error.message


def test_model_string_uses_the_driver_factory_lazily() -> None:
    made: list[str] = []

    def factory(name: str) -> ScriptedDriver:
        made.append(name)
        return ScriptedDriver([text_turn("from factory")])

    agent = Agent("scripted/test", driver_factory=factory)
    assert made == []
    asyncio.run(agent.prompt("hi"))
    assert made == ["scripted/test"]
    with pytest.raises(ConfigurationError, match="model must be"):
        Agent(42)  # type: ignore[arg-type]


def test_reset_and_initial_messages() -> None:
    first = AssistantMessage("a0", "m", [{"type": "text", "text": "earlier"}])
    driver = ScriptedDriver([text_turn("a"), text_turn("b")])
    agent = Agent(driver, messages=[first], system_prompt="sys")
    agent.follow_up("queued")
    asyncio.run(agent.prompt("hi"))
    assert driver.requests[0].messages[0] == first
    assert driver.requests[0].system_prompt == "sys"
    agent.reset()
    assert agent.state.messages == () and agent.state.follow_ups == ()


def _tool_run(**kw: Any) -> tuple[Agent, RecordingPresenter]:
    presenter = RecordingPresenter()
    turns = [tool_turn([("t1", "echo", {"text": "ping"})], model="claude-sonnet-4-5")]
    turns.append(text_turn("pong", model="claude-sonnet-4-5", usage={"output_tokens": 7}))
    agent = Agent(
        "anthropic/claude-sonnet-4-5",
        driver_factory=lambda _: ScriptedDriver(turns),
        tools=[echo],
        presenters=[presenter],
        journal=MemoryJournal(),
        agent_id="a1",
        **kw,
    )
    asyncio.run(agent.prompt("go"))
    return agent, presenter


def test_presenters_get_every_layer_in_order() -> None:
    _, presenter = _tool_run()
    assert presenter.agent_ids() == ["a1"]
    layers = [LAYERS[t] for t in presenter.types()]
    assert set(layers) == {"stream", "message", "state", "turn", "loop"}
    types = presenter.types()
    expected = [
        "agent_start",
        "user_message",
        "turn_request",
        "message_start",
        "tool_use_stop",
        "tool_call_message",
        "message_stop",
        "assistant_message",
        "tool_execution_start",
        "tool_result",
        "tool_result_message",
        "tool_completed",
        "tool_execution_end",
        "turn_end",
        "turn_start",
        "text_delta",
        "turn_response",
        "agent_end",
    ]
    at = 0
    for name in expected:  # a subsequence of what was delivered, in this order
        at = types.index(name, at) + 1
    assert types[-1] == "agent_end"


def test_agent_journal_replays_to_every_delivered_output() -> None:
    agent, presenter = _tool_run()
    assert agent.journal is not None
    machine = lambda: create_conversation_machine(agent.prices)  # noqa: E731
    assert [o for _, o in replay(agent.journal, machine)] == presenter.outputs()
    assert_replays(agent, presenter.outputs())
    inputs = [e.event for e in agent.journal.entries()]
    assert inputs[0].type == "agent_configured"
    # every stream-layer input is delivered; the user message comes from the prompt,
    # the conversation_close from the loop at the run's end
    delivered = [o for o in presenter.outputs() if LAYERS[o.type] == "stream"]
    assert [e for e in inputs if LAYERS[e.type] == "stream"] == [
        o for o in delivered if o.type not in ("user_message", "conversation_close")
    ]


def test_turn_cost_comes_from_the_price_table_for_a_known_model() -> None:
    agent, presenter = _tool_run(max_cost=1.0)
    (turn,) = presenter.outputs(type=TurnResponse)
    assert turn.cost == pytest.approx(7 * 15.0 / 1e6)  # claude-sonnet-4-5 output price
    assert agent.config.price is not None and agent.config.price.output == 15.0


def test_max_cost_without_a_price_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"max_cost needs a price for model x/unknown"):
        Agent("x/unknown", max_cost=1.0)
    presenter = RecordingPresenter()
    agent = Agent(
        "x/unknown",
        driver_factory=lambda _: ScriptedDriver([text_turn("hi")]),
        presenters=[presenter],
    )
    with pytest.raises(ConfigurationError, match="pass price=ModelPrice"):
        asyncio.run(agent.prompt("hi", max_cost=0.5))
    asyncio.run(agent.prompt("hi"))
    (turn,) = presenter.outputs(type=TurnResponse)
    assert turn.cost is None
    priced = Agent("x/unknown", price=ModelPrice(input=1.0, output=1.0), max_cost=1.0)
    assert priced.prices == {"unknown": ModelPrice(input=1.0, output=1.0)}


def test_calls_the_loop_answers_itself_reach_the_core_layers() -> None:
    """An unknown tool and invalid arguments are never executed, yet the core layers must
    see them answered: otherwise the state layer waits for them forever."""
    presenter = RecordingPresenter()
    calls = [("t1", "nope", {}), ("t2", "echo", {"text": 5}), ("t3", "echo", {"text": "ok"})]
    agent = Agent(
        ScriptedDriver([tool_turn(calls), text_turn("done")]),
        tools=[echo],
        presenters=[presenter],
        journal=MemoryJournal(),
        agent_id="a1",
    )
    asyncio.run(agent.prompt("go"))
    failed = [o.tool_call_id for o in presenter.outputs(type="tool_failed")]
    completed = [o.tool_call_id for o in presenter.outputs(type="tool_completed")]
    assert sorted(failed) == ["t1", "t2"] and completed == ["t3"]
    ends = presenter.outputs(type="conversation_end")
    assert [e.reason for e in ends] == ["completed"]
    machine = AgentStateMachine()
    for output in presenter.outputs():
        machine.process(output)
    assert machine.state is AgentState.IDLE
    assert agent.journal is not None
    assert_replays(agent, presenter.outputs())


def test_aclose_closes_a_driver_the_agent_built_but_not_one_passed_in() -> None:
    class Closable(ScriptedDriver):
        closed = 0

        async def aclose(self) -> None:
            self.closed += 1

    built = Closable([text_turn("hi")])
    agent = Agent("anthropic/claude-sonnet-4-5", driver_factory=lambda _: built)
    passed = Closable([text_turn("hi")])
    other = Agent(passed)

    async def main() -> None:
        for a in (agent, other):
            await a.prompt("x")
            await a.aclose()

    asyncio.run(main())
    assert (built.closed, passed.closed) == (1, 0)
