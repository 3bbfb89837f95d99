"""Edges of the one runtime: stamping, cancellation, leaving a stream, stuck presenters,
approvals, tools on create_agent, dependencies, bad input at the boundary.

Tests the private module ``agentcore._runtime.delivery``: a presenter lane's backpressure."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentcore import (
    Agent,
    AgentError,
    BaseDriver,
    ErrorCode,
    MemoryJournal,
    ModelRequest,
    ToolContext,
    create_agent,
    tool,
)
from agentcore.drivers.scripted import Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.errors import AgentBusyError, ConfigurationError, ProtocolError
from agentcore.events import MessageStart, MessageStop, TextDelta, ToolResultMessage, TurnResponse
from agentcore.presenters.recording import RecordingPresenter


class ZeroStamps(BaseDriver):
    """A driver that leaves every timestamp at 0, as docs/drivers.md's example does."""

    async def receive(self, request: ModelRequest) -> AsyncIterator[Any]:  # type: ignore[override]
        yield MessageStart("m1", "zero")
        await asyncio.sleep(0.02)
        yield TextDelta("hi", 0)
        yield MessageStop("end_turn")


def test_a_driver_leaving_timestamps_at_zero_gets_them_stamped() -> None:
    rec = RecordingPresenter()
    agent = create_agent(ZeroStamps(), [rec])
    asyncio.run(agent.receive("hello"))
    assert all(o.timestamp > 1_700_000_000_000 for o in rec.outputs() if hasattr(o, "timestamp"))
    (turn,) = rec.outputs(type=TurnResponse)
    assert 10 <= turn.duration_ms < 5_000  # not -1.8e12


def test_cancelling_the_caller_returns_only_once_the_agent_is_idle() -> None:
    for _ in range(30):
        agent = Agent(ScriptedDriver([[Pause(0.02), *text_turn("x")], text_turn("next")]))

        async def main(agent: Agent = agent) -> None:
            task = asyncio.create_task(agent.prompt("one"))
            await asyncio.sleep(0.005)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert not agent.state.is_streaming
            await agent.prompt("two")  # never AgentBusyError

        asyncio.run(main())
        assert agent.state.messages[-1].text == "next"


def test_breaking_out_of_a_stream_aborts_the_run_and_the_next_run_starts() -> None:
    turn = text_turn("a b c d e f", chunk=1)
    agent = Agent(ScriptedDriver([[*turn[:-2], Pause(5), *turn[-2:]], text_turn("ok")]))

    async def main() -> None:
        async for event in agent.stream("go"):
            if event.type == "text_delta":
                break
        result = await agent.run("again")  # the stream's run was aborted, not left running
        assert result.output == "ok"

    asyncio.run(main())
    assert not agent.state.is_streaming


def test_a_stream_used_as_a_context_manager_closes_the_run() -> None:
    turn = text_turn("abc", chunk=1)
    agent = Agent(ScriptedDriver([[*turn[:-2], Pause(5), *turn[-2:]]]))

    async def main() -> None:
        async with agent.stream("go") as events:
            async for event in events:
                if event.type == "text_delta":
                    break
        assert not agent.state.is_streaming
        assert agent.state.error is not None and agent.state.error.code == "ABORTED"

    asyncio.run(main())


def test_destroy_returns_within_its_bound_while_a_presenter_hangs() -> None:
    class Hanging:
        async def present(self, agent_id: str, output: Any) -> None:
            await asyncio.sleep(3600)

    agent = Agent(ScriptedDriver([text_turn("hi")]), presenters=[Hanging()], close_timeout=0.1)
    failures: list[Any] = []
    agent.on_error(failures.append)

    async def main() -> float:
        await agent.prompt("go")
        started = time.perf_counter()
        await agent.destroy()
        return time.perf_counter() - started

    assert asyncio.run(main()) < 1.0
    assert [f.source for f in failures] == ["presenter"]
    assert "still busy after 0.1 s" in str(failures[0].error)


