"""Regenerate agentcore/_app/data/weather.jsonl: a recorded two-turn session.

The session is produced by the real ``Agent`` (loop processor, tools, core machine) on a
``ScriptedDriver`` (no network, no key); its ``JsonlJournal`` holds the stream-layer
inputs (user messages, driver events, tool results), as an engine's would. Clock and ids
are fixed, so running this script again rewrites the same bytes. Turn 1 has signed
thinking, text, two parallel tool calls (one of which fails) and a final answer; turn 2
is plain text.

    python examples/make_session.py [OUTPUT]
"""

from __future__ import annotations

import asyncio
import itertools
import pathlib
import sys

from agentcore.agent import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import MessageStart, TextDelta, ThinkingDelta
from agentcore.journal import JsonlJournal
from agentcore.tools import tool

OUT = pathlib.Path(__file__).parents[1] / "agentcore" / "_app" / "data" / "weather.jsonl"
MODEL = "claude-sonnet-4-5"
SIGNATURE = "EqQBCkYIBxgCKkBscripted0signature0for0the0demo0session=="
USERS = ["What's the weather in Paris and London right now?", "Should I pack an umbrella?"]


def script() -> list[list[object]]:
    """Three model calls: thinking + text + two tool calls; the answer; the follow-up."""
    first = [
        MessageStart(message_id="msg_01", model=MODEL),
        ThinkingDelta(text="Two cities, independent lookups: ", index=0),
        ThinkingDelta(text="call get_weather for both at once.", index=0),
        ThinkingDelta(text="", index=0, signature=SIGNATURE),
        TextDelta(text="Let me look ", index=1),
        TextDelta(text="both up.", index=1),
        *tool_turn(
            [
                ("toolu_paris", "get_weather", {"city": "Paris"}),
                ("toolu_london", "get_weather", {"city": "London"}),
            ],
            usage={"input_tokens": 412, "output_tokens": 96},
            start_index=2,
        )[1:],
    ]
    answer = text_turn(
        "Paris: 18 °C with light rain. I couldn't get London's weather: the weather "
        "service timed out. Want me to try London again?",
        message_id="msg_02",
        model=MODEL,
        usage={"input_tokens": 655, "output_tokens": 41},
    )
    umbrella = text_turn(
        "For Paris, yes: light rain is expected this afternoon, so pack a small umbrella.",
        message_id="msg_03",
        model=MODEL,
        usage={"input_tokens": 720, "output_tokens": 24},
    )
    return [first, answer, umbrella]


@tool
async def get_weather(city: str) -> str:
    """The current weather in ``city``."""
    if city == "London":
        raise ConnectionError("weather service timed out after 5 s")
    return f"{city}: 18 °C, light rain, wind 12 km/h"


async def record(path: pathlib.Path) -> None:
    path.unlink(missing_ok=True)
    ticks = itertools.count(1_767_225_600_000, 37)  # 2026-01-01, 37 ms per event
    ids = itertools.count(1)
    journal = JsonlJournal(path)
    agent = Agent(
        ScriptedDriver(script(), clock=lambda: next(ticks)),
        agent_id="weather-demo",
        journal=journal,
        clock=lambda: next(ticks),
        id_factory=lambda: f"user_{next(ids):02d}",
        system_prompt="You are a concise weather assistant.",
        tools=[get_weather],
    )
    for text in USERS:
        await agent.prompt(text)
    journal.close()


if __name__ == "__main__":
    asyncio.run(record(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
