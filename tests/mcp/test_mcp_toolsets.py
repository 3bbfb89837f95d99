"""MCP servers owned by agents (``Agent(toolsets=[server])``), against real SDK servers:
lazy start, listing, list_changed mid-run, a server that cannot start or dies mid-run,
elicitation through the run's pause (journaled, replayed exactly), the guard, sharing,
closing, many calls at once, and no token in the journal."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import ToolResultMessage
from agentcore.journal import JsonlJournal, replay
from agentcore.loop import ElicitationRequest
from agentcore.mcp import MCPServer, MCPServerError, load_mcp_servers
from agentcore.presenters.recording import RecordingPresenter


def _results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_an_agent_starts_its_server_on_the_first_run_and_stops_it_on_close(
    stdio: Callable[..., MCPServer],
) -> None:
    server = stdio(prefix="ev")
    turns = [tool_turn([("t1", "ev_add", {"a": 2, "b": 3}), ("t2", "ev_pid", {})]), text_turn("5")]

    async def main() -> tuple[Agent, int]:
        agent = Agent(ScriptedDriver(turns), toolsets=[server])
        assert not server.connected  # nothing starts before the first run
        result = await agent.run("add")
        assert result.output == "5" and server.connected
        assert {"ev_add", "ev_echo", "ev_image"} <= {t.name for t in agent.config.tools}
        pid = int(_results(agent)[1].result)
        assert _alive(pid)
        await agent.aclose()
        assert not server.connected
        return agent, pid

    agent, pid = asyncio.run(main())
    assert _results(agent)[0].result == "5"
    assert not _alive(pid) or _zombie(pid)


def _zombie(pid: int) -> bool:
    status = pathlib.Path(f"/proc/{pid}/status")
    return status.exists() and "zombie" in status.read_text()


def test_list_changed_mid_run_gives_the_next_model_call_the_new_tool(
    stdio: Callable[..., MCPServer],
) -> None:
    model = ScriptedDriver(
        [
            tool_turn([("t1", "add_tool", {"name": "late"})]),
            tool_turn([("t2", "late", {})], message_id="m2"),
            text_turn("done", message_id="m3"),
        ]
    )

    async def main() -> Agent:
        async with Agent(model, toolsets=[stdio()]) as agent:
            await agent.run("grow")
            return agent

    agent = asyncio.run(main())
    assert [m.result for m in _results(agent)] == ["added late", "I am late"]
    assert "late" in {t.name for t in model.requests[1].tools}
    assert "late" not in {t.name for t in model.requests[0].tools}


def test_a_server_that_cannot_start_is_reported_and_the_agent_runs_on(
    stdio: Callable[..., MCPServer],
) -> None:
    ghost = MCPServer.stdio("/nonexistent/mcp-server", name="ghost", env={"TOKEN": "tok-ghost-123"})
    failures: list[Any] = []
    turns = [tool_turn([("t1", "add", {"a": 1, "b": 1})]), text_turn("2"), text_turn("again")]

    async def main() -> Agent:
        async with Agent(ScriptedDriver(turns), toolsets=[ghost, stdio()]) as agent:
            agent.on_error(failures.append)
            assert (await agent.run("add")).output == "2"
            assert (await agent.run("again")).output == "again"  # tried again, reported again
            return agent

    agent = asyncio.run(main())
    assert [m.result for m in _results(agent)] == ["2"]
    assert [(f.source, f.name, type(f.error)) for f in failures] == [
        ("toolset", "ghost", MCPServerError)
    ] * 2
    assert failures[0].error.kind == "connect" and "tok-ghost-123" not in str(failures[0].error)


def test_a_server_that_dies_mid_run_gives_error_results_and_comes_back(
    stdio: Callable[..., MCPServer],
) -> None:
    turns = [
        tool_turn([("t1", "pid", {})]),
        tool_turn([("t2", "crash", {})], message_id="m2"),
        tool_turn([("t3", "pid", {})], message_id="m3"),
        text_turn("survived", message_id="m4"),
    ]

    async def main() -> Agent:
        async with Agent(ScriptedDriver(turns), toolsets=[stdio()]) as agent:
            assert (await agent.run("crash it")).output == "survived"
            return agent

    before, crashed, after = _results(asyncio.run(main()))
    assert crashed.is_error and crashed.details["kind"] == "lost"
    assert crashed.details["error_code"] == "MCP_CONNECTION_LOST"
    assert "'everything'" in str(crashed.result)
    assert not after.is_error and after.result != before.result  # a new process


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_servers_question_pauses_the_run_until_the_application_answers(
    protocol: str, http_server: Any, tmp_path: pathlib.Path
) -> None:
    """The server's ``elicitation/create`` (2026-07-28: inside the call; 2025: a request
    of its own) reaches the agent as an ``elicitation_request``; the run pauses with the
    call still running and the call's 0.5 s deadline stopped; the answer resumes it."""
    path = tmp_path / "journal.jsonl"
    recorder = RecordingPresenter()
    server = http_server.server(name="people", protocol=protocol, timeout=0.5)
    turns = [tool_turn([("t1", "greet_someone", {"question": "Who are you?"})]), text_turn("hi")]

    async def main() -> tuple[Any, ElicitationRequest, Agent]:
        async with Agent(
            ScriptedDriver(turns),
            toolsets=[server],
            journal=JsonlJournal(path),
            presenters=[recorder],
            agent_id="a",
        ) as agent:
            paused = await agent.run("greet")
            (asked,) = agent.state.pending_elicitations
            await asyncio.sleep(1.0)  # longer than the call's deadline: it is stopped
            await agent.answer_elicitation(asked.elicitation_id, "accept", {"name": "Ada"})
            await agent.drain()
            return paused, asked, agent

    paused, asked, agent = asyncio.run(main())
    assert paused.status == "awaiting_elicitation"
    assert (asked.source, asked.message, asked.tool_call_id) == ("people", "Who are you?", "t1")
    assert asked.schema is not None and asked.schema["required"] == ["name"]
    ((result),) = _results(agent)
    assert (result.result, result.is_error) == ("hello Ada", False)
    assert [o for _, o in replay(path)] == recorder.outputs()


