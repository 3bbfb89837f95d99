"""agentcore's ``RemoteAgent`` against an A2A server built with the ``a2a-sdk``'s own
classes (``sdk_server.py``, started on 127.0.0.1 by the test): send and stream, a task
that needs input, cancel, a failed task, a server killed mid-stream (an error result
within the timeout, never a hang), a remote agent as a sub-agent whose text arrives in
the parent's stream tagged like a local child's, and a token that never reaches events
or the journal."""

from __future__ import annotations

import asyncio
import json
import pathlib
import subprocess
import sys
import time
from typing import Any

import pytest

from agentcore import Agent
from agentcore.a2a import RemoteAgent
from agentcore.agents import AgentDefinition, AgentRegistry, SubagentEvent
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.errors import ConfigurationError
from agentcore.events import to_dict
from agentcore.journal import MemoryJournal
from agentcore.presenters.recording import RecordingPresenter

from . import sdk_server
from .conftest import bound, serving

SERVER = pathlib.Path(__file__).with_name("sdk_server.py")


def _texts(presenter: RecordingPresenter) -> list[str]:
    return [o.text for o in presenter.outputs() if getattr(o, "type", "") == "text_delta"]


async def test_send_stream_and_input_required() -> None:
    sock, url = bound()
    async with serving(sdk_server.app(url + "/"), sock):
        presenter = RecordingPresenter()
        agent = Agent(RemoteAgent(url, name="sdk-sample"), presenters=[presenter])
        result = await agent.run("hello there")
        assert result.output.strip() == "echo: hello there"
        assert len(_texts(presenter)) == 3  # streamed word by word
        asked = await agent.run("weather please")
        assert asked.output == "Which city?"
        answered = await agent.run("Paris")
        assert answered.output == "weather in Paris: sunny"
        await agent.aclose()


async def test_a_failed_remote_task_is_an_error() -> None:
    sock, url = bound()
    async with serving(sdk_server.app(url + "/"), sock):
        agent = Agent(RemoteAgent(url))
        await agent.prompt("fail please")
        assert agent.state.error is not None
        assert agent.state.error.message == f"remote agent {url} failed: no can do"
        await agent.aclose()


async def test_abort_cancels_the_remote_task() -> None:
    sdk_server.CANCELLED.clear()
    sock, url = bound()
    async with serving(sdk_server.app(url + "/"), sock):
        presenter = RecordingPresenter()
        agent = Agent(RemoteAgent(url), presenters=[presenter])
        running = asyncio.create_task(agent.prompt("slow story"))
        while len(_texts(presenter)) < 3:
            await asyncio.sleep(0.01)
        agent.abort()
        await asyncio.wait_for(running, 5)
        assert agent.state.error is not None and agent.state.error.code == "ABORTED"
        for _ in range(100):
            if sdk_server.CANCELLED:
                break
            await asyncio.sleep(0.02)
        assert sdk_server.CANCELLED, "the remote task was not cancelled"
        await agent.aclose()


