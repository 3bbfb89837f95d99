"""Provider-side tools in an agent: declared beside function tools, sent with every
request, journaled with the configuration; their parts kept in the history, reproduced by
replay, shown by the console, left alone by compaction, and never run by the loop."""

from __future__ import annotations

import asyncio
import io
import pathlib
from typing import Any

import pytest
from rich.console import Console

from agentcore import (
    Agent,
    ClearToolResults,
    CodeExecution,
    JsonlJournal,
    WebFetch,
    WebSearch,
    replay,
    tool,
)
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.errors import ConfigurationError
from agentcore.events import (
    AssistantMessage,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    TextPart,
)
from agentcore.loop import LoopConfig, estimate_tokens
from agentcore.presenters.console import ConsolePresenter
from agentcore.provider_tools import (
    CitationPart,
    ProviderPartEvent,
    ServerToolCallPart,
    ServerToolResultPart,
)

CALL = ServerToolCallPart("srv_1", "web_search", {"query": "news"}, "anthropic")
RESULT = ServerToolResultPart(
    "srv_1", "web_search", {"type": "web_search_tool_result", "content": []}, False, "anthropic"
)
CITED = CitationPart("https://news.example.com", "News", "a park opened", "anthropic")


def _searched_turn() -> list[Any]:
    return [
        MessageStart("m1", "claude-test"),
        ProviderPartEvent(CALL, 0),
        ProviderPartEvent(RESULT, 1),
        TextDelta("A park opened.", 2),
        ProviderPartEvent(CITED, 2),
        MessageDelta("end_turn", {"input_tokens": 10, "output_tokens": 5}),
        MessageStop("end_turn"),
    ]


@tool
def note(text: str) -> str:
    """Write a note."""
    return "noted"


def test_provider_tools_go_in_every_request_and_their_parts_stay(tmp_path: pathlib.Path) -> None:
    out = io.StringIO()
    driver = ScriptedDriver([_searched_turn(), text_turn("ok")], provider_tools=["web_search"])
    journal = JsonlJournal(tmp_path / "j.jsonl")
    agent = Agent(
        driver,
        tools=[WebSearch(max_uses=2), note],
        journal=journal,
        compaction=ClearToolResults(keep_turns=1),
        presenters=[ConsolePresenter(console=Console(file=out, width=200))],
    )

    async def main() -> None:
        await agent.run("any news?")
        await agent.run("thanks")
        await agent.aclose()

    asyncio.run(main())
    assert [r.provider_tools for r in driver.requests] == [(WebSearch(max_uses=2),)] * 2
    assert [t.name for t in driver.requests[0].tools] == ["note"]
    reply = driver.requests[1].messages[1]
    assert isinstance(reply, AssistantMessage)
    assert reply.parts == (CALL, RESULT, TextPart("A park opened."), CITED)
    assert reply.tool_calls == ()
    replayed = [o for _, o in replay(journal) if isinstance(o, AssistantMessage)]
    assert replayed[0].parts == reply.parts
    shown = out.getvalue()
    assert '[web_search {"query": "news"}]' in shown
    assert "[web_search done]" in shown and "[source: News https://news.example.com]" in shown
    assert estimate_tokens(reply) > estimate_tokens(
        AssistantMessage("m", "x", (TextPart("A park opened."),))
    )


def test_the_configuration_journals_provider_tools() -> None:
    config = LoopConfig(provider_tools=[WebFetch(allowed_domains=["a.com"]), CodeExecution()])
    again = config.from_wire(config.to_wire())
    assert again.provider_tools == config.provider_tools
    assert "provider_tools" not in LoopConfig().to_wire()


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda: WebSearch(allowed_domains=["a.com"], blocked_domains=["b.com"]), "not both"),
        (lambda: WebSearch(max_uses=0), "max_uses"),
        (lambda: WebFetch(allowed_domains="a.com"), "domains must be a list"),
    ],
)
def test_bad_options_are_named(make: Any, needle: str) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        make()


def test_an_agent_on_a_driver_without_the_tool_ends_its_run_with_the_refusal() -> None:
    agent = Agent(ScriptedDriver([text_turn("hi")]), tools=[CodeExecution()])

    async def main() -> Any:
        try:
            await agent.prompt("run code")
            return agent.state.error
        finally:
            await agent.aclose()

    error = asyncio.run(main())
    assert error is not None and "CodeExecution" in str(error)