def test_declining_a_servers_question(http_server: Any) -> None:
    turns = [tool_turn([("t1", "greet_someone", {"question": "Name?"})]), text_turn("ok")]

    async def main() -> Agent:
        async with Agent(ScriptedDriver(turns), toolsets=[http_server.server()]) as agent:
            await agent.run("greet")
            (asked,) = agent.state.pending_elicitations
            await agent.answer_elicitation(asked.elicitation_id, "decline")
            return agent

    (result,) = _results(asyncio.run(main()))
    assert result.is_error  # the server's tool needed the name


def test_aborting_while_a_server_waits_for_the_user_cancels_its_call(http_server: Any) -> None:
    turns = [tool_turn([("t1", "greet_someone", {"question": "Name?"})])]

    async def main() -> Agent:
        async with Agent(ScriptedDriver(turns), toolsets=[http_server.server()]) as agent:
            await agent.run("greet")
            agent.abort()
            began = time.monotonic()
            await agent.wait()
            assert time.monotonic() - began < 2
            return agent

    agent = asyncio.run(main())
    (result,) = _results(agent)
    assert result.is_error and result.details == {"error_code": "ABORTED"}
    assert not agent.state.pending_elicitations and agent.state.error is not None


def test_the_guard_refuses_a_call_before_it_reaches_the_server(http_server: Any) -> None:
    def guard(name: str, args: Any) -> str | None:
        return "it never ends" if name == "hang" else None

    server = http_server.server(guard=guard)
    turns = [tool_turn([("t1", "hang", {}), ("t2", "add", {"a": 1, "b": 2})]), text_turn("ok")]

    async def main() -> tuple[Agent, Any]:
        async with Agent(ScriptedDriver(turns), toolsets=[server]) as agent:
            before = (await server.call_tool("stats")).details["structured_content"]
            await agent.run("go")
            after = (await server.call_tool("stats")).details["structured_content"]
            assert after == before  # hang never started on the server
            return agent, after

    agent, _ = asyncio.run(main())
    refused, added = _results(agent)
    assert refused.is_error and "refused: it never ends" in str(refused.result)
    assert refused.details == {"error_code": "TOOL_REJECTED", "server": "everything-http"}
    assert added.result == "3"


