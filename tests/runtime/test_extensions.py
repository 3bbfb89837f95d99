"""Extensions: hooks chained in order, blocking before_tool_call, dispose removing exactly
what was added, tools registered at run time, and the three shipped extensions."""

from __future__ import annotations

import asyncio
import datetime
import logging
import pathlib
import subprocess
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent, MemoryJournal, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import ToolResult, UserMessage
from agentcore.extensions import (
    Block,
    Continue,
    ExtensionAPI,
    bash_guard,
    context_info,
    tool_logger,
)
from agentcore.presenters.recording import RecordingPresenter
from agentcore.testing import assert_replays

ran: list[str] = []


@tool
def bash(command: str) -> str:
    """Pretend to run a shell command (the test records what would have run)."""
    ran.append(command)
    return f"ran {command}"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _agent(turns: list[Any], **options: Any) -> tuple[Agent, ScriptedDriver, RecordingPresenter]:
    driver, rec = ScriptedDriver(turns), RecordingPresenter()
    agent = Agent(driver, presenters=[rec], journal=MemoryJournal(), tools=[add, bash], **options)
    return agent, driver, rec


def _echo(name: str) -> Any:
    def echo(x: str) -> str:
        """Echo x."""
        return x

    return tool(name=name)(echo)


def _texts(request: Any) -> list[str]:
    return [getattr(m, "content", None) or m.type for m in request.messages]


def test_transform_context_hooks_chain_after_the_agents_own_in_order() -> None:
    def own(messages: tuple[Any, ...]) -> list[Any]:
        return [*messages, UserMessage(message_id="own", content="own")]

    def ext(tag: str) -> Any:
        def extension(api: ExtensionAPI) -> None:
            api.on(
                "transform_context",
                lambda ms: [*ms, UserMessage(message_id=tag, content=tag)],
            )

        return extension

    agent, driver, _ = _agent([text_turn("ok")], transform_context=own)
    agent.use(ext("first"), kind="extension")
    agent.use(ext("second"), kind="extension")
    asyncio.run(agent.run("hi"))
    assert _texts(driver.requests[0]) == ["hi", "own", "first", "second"]
    assert next(m.content for m in agent.state.messages if hasattr(m, "content")) == "hi"
    assert len(agent.state.messages) == 2  # the history itself is untouched


def test_a_blocking_before_tool_call_prevents_execution_and_the_model_sees_why() -> None:
    ran.clear()
    later: list[str] = []

    def extension(api: ExtensionAPI) -> None:
        api.on("before_tool_call", lambda call, t: Block("not today"))
        api.on("before_tool_call", lambda call, t: later.append("second hook") or Continue())

    turns = [tool_turn([("c1", "bash", {"command": "ls"})]), text_turn("ok")]
    agent, driver, rec = _agent(turns)
    agent.use(extension, kind="extension")
    asyncio.run(agent.run("list"))
    assert ran == [] and later == []  # the first block wins
    (result,) = rec.outputs(type="tool_result")
    assert result.result == "not today" and result.is_error
    tool_message = driver.requests[1].messages[-1]
    assert "not today" in str(tool_message)
    assert_replays(agent, rec.outputs())


def test_before_tool_call_may_change_the_arguments_and_after_tool_result_the_result() -> None:
    def extension(api: ExtensionAPI) -> None:
        api.on("before_tool_call", lambda call, t: Continue({"a": 40, "b": 2}))

        async def shout(call: Any, result: ToolResult) -> ToolResult:
            return attrs.evolve(result, result=f"{result.result}!")

        api.on("after_tool_result", shout)
        api.on("after_tool_result", lambda call, r: attrs.evolve(r, result=f"<{r.result}>"))

    turns = [tool_turn([("c1", "add", {"a": 1, "b": 1})]), text_turn("ok")]
    agent, _, rec = _agent(turns)
    agent.use(extension, kind="extension")
    asyncio.run(agent.run("add"))
    assert [r.result for r in rec.outputs(type="tool_result")] == ["<42!>"]