def test_approvals_name_their_mistakes_and_a_decided_call_is_no_longer_pending() -> None:
    @tool(requires_approval=True)
    async def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    turns = [tool_turn([("d1", "delete", {"path": "a"}), ("d2", "delete", {"path": "b"})])]
    agent = Agent(ScriptedDriver([*turns, text_turn("Done.")]), tools=[delete])

    async def main() -> None:
        await agent.prompt("clean up")
        with pytest.raises(ProtocolError, match=r"no tool call with id 'typo'.*\['d1', 'd2'\]"):
            await agent.approve("typo")
        await agent.approve("d1")
        assert [c.tool_call_id for c in agent.state.pending_approvals] == ["d2"]
        with pytest.raises(ProtocolError, match="'d1' was already approved"):
            await agent.approve("d1")
        with pytest.raises(AgentBusyError, match=r"approve\(\) or reject\(\) \['d2'\]"):
            await agent.prompt("another")
        await agent.reject("d2", "not b")

    asyncio.run(main())
    results = {m.tool_call_id: m for m in agent.state.messages if isinstance(m, ToolResultMessage)}
    assert results["d1"].result == "deleted a" and results["d2"].is_error
    assert agent.state.pending_approvals == ()


def test_create_agent_runs_the_tools_it_is_given() -> None:
    @tool
    async def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    engine = create_agent(
        ScriptedDriver([tool_turn([("t1", "add", {"a": 2, "b": 3})]), text_turn("5")]),
        tools=[add],
    )
    reply = asyncio.run(engine.receive("2 + 3?"))
    assert reply.text == "5"
    (result,) = [o for o in reply.outputs if isinstance(o, ToolResultMessage)]
    assert result.result == "5"


def test_plain_functions_become_tools_and_deps_reach_them() -> None:
    def shout(text: str, ctx: ToolContext[str]) -> str:
        """Shout the text with the agent's suffix."""
        return text.upper() + ctx.deps

    turns = [tool_turn([("t1", "shout", {"text": "hi"})]), text_turn("ok")] * 2
    agent = Agent(ScriptedDriver(turns), tools=[shout], deps="!")

    async def main() -> None:
        await agent.prompt("one")
        await agent.prompt("two", deps="?")

    asyncio.run(main())
    results = [m.result for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert results == ["HI!", "HI?"]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda a: a.run(123), TypeError, "a message is a str, a UserMessage"),
        (lambda a: a.run(None), TypeError, "got None"),
        (lambda a: a.prompt([]), TypeError, "at least one message"),
        (lambda a: a.prompt("x", max_iterations="3"), ConfigurationError, "max_iterations"),
        (lambda a: a.prompt("x", max_turns=3), ConfigurationError, "unknown run option"),
    ],
)
def test_bad_input_is_refused_at_the_boundary_and_nothing_enters_the_history(
    call: Any, error: type[Exception], message: str
) -> None:
    agent = Agent(ScriptedDriver([]))
    with pytest.raises(error, match=message):
        asyncio.run(call(agent))
    assert agent.state.messages == ()


def test_bad_options_are_named() -> None:
    with pytest.raises(
        ConfigurationError, match="max_iterations must be an int > 0 or None, got '3'"
    ):
        Agent(ScriptedDriver([]), max_iterations="3")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="timeout must be a number of seconds"):
        Agent(ScriptedDriver([]), timeout="soon")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="tool"):
        Agent(ScriptedDriver([]), tools=[42])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="snapshot_every must be an int >= 1"):
        Agent(ScriptedDriver([]), snapshot_every=0)


def test_a_failing_context_hook_fails_the_model_call_and_the_agent_goes_on() -> None:
    def convert(messages: Any) -> Any:
        if messages[-1].content == "again":
            raise RuntimeError("convert broke")
        return list(messages)

    driver = ScriptedDriver([text_turn("one"), text_turn("two")])
    agent = Agent(driver, convert_to_llm=convert)

    async def main() -> None:
        assert (await agent.run("hi")).output == "one"
        with pytest.raises(AgentError, match=r"convert_to_llm.*convert broke") as failed:
            await agent.run("again")  # three messages: the hook raises
        assert failed.value.code is ErrorCode.HANDLER_ERROR
        assert len(driver.requests) == 1
        assert (await agent.run("and now")).output == "two"

    asyncio.run(main())
    assert agent.activity.value == "idle"


