"""What ``agentcore code``'s screen adds to a streamed reply.

Printed, each the best of a few rounds (a busy machine inflates a figure, never lowers it):

- per streamed text delta: the ``Agent`` path with a presenter that only counts, and with
  the coding app as its presenter (the view fold, and every finished line drawn by rich
  on a console writing to memory, as the terminal does: the lines of a frame in one
  print), in the same run; a line ends every 10 deltas, which is far more lines per
  second than a model streams;
- one frame of the live region (the status, the streamed line, the input line), built
  and drawn by rich: the app redraws at most every 80 ms while it works.

Run with ``python -m bench code``.
"""

from __future__ import annotations

import asyncio
import io
import pathlib
import tempfile
import time
from typing import Any

from rich.console import Console

from agentcore import Agent
from agentcore._app.code.app import CodeApp
from agentcore._app.code.keys import Editor
from agentcore._app.code.sessions import JsonlSessions
from agentcore._app.code.terminal import TerminalScreen, _live_view
from agentcore.drivers.scripted import ScriptedDriver
from agentcore.events import MessageDelta, MessageStart, MessageStop, TextDelta

DELTAS = 20_000
ROUNDS = 5
FRAMES = 300


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def present(self, agent_id: str, output: Any) -> None:
        self.count += 1


def _turn() -> list[Any]:
    return [
        MessageStart("m1", "bench-model", timestamp=1),
        *(
            TextDelta(f"word{i % 100:02d}" + ("\n" if i % 10 == 9 else " "), 0, timestamp=1)
            for i in range(DELTAS)
        ),
        MessageDelta(stop_reason="end_turn", timestamp=1),
        MessageStop("end_turn", timestamp=1),
    ]


def _app(root: pathlib.Path) -> tuple[CodeApp, Console]:
    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system="truecolor")
    store = JsonlSessions(root)
    session = store.create(str(root), "bench")
    return CodeApp(TerminalScreen(console), session, store), console


async def _per_delta(presenter: Any) -> float:
    agent = Agent(ScriptedDriver([_turn()]), presenters=[presenter])
    if isinstance(presenter, CodeApp):
        presenter.attach(agent, resumed=False)
    start = time.perf_counter()
    await agent.prompt("go")
    if isinstance(presenter, CodeApp):
        presenter.screen.flush()  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - start
    await agent.aclose()
    return elapsed / DELTAS


def _frame(app: CodeApp, console: Console) -> float:
    start = time.perf_counter()
    for i in range(FRAMES):
        console.print(_live_view(app, Editor("a prompt being typed", 8), i * 0.08))
    return (time.perf_counter() - start) / FRAMES


def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        bare, screen = [], []
        for _ in range(ROUNDS):
            bare.append(asyncio.run(_per_delta(Counter())))
            app, console = _app(pathlib.Path(root))
            screen.append(asyncio.run(_per_delta(app)))
        agent = Agent(ScriptedDriver([]))
        app, console = _app(pathlib.Path(root))
        app.attach(agent, resumed=False)
        app.view = app.view._replace(partial="a line being streamed " * 3)
        frame = min(_frame(app, console) for _ in range(3))
    print(f"per delta, Agent + counting presenter:   {min(bare) * 1e6:6.2f} µs")
    print(f"per delta, Agent + the coding app:        {min(screen) * 1e6:6.2f} µs")
    print(f"one frame of the live region (rich):      {frame * 1e3:6.2f} ms")


if __name__ == "__main__":
    main()
