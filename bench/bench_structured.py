"""Structured output: what asking for a typed answer costs per run, partial parsing per
chunk, and tool-argument previews per delta.

- per run: a whole ``Agent.run`` on a ``ScriptedDriver`` with ``output_type`` (a
  dataclass, native mode) minus the same run without, in CPU time, best of a few rounds: the spec,
  the shaped request, parsing and validating the answer, building the instance;
- ``PartialJson.extend`` per chunk for a 2 KB and a 200 KB answer in 8-character chunks
  (the second shows the re-parse bound keeping the cost flat);
- the preview processor per ``input_json_delta`` (a 2 KB argument in 8-character chunks).

Targets: < 300 µs per structured run (mostly jsonschema validating the answer); partial
parsing < 5 µs per chunk whatever the length.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from typing import Any

from agentcore.agent import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import InputJsonDelta, ToolUseStart
from agentcore.loop import PartialJson, tool_previews


@dataclasses.dataclass
class Report:
    title: str
    score: int
    tags: list[str]


ANSWER = json.dumps({"title": "A report", "score": 7, "tags": ["a", "b", "c"]})


def _seconds_per_run(output_type: Any, runs: int) -> float:
    agent = Agent(ScriptedDriver([text_turn(ANSWER, chunk=8) for _ in range(runs)]))

    async def main() -> None:
        for _ in range(runs):
            await agent.run("report", output_type=output_type)

    start = time.process_time()  # CPU time: a machine shared with other jobs blurs wall time
    asyncio.run(main())
    return (time.process_time() - start) / runs


def _per_run_overhead(runs: int = 200, rounds: int = 5) -> float:
    _seconds_per_run(Report, 20)  # warm up (the validator is compiled once per schema)
    return min(_seconds_per_run(Report, runs) - _seconds_per_run(None, runs) for _ in range(rounds))


def _per_chunk(size: int, chunk: int = 8, rounds: int = 3) -> float:
    text = json.dumps({"content": "x" * size})
    pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]
    best = float("inf")
    for _ in range(rounds):
        partial = PartialJson()
        start = time.perf_counter()
        for piece in pieces:
            partial = partial.extend(piece)
        best = min(best, (time.perf_counter() - start) / len(pieces))
    return best


def _per_preview_delta(size: int = 2000, chunk: int = 8, rounds: int = 3) -> float:
    processor, initial = tool_previews()
    text = json.dumps({"path": "a.txt", "content": "x" * size})
    deltas = [InputJsonDelta(text[i : i + chunk], 0) for i in range(0, len(text), chunk)]
    best = float("inf")
    for _ in range(rounds):
        state, _ = processor(initial(), ToolUseStart("c1", "write", 0))
        start = time.perf_counter()
        for delta in deltas:
            state, _ = processor(state, delta)
        best = min(best, (time.perf_counter() - start) / len(deltas))
    return best


def main() -> None:
    print(f"structured run overhead: {_per_run_overhead() * 1e6:.0f} µs per run (target < 300)")
    for size in (2_000, 200_000):
        print(f"partial JSON, {size:>7} chars: {_per_chunk(size) * 1e6:.2f} µs per 8-char chunk")
    print(f"tool previews: {_per_preview_delta() * 1e6:.2f} µs per input_json_delta")


if __name__ == "__main__":
    main()