def test_dispose_removes_exactly_what_the_extension_added() -> None:
    cleaned: list[str] = []
    seen_a: list[str] = []
    seen_b: list[str] = []

    def ext_a(api: ExtensionAPI) -> Any:
        api.on("event", lambda o: seen_a.append(o.type))
        api.on("transform_context", lambda ms: [*ms, UserMessage(message_id="a", content="A")])
        api.register_tool(_echo("echo"))
        return lambda: cleaned.append("a")

    def ext_b(api: ExtensionAPI) -> None:
        api.on("event", lambda o: seen_b.append(o.type))
        api.on("transform_context", lambda ms: [*ms, UserMessage(message_id="b", content="B")])

    agent, driver, _ = _agent([text_turn("1"), text_turn("2")])
    dispose_a = agent.use(ext_a, kind="extension")
    agent.use(ext_b, kind="extension")
    asyncio.run(agent.run("x"))
    assert "echo" in [t.name for t in driver.requests[0].tools]
    assert _texts(driver.requests[0])[-2:] == ["A", "B"]
    dispose_a()
    dispose_a()  # idempotent
    assert cleaned == ["a"]
    before_a = len(seen_a)
    asyncio.run(agent.run("y"))
    assert "echo" not in [t.name for t in driver.requests[1].tools]
    assert _texts(driver.requests[1])[-1] == "B" and "A" not in _texts(driver.requests[1])
    assert len(seen_a) == before_a and len(seen_b) > before_a


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["event", "transform_context", "tool"]), max_size=8))
def test_dispose_leaves_the_agent_as_it_was(additions: list[str]) -> None:
    agent, _, _ = _agent([])
    hooks = agent._hooks

    def before() -> tuple[Any, ...]:
        return (
            hooks.transform_context,
            hooks.before_tool_call,
            hooks.after_tool_result,
            tuple(t.name for t in agent.config.tools),
            agent._outlet.subs.active,
        )

    baseline = before()

    def extension(api: ExtensionAPI) -> None:
        for i, kind in enumerate(additions):
            if kind == "tool":
                api.register_tool(_echo(f"t{i}"))
            elif kind == "event":
                api.on("event", lambda o: None)
            else:
                api.on("transform_context", lambda ms: ms)

    dispose = agent.use(extension, kind="extension")
    dispose()
    assert before() == baseline


def test_a_failing_hook_is_an_error_result_and_a_report_not_a_crash() -> None:
    failures: list[Any] = []

    def extension(api: ExtensionAPI) -> None:
        def broken(call: Any, t: Any) -> Any:
            raise ValueError("hook bug")

        api.on("before_tool_call", broken)

    turns = [tool_turn([("c1", "add", {"a": 1, "b": 1})]), text_turn("fine")]
    agent, _, rec = _agent(turns)
    agent.on_error(failures.append)
    agent.use(extension, kind="extension")
    assert asyncio.run(agent.run("go")).output == "fine"
    (result,) = rec.outputs(type="tool_result")
    assert result.is_error and "hook bug" in str(result.result)
    assert failures[0].source == "extension"


def test_an_async_transform_context_fails_the_call_with_a_named_error() -> None:
    async def slow(messages: Any) -> Any:
        return messages

    agent, _, _ = _agent([text_turn("x")])
    agent.use(lambda api: api.on("transform_context", slow) and None, kind="extension")
    with pytest.raises(Exception, match="async; it must be a plain function"):
        asyncio.run(agent.run("hi"))


def test_steer_and_follow_up_from_an_extension() -> None:
    def extension(api: ExtensionAPI) -> None:
        def on_event(output: Any) -> None:
            if output.type == "tool_execution_start":
                api.steer("steered")
                api.follow_up("followed")

        api.on("event", on_event)

    turns = [tool_turn([("c1", "add", {"a": 1, "b": 1})]), text_turn("a"), text_turn("b")]
    agent, driver, _ = _agent(turns)
    agent.use(extension, kind="extension")
    asyncio.run(agent.run("go"))
    assert "steered" in _texts(driver.requests[1])
    assert "followed" in _texts(driver.requests[2])