def test_a_raising_guard_refuses(http_server: Any) -> None:
    def guard(name: str, args: Any) -> str | None:
        raise KeyError("oops")

    turns = [tool_turn([("t1", "add", {"a": 1, "b": 2})]), text_turn("ok")]

    async def main() -> Agent:
        async with Agent(ScriptedDriver(turns), toolsets=[http_server.server(guard=guard)]) as a:
            await a.run("go")
            return a

    (result,) = _results(asyncio.run(main()))
    assert result.is_error and "the guard failed (KeyError" in str(result.result)


def test_two_agents_share_a_server_and_the_last_to_close_stops_it(http_server: Any) -> None:
    server = http_server.server()

    def turns(tag: str) -> list[Any]:
        calls = [(f"{tag}{i}", "echo", {"text": f"{tag}{i}", "delay": 0.2}) for i in range(3)]
        return [tool_turn(calls), text_turn(f"{tag} done"), text_turn(f"{tag} again")]

    async def main() -> list[Agent]:
        agents = [Agent(ScriptedDriver(turns(tag)), toolsets=[server]) for tag in "ab"]
        began = time.monotonic()
        await asyncio.gather(*(a.run("go") for a in agents))
        assert time.monotonic() - began < 2.5  # side by side
        await agents[0].aclose()
        assert server.connected  # the other agent still uses it
        assert (await agents[1].run("again")).output == "b again"
        await agents[1].aclose()
        assert not server.connected
        return agents

    agents = asyncio.run(main())
    for tag, agent in zip("ab", agents, strict=True):
        assert [m.result for m in _results(agent)] == [f"{tag}{i}" for i in range(3)]


def test_a_hundred_calls_of_one_turn_run_side_by_side(stdio: Callable[..., MCPServer]) -> None:
    calls = [(f"t{i}", "echo", {"text": f"n{i}", "delay": 0.3}) for i in range(100)]

    async def main() -> tuple[Agent, float]:
        async with Agent(
            ScriptedDriver([tool_turn(calls), text_turn("ok")]), toolsets=[stdio()]
        ) as a:
            began = time.monotonic()
            await a.run("many")
            return a, time.monotonic() - began

    agent, elapsed = asyncio.run(main())
    assert [m.result for m in _results(agent)] == [f"n{i}" for i in range(100)]
    assert elapsed < 10  # one after the other would take 30 s


def test_tokens_never_reach_the_journal(own_http_server: Any, tmp_path: pathlib.Path) -> None:
    """The server's token is in a header; the server dies mid-call and cannot be reached
    again: every error the model and the journal get names the server, never the token."""
    path = tmp_path / "journal.jsonl"
    secret = "tok-journal-0123456789abcdef"
    server = own_http_server.server(headers={"Authorization": f"Bearer {secret}"}, timeout=5)
    turns = [
        tool_turn([("t1", "crash", {})]),
        tool_turn([("t2", "add", {"a": 1, "b": 1})], message_id="m2"),
        text_turn("gone", message_id="m3"),
    ]

    async def main() -> Agent:
        agent = Agent(ScriptedDriver(turns), toolsets=[server], journal=JsonlJournal(path))
        async with agent:
            await agent.run("crash")
        return agent

    agent = asyncio.run(main())
    assert all(m.is_error for m in _results(agent))
    assert secret not in path.read_text()


def test_an_agent_never_closed_leaves_no_session_behind_its_event_loop() -> None:
    """An agent that is never closed: its server's session ends with the event loop."""
    script = str(pathlib.Path(__file__).parent / "servers" / "everything.py")
    server = MCPServer.stdio(sys.executable, [script], name="leaky")

    async def main() -> None:
        agent = Agent(ScriptedDriver([text_turn("hi")]), toolsets=[server])
        await agent.run("hi")
        assert server.connected

    asyncio.run(main())
    assert not server.connected


