"""Option mistakes raise ``ConfigurationError`` naming the option and the value, before
anything runs; error texts never repeat their class name, name a journal by its path,
never echo a database password, and give the CLI's ``--api-key`` hint only for a missing
key (the new user's repros: agent_option_validation, error_text_hints,
structured_native_hint).

Tests the private module ``agentcore._durable.worker``: dbos_url, which must never show a
password."""

from __future__ import annotations

import asyncio
import dataclasses
import pathlib
from typing import Any

import pytest

from agentcore import Agent, JsonlJournal, tool
from agentcore._durable.worker import dbos_url
from agentcore.cli import main
from agentcore.drivers.registry import get_driver
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.errors import ConfigurationError


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return city


@dataclasses.dataclass
class City:
    name: str


BAD: list[tuple[dict[str, Any], str]] = [
    (
        {"journal": "chat.jsonl"},
        "journal must be a Journal, got 'chat.jsonl'; for a file write "
        "journal=JsonlJournal('chat.jsonl')",
    ),
    ({"journal": pathlib.Path("c.jsonl")}, "journal=JsonlJournal('c.jsonl')"),
    ({"tools": lookup}, "tools must be a list, got the Tool 'lookup'; write tools=[lookup]"),
    ({"presenters": print}, "presenters must be a list, got <built-in function print>"),
    ({"output_guardrails": lambda reply: None}, "output_guardrails must be a list, got <function"),
    ({"toolsets": "server"}, "toolsets must be a list, got 'server'"),
    ({"temperature": "hot"}, "temperature must be a number, got 'hot'"),
    ({"temperature": True}, "temperature must be a number, got True"),
    ({"system_prompt": ["a", "b"]}, "system_prompt must be a str, got ['a', 'b']; join the parts"),
    ({"thinking_level": "max"}, "thinking_level must be one of ['off', 'minimal'"),
]


@pytest.mark.parametrize(("options", "says"), BAD)
def test_a_bad_option_is_named_with_its_value(options: dict[str, Any], says: str) -> None:
    driver = ScriptedDriver([text_turn("hi")])
    with pytest.raises(ConfigurationError) as caught:
        Agent(driver, **options)
    assert says in str(caught.value)
    assert "ConfigurationError" not in str(caught.value)
    assert driver.requests == []


def test_good_options_still_pass() -> None:
    agent = Agent(
        ScriptedDriver([text_turn("hi")]),
        tools=(lookup,),
        presenters=[],
        temperature=0,
        system_prompt="be brief",
        thinking_level="high",
        journal=None,
    )
    assert asyncio.run(agent.run("hi")).output == "hi"


@pytest.mark.parametrize("mode", ["json", "native", "tool"])
def test_an_output_mode_without_an_output_type_is_named(mode: str) -> None:
    driver = ScriptedDriver([text_turn("hi")])
    with pytest.raises(ConfigurationError, match=f"output_mode='{mode}' needs an output_type"):
        asyncio.run(Agent(driver).run("hi", output_mode=mode))
    assert driver.requests == []


def test_a_driver_that_cannot_be_built_says_why_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for model, says in (
        ("antropic/claude-sonnet-4-5", "unknown provider 'antropic'"),
        ("openai/gpt-4.1", "no API key: set OPENAI_API_KEY"),
    ):
        with pytest.raises(ConfigurationError) as caught:
            asyncio.run(Agent(model).run("hi"))
        assert str(caught.value).startswith(says)


def test_resuming_a_journal_with_nothing_in_it_names_its_path(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "chat.jsonl"
    with pytest.raises(ConfigurationError) as caught:
        asyncio.run(Agent.resume(JsonlJournal(path), agent_id="chat-1", model=ScriptedDriver([])))
    assert str(caught.value) == f"journal {path} holds no entry of agent 'chat-1'"


def test_a_database_url_that_is_no_url_is_refused_without_its_password() -> None:
    with pytest.raises(ValueError) as caught:
        dbos_url("host=127.0.0.1 user=app password=s3cret dbname=app")
    assert "s3cret" not in str(caught.value) and "libpq" in str(caught.value)
    with pytest.raises(ValueError) as caught:
        dbos_url("mysql://u:s3cret@h/d")
    assert "s3cret" not in str(caught.value) and "a mysql:// URL" in str(caught.value)


def test_the_chat_command_hints_at_api_key_only_for_a_missing_key(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["chat", "--model", "antropic/claude-sonnet-4-5"]) == 2
    err = capsys.readouterr().err
    assert "unknown provider 'antropic'" in err and "--api-key" not in err
    assert main(["chat", "--model", "gpt4"]) == 2
    assert "--api-key" not in capsys.readouterr().err
    assert main(["chat", "--model", "openai/gpt-4.1"]) == 2
    assert "(on the command line: --api-key KEY)" in capsys.readouterr().err


def test_native_output_on_a_compatible_server_says_how_to_enable_it() -> None:
    agent = Agent(get_driver("llamacpp/qwen", base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(ConfigurationError, match=r"output_modes=\('native', 'tool', 'prompted'\)"):
        asyncio.run(agent.run("x", output_type=City, output_mode="native"))
