"""``make run``: replay the shipped recorded session, offline, and show all four layers.

The session (``agentcore/_app/data/weather.jsonl``, made by ``examples/make_session.py``)
is folded through a fresh machine: first as a user sees it on the console presenter,
then event by event with its layer, so the stream, message, state and turn layers can be
read side by side. Consecutive deltas of one block are folded into one line.
"""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from .._core.events import LAYERS
from .._journal.replay import replay_steps
from .cli import priced_machine
from .describe import describe

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


def main(path: pathlib.Path = SESSION, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    from presenters.console import ConsolePresenter  # an entry point may load plugins

    steps = list(replay_steps(path, machine_factory=priced_machine))
    events = [e for entry, outputs in steps for e in (entry.event, *outputs)]
    agent_id = steps[0][0].agent_id if steps else "?"
    out.write(f"Replaying {path.name}: {len(steps)} journaled events, {len(events)} in all\n\n")
    out.write("== As the user sees it (console presenter) ==\n")
    out.flush()
    presenter = ConsolePresenter(spinner=False)
    for event in events:
        presenter.present(agent_id, event)
    presenter.close()
    out.write("\n== The four layers, in order ==\n")
    for line in layer_lines(events):
        out.write(line + "\n")


if __name__ == "__main__":
    main()