@pytest.mark.parametrize(
    ("transport", "protocol"),
    [("http", "auto"), ("http", "legacy"), ("stdio", "auto"), ("stdio", "legacy")],
)
def test_questions_of_calls_side_by_side_reach_the_calls_that_caused_them(
    transport: str, protocol: str, stdio: Callable[..., MCPServer], http_server: Any
) -> None:
    """Each question names the call that caused it: inside the call on 2026-07-28
    sessions, by the HTTP request it came with on 2025 ones. A 2025 stdio session does not
    say which call asked: with two in flight, the server is answered with an error."""
    make = http_server.server if transport == "http" else stdio
    calls = [(f"t{i}", "greet_someone", {"question": f"Q{i}?"}) for i in range(2)]

    async def main() -> tuple[Agent, list[ElicitationRequest]]:
        server = make(protocol=protocol)
        async with Agent(
            ScriptedDriver([tool_turn(calls), text_turn("ok")]), toolsets=[server]
        ) as a:
            result = await a.run("go")
            if legacy_stdio:  # each answer returns once the run ends or pauses again
                asked: list[ElicitationRequest] = []
                while a.state.pending_elicitations:
                    question = a.state.pending_elicitations[0]
                    asked.append(question)
                    await a.answer_elicitation(
                        question.elicitation_id, "accept", {"name": question.message}
                    )
                return a, asked
            while result.status == "awaiting_elicitation" and len(a.state.pending_elicitations) < 2:
                await asyncio.sleep(0.05)  # the second question is on its way
            asked = list(a.state.pending_elicitations)
            for question in asked:
                await a.answer_elicitation(
                    question.elicitation_id, "accept", {"name": question.message}
                )
            return a, asked

    legacy_stdio = (transport, protocol) == ("stdio", "legacy")
    agent, asked = asyncio.run(main())
    results = _results(agent)
    if legacy_stdio:
        # A question that comes while both calls are in flight is refused; under load the
        # first may come before the second call is sent, and then reaches its call.
        by_call = {r.tool_call_id: r for r in results}
        assert len(by_call) == 2 and len(asked) <= 1
        for question in asked:
            assert by_call.pop(question.tool_call_id).result == f"hello {question.message}"
        assert all(r.is_error and "nobody can answer" in str(r.result) for r in by_call.values())
        return
    assert sorted((q.tool_call_id, q.message) for q in asked) == [("t0", "Q0?"), ("t1", "Q1?")]
    assert [r.result for r in results] == ["hello Q0?", "hello Q1?"]


def test_servers_from_a_configuration_file_serve_an_agent_with_approval(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``mcpServers`` file (its ``${VAR}`` from the environment) gives the agent its
    servers; a tool that needs approval pauses the run as any other does."""
    script = pathlib.Path(__file__).parent / "servers" / "everything.py"
    config = tmp_path / "mcp.json"
    entry = {
        "command": "${PYTHON}",
        "args": [str(script)],
        "env": {"AGENTCORE_TEST_VALUE": "${SECRET_VALUE}"},
    }
    config.write_text(json.dumps({"mcpServers": {"ev": entry}}))
    monkeypatch.setenv("PYTHON", sys.executable)
    monkeypatch.setenv("SECRET_VALUE", "from-the-config-42")
    servers = load_mcp_servers(config, prefix_with_name=True, requires_approval=["env"])
    turns = [
        tool_turn([("t1", "ev_env", {"name": "AGENTCORE_TEST_VALUE"})]),
        text_turn("read it"),
    ]

    async def main() -> tuple[Any, Agent]:
        async with Agent(ScriptedDriver(turns), toolsets=list(servers.values())) as agent:
            paused = await agent.run("read the value")
            assert [c.tool_call_id for c in agent.state.pending_approvals] == ["t1"]
            await agent.approve("t1")
            return paused, agent

    paused, agent = asyncio.run(main())
    assert paused.status == "awaiting_approval"
    assert [m.result for m in _results(agent)] == ["from-the-config-42"]
    assert agent.state.messages[-1].text == "read it"