def test_register_tool_is_journaled_so_replay_knows_it() -> None:
    turns = [tool_turn([("c1", "mul", {"a": 6, "b": 7})]), text_turn("42")]
    agent, _, rec = _agent(turns)

    @tool
    def mul(a: int, b: int) -> int:
        """Multiply."""
        return a * b

    agent.use(lambda api: api.register_tool(mul) and None, kind="extension")
    asyncio.run(agent.run("6*7"))
    assert [r.result for r in rec.outputs(type="tool_result")] == ["42"]
    assert_replays(agent, rec.outputs())
    with pytest.raises(Exception, match="already has a tool named 'mul'"):
        agent.use(lambda api: api.register_tool(mul) and None, kind="extension")


# -- the shipped extensions ------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /",
        "rm -fr /",
        "rm -rf -- /",
        "rm -rf ~/",
        "git push -f origin main",
        "git push --force-with-lease origin master",
        ":(){ :|:& };:",
        "mkfs.ext4 /dev/sda1",
        "dd if=/dev/zero of=/dev/sda",
        "sudo bash -c 'rm -rf /'",
    ],
)
def test_bash_guard_blocks_destructive_commands(command: str) -> None:
    ran.clear()
    turns = [tool_turn([("c1", "bash", {"command": command})]), text_turn("ok")]
    agent, _, rec = _agent(turns, extensions=[bash_guard()])
    asyncio.run(agent.run("do it"))
    (result,) = rec.outputs(type="tool_result")
    assert ran == [] and result.is_error and "bash guard" in str(result.result)


def test_bash_guard_lets_ordinary_commands_run() -> None:
    ran.clear()
    turns = [tool_turn([("c1", "bash", {"command": "rm -rf ./build && ls"})]), text_turn("ok")]
    agent, _, _ = _agent(turns, extensions=[bash_guard()])
    asyncio.run(agent.run("clean"))
    assert ran == ["rm -rf ./build && ls"]


def test_tool_logger_logs_start_and_end_with_a_duration(caplog: Any) -> None:
    entries: list[Any] = []
    turns = [tool_turn([("c1", "add", {"a": 1, "b": 2})]), text_turn("3")]
    agent, _, _ = _agent(turns, extensions=[tool_logger(entries.append), tool_logger()])
    with caplog.at_level(logging.INFO, logger="agentcore.tools"):
        asyncio.run(agent.run("go"))
    assert [e["type"] for e in entries] == ["start", "end"]
    assert entries[0]["args"] == {"a": 1, "b": 2} and entries[0]["tool_name"] == "add"
    assert entries[1]["is_error"] is False and entries[1]["duration_ms"] >= 0
    assert "tool add (c1) ended after" in caplog.text


def test_context_info_injects_directory_branch_and_time(tmp_path: pathlib.Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "feature-x", str(tmp_path)], check=True)
    moment = datetime.datetime(2026, 11, 23, 9, 30, tzinfo=datetime.UTC)
    agent, driver, _ = _agent([text_turn("ok")])
    agent.use(context_info(tmp_path / ".", now=lambda: moment))
    asyncio.run(agent.run("where am I?"))
    note = driver.requests[0].messages[0].content
    assert f"Working directory: {tmp_path}" in note
    assert "Git branch: feature-x" in note and "2026-11-23T09:30:00+00:00" in note
    assert len(agent.state.messages) == 2  # not written into the history


def test_context_info_outside_a_repository_has_no_branch(tmp_path: pathlib.Path) -> None:
    agent, driver, _ = _agent([text_turn("ok")])
    agent.use(context_info(tmp_path))
    asyncio.run(agent.run("hi"))
    assert "Git branch" not in driver.requests[0].messages[0].content
