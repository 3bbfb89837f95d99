"""ConsolePresenter: a request that misses the prompt cache says so, and why; the footer
shows cache writes made for an hour."""

from __future__ import annotations

import asyncio
import io

from rich.console import Console

from agentcore import Agent, Cache
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import TurnResponse, Usage
from agentcore.loop import CacheBust
from agentcore.presenters.console import Block, ConsolePresenter, encode, footer
from agentcore.presenters.console import View as ConsoleView


def _notes(bust: CacheBust) -> list[str]:
    _, ops = encode(ConsoleView(), bust)
    return [op.renderable.plain for op in ops if isinstance(op, Block)]


def test_each_reason_is_told_in_words() -> None:
    assert _notes(CacheBust("compaction", 0, 7)) == [
        "[cache bust: the context was compacted; the cached prefix cannot be read]"
    ]
    assert _notes(CacheBust("messages", 2, 5)) == [
        "[cache bust: the history sent changed at message 2 of 5; the cached prefix cannot be read]"
    ]
    assert "system prompt changed" in _notes(CacheBust("system_prompt", 0, 1))[0]


def test_a_reset_history_shows_a_cache_bust_in_the_transcript() -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=False)
    agent = Agent(
        ScriptedDriver([text_turn("one"), text_turn("two")]),
        system_prompt="be brief",
        cache=Cache(ttl="1h"),
        presenters=[ConsolePresenter(console=console)],
    )

    async def main() -> None:
        await agent.prompt("first")
        agent.reset()
        await agent.prompt("second")
        await agent.aclose()

    asyncio.run(main())
    shown = out.getvalue()
    assert shown.count("[cache bust:") == 1
    assert "changed at message 0 of 1" in shown
    assert shown.index("one") < shown.index("[cache bust:") < shown.index("two")


def test_the_footer_shows_one_hour_writes() -> None:
    usage = Usage(10, 5, cache_read_tokens=100, cache_write_tokens=300, cache_write_1h_tokens=200)
    text = footer(TurnResponse("t", 1000, usage)).plain
    assert "cache 100 read / 300 write (200 for 1h)" in text