def test_a_key_a_driver_echoes_reaches_no_presenter_log_or_error(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A server's 401 body quoting the key: scrubbed before any presenter, the log, the
    JSONL file, the raised error and the agent's state see it."""
    from agentcore.errors import ProviderError
    from agentcore.presenters.jsonl import JsonlPresenter
    from agentcore.presenters.logging import LoggingPresenter

    key = "sk-ant-api03-" + "aB_-9" * 18 + "AA"
    failing = ProviderError(f"invalid x-api-key: {key}", retryable=False)
    recorder, path = RecordingPresenter(), tmp_path / "out.jsonl"
    jsonl = JsonlPresenter(str(path))
    agent = Agent(ScriptedDriver([[failing]]), presenters=[recorder, jsonl, LoggingPresenter()])
    caplog.set_level("DEBUG")

    async def main() -> str:
        with pytest.raises(AgentError) as raised:
            await agent.run("hi")
        await agent.aclose()
        return str(raised.value)

    raised = asyncio.run(main())
    jsonl.close()
    assert "invalid x-api-key" in raised and key not in raised
    assert key not in path.read_text() and "invalid x-api-key" in path.read_text()
    assert key not in caplog.text
    assert all(key not in repr(o) for o in recorder.outputs())
    assert agent.state.error is not None and key not in str(agent.state.error)


def test_an_abort_before_the_model_call_started_ends_the_run() -> None:
    """The model task is cancelled before its first step (an abort right after the
    prompt): the run still ends, aborted, instead of waiting for the call forever. (The
    delay makes the driver stream in a task: with none, its answer is fed at once.)"""

    async def main() -> tuple[bool, str]:
        agent = Agent(ScriptedDriver([text_turn("hello")], delay=0.01))
        run = asyncio.create_task(agent.prompt("hi"))
        await asyncio.sleep(0)  # the call is asked for; its task has not run yet
        agent.abort()
        done, _ = await asyncio.wait([run], timeout=5)
        error = agent.state.error
        return bool(done), "" if error is None else error.code

    assert asyncio.run(main()) == (True, "ABORTED")


def test_many_tasks_may_wait_for_one_slow_presenter_lane() -> None:
    """Several tasks waiting below one lane's backpressure mark at once (children of one
    parent do) all wake once it drains; none waits on an event nobody sets."""
    from agentcore._runtime.delivery import PresenterLane

    class Slow:
        async def present(self, agent_id: str, output: Any) -> None:
            await asyncio.sleep(0.001)

    async def main() -> bool:
        lane = PresenterLane(Slow(), lambda failure: None, max_pending=2)
        for i in range(10):
            lane.deliver("a", i)
        waiters = [asyncio.ensure_future(lane.wait_below_mark()) for _ in range(3)]
        done, _ = await asyncio.wait(waiters, timeout=5)
        await lane.drain()
        return len(done) == 3

    assert asyncio.run(main())


def test_relay_delivers_through_interceptors_and_waits_for_a_congested_presenter() -> None:
    """``relay`` is how a sub-agent's events enter a parent's stream: interceptors,
    presenters and subscribers see it, the journal does not, and a congested async
    presenter hands back an awaitable (backpressure)."""
    release = asyncio.Event()
    got: list[Any] = []

    class Slow:
        async def present(self, agent_id: str, output: Any) -> None:
            await release.wait()
            got.append(output)

    journal = MemoryJournal()
    agent = Agent(ScriptedDriver([]), presenters=[Slow()], journal=journal, max_pending=1)
    seen: list[Any] = []
    agent.subscribe(lambda o: seen.append(o))
    agent.intercept(lambda o, deliver: deliver(("tagged", o)))

    async def go() -> None:
        assert agent.relay("first") is None
        waiting = agent.relay("second")
        assert waiting is not None
        release.set()
        await waiting

    asyncio.run(go())
    assert seen == [("tagged", "first"), ("tagged", "second")]
    assert got == seen
    journaled = [type(e.event).__name__ for e in journal.entries(agent.agent_id)]
    assert journaled == ["AgentConfigured"]  # the agent's own configuration, nothing relayed