async def test_a_server_killed_mid_stream_gives_an_error_within_the_timeout() -> None:
    process = subprocess.Popen([sys.executable, str(SERVER)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    presenter = RecordingPresenter()
    agent = Agent(RemoteAgent(url, idle_timeout=2.0, timeout=30), presenters=[presenter])
    running = asyncio.create_task(agent.prompt("slow story"))
    while len(_texts(presenter)) < 3:
        await asyncio.sleep(0.01)
    process.kill()
    process.wait()
    started = time.monotonic()
    await asyncio.wait_for(running, 10)
    elapsed = time.monotonic() - started
    assert elapsed < 2.0 + 1.5, elapsed
    error = agent.state.error
    assert error is not None
    assert error.message.startswith(f"remote agent {url}")
    await agent.aclose()
    process.stdout.close()


async def test_a_dead_server_is_an_error_at_once() -> None:
    sock, url = bound()
    sock.close()  # nobody listens there
    agent = Agent(RemoteAgent(url, idle_timeout=2.0))
    started = time.monotonic()
    await agent.prompt("anyone?")
    assert time.monotonic() - started < 3
    assert agent.state.error is not None
    assert agent.state.error.message.startswith(f"remote agent {url} failed:")
    await agent.aclose()


async def test_a_remote_agent_as_a_sub_agent_with_a_token() -> None:
    sock, url = bound()
    token = "t0ken-s3cret"
    journal = MemoryJournal()

    def lead(request: Any) -> Any:
        if request.messages[-1].type == "user_message":
            spec = {"agents": [{"agent_type": "remote", "prompt": "hi from the lead"}]}
            return tool_turn([("s1", "spawn_agents", spec)])
        return text_turn(f"lead got: {request.messages[-1].result}")

    def factory(model: str) -> Any:
        if model == "a2a/remote":
            return RemoteAgent(url, name="remote", token=token)
        return FunctionDriver(lead)

    registry = AgentRegistry(
        [
            AgentDefinition("lead", "t/lead", spawnable_agents=["remote"]),
            AgentDefinition("remote", "a2a/remote", display_name="Remote echo"),
        ],
        driver_factory=factory,
    )
    presenter = RecordingPresenter()
    async with serving(sdk_server.app(url + "/", token=token), sock):
        agent = registry.create("lead", journal=journal, presenters=[presenter], agent_id="lead")
        result = await agent.run("go")
        assert "echo: hi from the lead" in result.output
        tagged = [o for o in presenter.outputs() if isinstance(o, SubagentEvent)]
        deltas = [o for o in tagged if o.event.type == "text_delta"]
        assert deltas and {o.lineage.name for o in deltas} == {"Remote echo"}
        await agent.aclose()
    recorded = json.dumps([to_dict(e.event) for e in journal.entries()])
    recorded += json.dumps([to_dict(o) for o in presenter.outputs()], default=str)
    assert token not in recorded
    assert token not in repr(RemoteAgent(url, token=token))


async def test_a_wrong_token_is_an_error_result_without_the_token() -> None:
    sock, url = bound()
    async with serving(sdk_server.app(url + "/", token="right"), sock):
        agent = Agent(RemoteAgent(url, token="wrong-s3cret", idle_timeout=3))
        await agent.prompt("hi")
        error = agent.state.error
        assert error is not None and error.message.startswith(f"remote agent {url} failed")
        assert "wrong-s3cret" not in error.message
        await agent.aclose()


async def test_a_remote_agent_as_a_handoff_target() -> None:
    sock, url = bound()

    def front(request: Any) -> Any:
        return tool_turn([("h1", "transfer_to_remote", {})])

    def factory(model: str) -> Any:
        return RemoteAgent(url, name="remote") if model == "a2a/remote" else FunctionDriver(front)

    registry = AgentRegistry(
        [
            AgentDefinition("front", "t/front", handoffs=["remote"]),
            AgentDefinition("remote", "a2a/remote"),
        ],
        driver_factory=factory,
    )
    async with serving(sdk_server.app(url + "/"), sock):
        agent = registry.create("front", agent_id="chat")
        result = await agent.run("need the remote")
        # the remote's first message is the transcript the handoff lets it see
        assert result.output.startswith("echo: need the remote")
        again = await agent.run("more")
        assert again.output.strip() == "echo: more"
        await agent.aclose()


@pytest.mark.parametrize(
    "url", ["not-a-url", "agent.example.com", "ftp://agent.example.com/", "https://", "http://[::1"]
)
def test_a_url_that_is_not_a_web_address_is_refused_when_built(url: str) -> None:
    """Refused at once, naming the URL and what is expected, not at the first run."""
    with pytest.raises(ConfigurationError) as refused:
        RemoteAgent(url)
    said = str(refused.value)
    assert repr(url) in said and "http:// or https://" in said


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/", "https://agent.example.com/a2a/"])
def test_a_web_address_is_taken(url: str) -> None:
    assert RemoteAgent(url).url == url
