"""The scripted model: which step answers a request, malformed scripts, determinism.

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import asyncio
import json
import pathlib
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import ModelRequest
from agentcore._app.code.script import (
    DEMO_SCRIPT,
    NO_REPLY,
    Step,
    load_script,
    next_step,
    script_driver,
)
from agentcore.agent import Agent
from agentcore.errors import ConfigurationError
from agentcore.events import AssistantMessage, UserMessage

SCRIPT = load_script(
    {
        "replies": [
            {"when": ["fix", "bug"], "steps": [{"text": "one"}, {"text": "two"}]},
            {"when": "", "steps": [{"thinking": "hm", "text": "anything"}]},
        ],
        "otherwise": "nothing left",
        "delay": 0.5,
    }
)


def user(text: str) -> UserMessage:
    return UserMessage("u", text)


def reply(text: str) -> AssistantMessage:
    return AssistantMessage("m", "scripted", [], stop_reason="tool_use")


def test_the_latest_user_message_picks_the_reply_and_replies_since_pick_the_step() -> None:
    assert next_step(SCRIPT, [user("Fix it")]) == (Step("one"), 0)
    assert next_step(SCRIPT, [user("a BUG"), reply("")]) == (Step("two"), 1)
    assert next_step(SCRIPT, [user("fix"), reply(""), reply("")]) == (Step("nothing left"), 2)
    steered = [user("fix"), reply(""), user("something else")]
    assert next_step(SCRIPT, steered) == (Step("anything", "hm"), 1)
    assert next_step(SCRIPT, []) == (Step("nothing left"), 0)
    assert load_script({"replies": []}).otherwise == NO_REPLY
    assert SCRIPT.delay == 0.5


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        ({"replies": {}}, "expected {"),
        ({"replies": [{"steps": "x"}]}, 'replies[0]: expected {"when"'),
        ({"replies": [{"steps": [{"txt": "x"}]}]}, "unknown key(s) ['txt']"),
        ({"replies": [{"steps": [{}]}]}, "a step needs text, thinking or tools"),
        ({"replies": [{"steps": [{"text": 3}]}]}, "steps[0].text: expected a string"),
        ({"replies": [{"steps": [{"tools": [{"args": {}}]}]}]}, 'tools[0]: expected {"name"'),
        ({"replies": [{"steps": [{"tools": [{"name": "x", "args": []}]}]}]}, "args: expected an"),
        ({"replies": [{"steps": [{"text": "x", "pause": -1}]}]}, "pause: expected a number"),
        ({"replies": [{"when": [1], "steps": []}]}, "when: expected a string or a list"),
        ({"otherwise": 3}, "otherwise: expected a string"),
        ({"delay": "fast"}, "delay: expected a number"),
        (
            {"replies": [{"steps": [{"thinking": "x", "tools": [{"name": "x"}]}]}]},
            "thinking goes in a step without tools",
        ),
    ],
)
def test_malformed_scripts_say_where_and_what(script: Any, problem: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        load_script(script)
    assert problem in str(caught.value)


def test_script_files(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read it"):
        load_script(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ConfigurationError, match=r"bad\.json: not JSON"):
        load_script(tmp_path / "bad.json")
    (tmp_path / "ok.json").write_text(json.dumps({"replies": [{"steps": [{"text": "hi"}]}]}))
    assert load_script(tmp_path / "ok.json").replies[0][1] == (Step("hi"),)
    assert load_script(DEMO_SCRIPT).replies[0][1][2].tools[0][0] == "edit"


async def _events(messages: list[Any]) -> list[Any]:
    driver = script_driver(attrs.evolve(SCRIPT, delay=0.0))
    return [e async for e in driver.receive(ModelRequest(tuple(messages)))]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["fix", "bug", "other", None]), min_size=1, max_size=6))
def test_the_same_request_gets_the_same_reply_in_any_driver(said: list[str | None]) -> None:
    """What resuming in another process relies on: a fresh driver answers a request as
    the first one did, timestamps aside."""
    messages = [user(s) if s is not None else reply("") for s in said]
    first, second = asyncio.run(_events(messages)), asyncio.run(_events(messages))
    strip = [(type(e), {k: v for k, v in vars_of(e).items() if k != "timestamp"}) for e in first]
    assert strip == [
        (type(e), {k: v for k, v in vars_of(e).items() if k != "timestamp"}) for e in second
    ]


def vars_of(event: Any) -> dict[str, Any]:
    return {name: getattr(event, name) for name in event.__slots__ if not name.startswith("_")}


def test_tool_call_ids_are_unique_across_a_conversation() -> None:
    steps = [{"tools": [{"name": "echo", "args": {}}, {"name": "echo", "args": {}}]}] * 3
    script = load_script({"replies": [{"steps": [*steps, {"text": "ok"}]}]})

    def echo() -> str:
        """Nothing."""
        return "."

    agent = Agent(script_driver(script), tools=[echo])

    async def main() -> None:
        await agent.prompt("a")
        await agent.prompt("b")

    asyncio.run(main())
    ids = [c.tool_call_id for m in agent.state.messages for c in getattr(m, "tool_calls", ())]
    assert len(ids) == 12 and len(set(ids)) == 12
    usage = [m.usage for m in agent.state.messages if isinstance(m, AssistantMessage)]
    assert all(u.input_tokens > 0 and u.output_tokens > 0 for u in usage)
