"""Guardrails: input (alongside the model call, or blocking), output (the final answer
waits for them), tool arguments and results; a tripwire ends the run with
GUARDRAIL_TRIPPED and a well-formed history, and replays without the guardrails."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentcore import Agent, ErrorCode, MemoryJournal, tool
from agentcore.drivers.scripted import Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.guardrails import GuardrailTrippedError, Tripwire, guardrail
from agentcore.loop import AgentResume, CheckOutput, OutputPassed
from agentcore.presenters.recording import RecordingPresenter
from agentcore.testing import assert_replays

ran: list[Any] = []


@tool
def transfer(amount: int) -> str:
    """Move money."""
    ran.append(amount)
    return f"moved {amount}"


def _agent(turns: list[Any], **options: Any) -> tuple[Agent, ScriptedDriver, RecordingPresenter]:
    driver, rec = ScriptedDriver(turns), RecordingPresenter()
    agent = Agent(driver, presenters=[rec], journal=MemoryJournal(), tools=[transfer], **options)
    return agent, driver, rec


def _well_formed(agent: Agent) -> None:
    """Every tool call in the history has exactly one result after it."""
    calls, results = [], []
    for m in agent.state.messages:
        calls += [c.tool_call_id for c in getattr(m, "tool_calls", ())]
        if m.type == "tool_result_message":
            results.append(m.tool_call_id)
    assert sorted(calls) == sorted(results)


def test_an_input_tripwire_mid_stream_cancels_the_model_call() -> None:
    async def no_secrets(messages: Any) -> Tripwire | None:
        await asyncio.sleep(0.05)
        if "password" in messages[0].content:
            return Tripwire("the prompt holds a password")
        return None

    slow = [*text_turn("a", chunk=1), Pause(0.5), *text_turn("never shown")[1:]]
    agent, _, rec = _agent([slow], input_guardrails=[no_secrets])
    with pytest.raises(GuardrailTrippedError, match=r"no_secrets.*password"):
        asyncio.run(agent.run("my password is hunter2"))
    (end,) = rec.outputs(type="agent_end")
    assert end.code == ErrorCode.GUARDRAIL_TRIPPED
    assert "never shown" not in "".join(d.text for d in rec.outputs(type="text_delta"))
    _well_formed(agent)
    assert_replays(agent, rec.outputs())


def test_a_passing_input_guardrail_runs_alongside_and_the_run_waits_for_it() -> None:
    order: list[str] = []

    async def slow_check(messages: Any) -> None:
        await asyncio.sleep(0.1)
        order.append("checked")

    agent, _, rec = _agent([text_turn("hello")], input_guardrails=[slow_check])
    agent.subscribe("text_delta", lambda o: order.append("streamed"))
    result = asyncio.run(agent.run("hi"))
    assert result.output == "hello"
    assert order[0] == "streamed" and order[-1] == "checked"  # in parallel, not before
    assert rec.outputs(type="agent_end")[0].reason == "completed"


def test_tools_wait_for_the_input_guardrails() -> None:
    ran.clear()

    async def slow_no(messages: Any) -> Tripwire:
        await asyncio.sleep(0.1)
        return Tripwire("no transfers today")

    turns = [tool_turn([("c1", "transfer", {"amount": 5})]), text_turn("done")]
    agent, _, _ = _agent(turns, input_guardrails=[slow_no])
    with pytest.raises(GuardrailTrippedError):
        asyncio.run(agent.run("send 5"))
    assert ran == []  # the tool never ran
    _well_formed(agent)


def test_a_blocking_input_guardrail_stops_the_model_from_being_called() -> None:
    def deny(messages: Any) -> Tripwire:
        return Tripwire("off topic")

    agent, driver, _ = _agent([text_turn("x")], input_guardrails=[guardrail(deny, blocking=True)])
    with pytest.raises(GuardrailTrippedError, match="off topic"):
        asyncio.run(agent.run("hi"))
    assert driver.requests == []


def test_an_output_guardrail_judges_the_final_answer() -> None:
    def polite(message: Any) -> Tripwire | None:
        return Tripwire("rude answer") if "stupid" in message.text else None

    agent = Agent(
        ScriptedDriver([text_turn("fine answer"), text_turn("stupid answer")]),
        presenters=[rec := RecordingPresenter()],
        journal=MemoryJournal(),
        output_guardrails=[polite],
    )

    async def go() -> str:
        first = await agent.run("1")
        with pytest.raises(GuardrailTrippedError, match=r"polite.*final answer.*rude"):
            await agent.run("2")
        return first.output

    assert asyncio.run(go()) == "fine answer"
    ends = rec.outputs(type="agent_end")
    assert [e.reason for e in ends] == ["completed", "error"]
    assert agent.state.messages[-1].text == "stupid answer"  # kept: history is well-formed
    assert_replays(agent, rec.outputs())


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_passed_answer_is_journaled_stamped_by_the_agents_clock(asynchronous: bool) -> None:
    def plain(message: Any) -> None:
        return None

    async def awaited(message: Any) -> None:
        return None

    journal = MemoryJournal()
    agent = Agent(
        ScriptedDriver([text_turn("fine")]),
        journal=journal,
        clock=lambda: 1234,
        output_guardrails=[awaited if asynchronous else plain],
    )
    assert asyncio.run(agent.run("hi")).output == "fine"
    (passed,) = [
        e.event for e in journal.entries(agent.agent_id) if e.event.type == "output_passed"
    ]
    assert passed == OutputPassed(timestamp=1234)


def test_tool_guardrails_check_arguments_and_results() -> None:
    ran.clear()

    def limit(call: Any, result: Any) -> Tripwire | None:
        if result is None and call.input["amount"] > 100:
            return Tripwire("amount over 100")
        if result is not None and "13" in str(result.result):
            return Tripwire("unlucky result")
        return None

    turns = [tool_turn([("c1", "transfer", {"amount": 500})]), text_turn("x")]
    agent, _, rec = _agent(turns, tool_guardrails=[limit])
    with pytest.raises(GuardrailTrippedError, match="arguments: amount over 100"):
        asyncio.run(agent.run("send 500"))
    assert ran == []
    (result,) = rec.outputs(type="tool_result")
    assert result.is_error and "amount over 100" in str(result.result)
    _well_formed(agent)
    assert_replays(agent, rec.outputs())

    turns = [tool_turn([("c1", "transfer", {"amount": 13})]), text_turn("x")]
    agent, _, rec = _agent(turns, tool_guardrails=[limit])
    with pytest.raises(GuardrailTrippedError, match="result: unlucky"):
        asyncio.run(agent.run("send 13"))
    assert ran == [13]
    (result,) = rec.outputs(type="tool_result")
    assert "moved 13" not in str(result.result)  # withheld from the model
    _well_formed(agent)


def test_a_raising_guardrail_trips_and_is_reported() -> None:
    failures: list[Any] = []

    def broken(message: Any) -> None:
        raise RuntimeError("classifier down")

    agent, _, _ = _agent([text_turn("x")], output_guardrails=[broken])
    agent.on_error(failures.append)
    with pytest.raises(GuardrailTrippedError, match="classifier down"):
        asyncio.run(agent.run("hi"))
    assert failures[0].source == "guardrail"


def test_a_guardrail_returning_something_else_is_named() -> None:
    agent, _, _ = _agent([text_turn("x")], output_guardrails=[lambda m: True])
    with pytest.raises(GuardrailTrippedError, match="return None or Tripwire"):
        asyncio.run(agent.run("hi"))


def test_bad_guardrails_are_refused_at_construction() -> None:
    with pytest.raises(TypeError, match="input_guardrails must be callables"):
        Agent(ScriptedDriver([]), input_guardrails=["nope"])


def test_resume_while_checking_asks_again_and_output_passed_completes() -> None:
    agent, _, _ = _agent([], output_guardrails=[lambda m: None])
    state = agent.initial_state()
    journal = MemoryJournal()
    source = Agent(
        ScriptedDriver([text_turn("done")]), journal=journal, output_guardrails=[lambda m: None]
    )
    asyncio.run(source.run("hi"))
    entries = list(journal.entries(source.agent_id))
    cut = next(i for i, e in enumerate(entries) if type(e.event) is OutputPassed)
    for entry in entries[:cut]:
        state, _ = agent.processor(state, entry.event)
    assert state.loop.phase == "checking"
    state, out = agent.processor(state, AgentResume(timestamp=1))
    assert any(type(o) is CheckOutput for o in out)
    state, out = agent.processor(state, OutputPassed(timestamp=2))
    assert state.loop.phase == "idle" and any(
        o.type == "agent_end" for o in out if hasattr(o, "type")
    )


@pytest.mark.parametrize("mode", ["prompted", "tool"])
def test_output_guardrails_judge_a_structured_answer_typed(mode: str) -> None:
    """On a structured-output run the guardrails see the validated answer as its class;
    a trip ends the run before ``agent_output``, a pass gives the typed result."""
    import dataclasses

    @dataclasses.dataclass
    class Quote:
        price: int

    seen: list[Any] = []

    def cheap(answer: Any) -> Tripwire | None:
        seen.append(answer)
        return Tripwire("too dear") if answer.price > 100 else None

    def reply(price: int) -> list[Any]:
        if mode == "tool":
            return tool_turn([(f"q{price}", "Quote", {"price": price})])
        return text_turn(f'{{"price": {price}}}')

    agent, _, rec = _agent([reply(5), reply(500)], output_guardrails=[cheap])

    async def go() -> Any:
        ok = await agent.run("quote", output_type=Quote, output_mode=mode)
        with pytest.raises(GuardrailTrippedError, match=r"cheap.*too dear"):
            await agent.run("again", output_type=Quote, output_mode=mode)
        return ok.output

    assert asyncio.run(go()) == Quote(5)
    assert seen == [Quote(5), Quote(500)]
    assert [o.output for o in rec.outputs(type="agent_output")] == [{"price": 5}]
    assert [e.reason for e in rec.outputs(type="agent_end")] == ["completed", "error"]
    _well_formed(agent)
    assert_replays(agent, rec.outputs())
