"""``make run``: an agent with a tool, on a recorded model, offline; then its journal.

The model is the shipped recording (``agentcore/_app/data/weather.jsonl``, made by
``examples/make_session.py``) played by a ``ReplayDriver``; the tool runs for real (it
fails for London, as in the recording). The demo:

1. runs the recording's two prompts through a live ``Agent`` shown on the console
   presenter (streamed text, thinking, tool panels, turn footers);
2. prints every output of every layer, in order, one line each (runs of deltas folded);
3. replays the agent's journal and checks it gives back exactly what was delivered.

Plugins (drivers, presenters) are imported inside ``main``: an entry point may load them.
"""

from __future__ import annotations

import asyncio
import pathlib
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from .._core.events import LAYERS
from .._core.pricing import ModelPrice
from .._journal.describe import describe
from .._journal.journal import MemoryJournal, read_jsonl
from .._journal.replay import replay
from .._loop.conversation import create_conversation_machine
from .._loop.tools import tool
from .._runtime.agent import Agent

__all__ = ["SESSION", "layer_lines", "main"]

SESSION = pathlib.Path(__file__).resolve().parent / "data" / "weather.jsonl"
_DELTAS = ("text_delta", "thinking_delta", "input_json_delta")


def layer_lines(events: Iterable[Any]) -> list[str]:
    """One line per event (``layer  type  fields``), runs of deltas folded into one."""
    lines: list[str] = []
    run: list[Any] = []

    def flush() -> None:
        if run:
            field = "partial_json" if run[0].type == "input_json_delta" else "text"
            joined = "".join(getattr(e, field) for e in run)
            label = f"{run[0].type} x{len(run)}"
            lines.append(f"{'stream':<8} {label:<24} {field}={joined!r}")
            run.clear()

    for event in events:
        if event.type in _DELTAS and (not run or run[0].type == event.type):
            run.append(event)
            continue
        flush()
        if event.type in _DELTAS:
            run.append(event)
            continue
        lines.append(f"{LAYERS.get(event.type, '?'):<8} {describe(event)}")
    flush()
    return lines


async def _run(path: pathlib.Path) -> tuple[list[Any], MemoryJournal, Agent]:
    from agentcore.drivers.replay import ReplayDriver
    from agentcore.presenters.console import ConsolePresenter
    from agentcore.presenters.recording import RecordingPresenter

    prompts = [
        m.content
        for e in read_jsonl(path)
        if e.event.type == "agent_prompt"
        for m in e.event.messages
    ]
    journal, recorder = MemoryJournal(), RecordingPresenter()
    console = ConsolePresenter(spinner=False)
    agent = Agent(
        ReplayDriver(path, restamp=True),
        tools=[get_weather],
        system_prompt="You are a concise weather assistant.",
        presenters=[console, recorder],
        journal=journal,
        agent_id="weather-demo",
        price=ModelPrice(input=3.0, output=15.0),
    )
    async with agent:
        for prompt in prompts:
            await agent.prompt(prompt)
    console.close()
    return recorder.outputs(), journal, agent


@tool
async def get_weather(city: str) -> str:
    """The current weather in ``city``."""
    if city == "London":
        raise ConnectionError("weather service timed out after 5 s")
    return f"{city}: 18 °C, light rain, wind 12 km/h"


def main(path: pathlib.Path = SESSION, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    out.write(f"An agent on the recorded model of {path.name} (no key, no network):\n")
    out.flush()
    delivered, journal, agent = asyncio.run(_run(path))
    out.write("\n== Every layer, in order ==\n")
    for line in layer_lines(delivered):
        out.write(line + "\n")
    machine = create_conversation_machine(agent.prices)
    replayed = [output for _, output in replay(journal, lambda: machine)]
    out.write(
        f"\n== The journal: {len(journal)} inputs ==\n"
        f"replayed into {len(replayed)} outputs, exactly those delivered: "
        f"{replayed == delivered}\n"
    )


if __name__ == "__main__":
    main()
