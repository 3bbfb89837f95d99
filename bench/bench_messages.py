"""The core's cost per whole message: ``create_mealy_machine``'s machine folding N short turns.

Deltas have their own fast paths (``bench core``); what a short reply costs is the inputs
that are not deltas (``user_message``, ``message_start``, a mode switch, ``message_delta``,
``message_stop``, tool calls and their results), where the core builds its outputs. Two
traces, built up front and moved out of the collector's reach (``gc.freeze``):

- a text turn: a user message, then a reply of two text deltas (6 inputs);
- a tool turn: a user message, a reply with one tool call, its result, then a one-delta
  answer (14 inputs).

Printed: µs per turn and per input (median of ``RUNS``, a fresh machine each run). Run
with ``python -m bench messages``; compare two trees back to back in one shell, as
docs/performance.md says.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
    Usage,
    UserMessage,
)
from agentcore.machine import create_mealy_machine

TURNS = 2_000
RUNS = 7
MODEL = "claude-sonnet-4-5"


def trace(turns: int, *, tools: bool) -> list[Any]:
    """``turns`` short turns (timestamps 1 ms apart), with one tool call each when ``tools``."""
    events: list[Any] = []
    for i in range(turns):
        t = 10 * i
        events += [UserMessage(f"u{i}", "hello there", timestamp=t)]
        events += [MessageStart(f"m{i}", MODEL, timestamp=t + 1)]
        events += [
            TextDelta("Hello, ", 0, timestamp=t + 2),
            TextDelta("world.", 0, timestamp=t + 2),
        ]
        if tools:
            events += [
                ToolUseStart(f"c{i}", "add", 1, timestamp=t + 3),
                InputJsonDelta('{"a": 1, "b": 2}', 1, timestamp=t + 3),
                ToolUseStop(f"c{i}", 1, timestamp=t + 4),
            ]
        stop = "tool_use" if tools else "end_turn"
        events += [MessageDelta(stop, Usage(12, 5), timestamp=t + 5), MessageStop(timestamp=t + 5)]
        if tools:
            events += [
                ToolResult(f"c{i}", "3", timestamp=t + 6),
                MessageStart(f"n{i}", MODEL, timestamp=t + 7),
                TextDelta("3", 0, timestamp=t + 8),
                MessageDelta("end_turn", Usage(20, 1), timestamp=t + 9),
                MessageStop(timestamp=t + 9),
            ]
    return events


def fold(events: list[Any]) -> float:
    """Seconds to fold ``events`` through a fresh default machine."""
    process = create_mealy_machine().process
    start = time.perf_counter()
    for event in events:
        process("agent", event)
    return time.perf_counter() - start


def measure(turns: int = TURNS, runs: int = RUNS) -> dict[str, float]:
    """µs per turn and per input of each trace (median of ``runs``)."""
    figures: dict[str, float] = {}
    for name, tools in (("text", False), ("tool", True)):
        events = trace(turns, tools=tools)
        gc.collect()
        gc.freeze()
        try:
            seconds = statistics.median(fold(events) for _ in range(runs))
        finally:
            gc.unfreeze()
        figures[f"{name}_turn_us"] = seconds / turns * 1e6
        figures[f"{name}_input_us"] = seconds / len(events) * 1e6
    return figures


def main() -> None:
    figures = measure()
    for name, inputs in (("text", 6), ("tool", 14)):
        print(
            f"{name} turn ({inputs} inputs): {figures[f'{name}_turn_us']:.1f} µs/turn, "
            f"{figures[f'{name}_input_us']:.2f} µs/input"
        )


if __name__ == "__main__":
    main()
