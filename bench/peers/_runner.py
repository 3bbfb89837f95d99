"""Run one framework's scenarios in this process and print their medians as one JSON line.

Standard library only: it runs in the project's venv (agentcore) and in the peers' venv.
Usage: ``python _runner.py <framework> <iterations> <warmup>``, where ``<framework>`` is a
module in this folder defining the scenarios below. Each scenario is an ``async`` function
of no argument, built once per framework (``setup()``) and called ``warmup`` times (not
measured), then ``iterations`` times; the median is printed, in seconds (per delta for the
stream). ``construct`` is timed and its tracemalloc memory taken separately.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

TEXT = "The answer is four."
"""The ~5-token answer every model gives."""

DELTAS = 1000
STREAM_DELTAS = [f"w{i % 100:02d} " for i in range(DELTAS)]
"""The 1,000 text deltas of the streamed answer."""

TOOL_ARGS = {"a": 2, "b": 2}
"""The arguments of the one tool call (``add``)."""

TURNS = (5, 25)
"""Conversation lengths: each turn is a user message and the model's answer."""


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


async def _timed(run: Callable[[], Awaitable[Any]], iterations: int, warmup: int) -> float:
    for _ in range(warmup):
        await run()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        await run()
        samples.append(time.perf_counter() - start)
    return _median(samples)


def _construct(build: Callable[[], Any], iterations: int, warmup: int) -> tuple[float, int]:
    for _ in range(warmup):
        build()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        build()
        samples.append(time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    kept = build()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    size = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    del kept
    return _median(samples), size


async def run(framework: Any, iterations: int, warmup: int) -> dict[str, float]:
    """The scenarios of ``framework`` (a module with ``single``, ``tool``, ``conversation``,
    ``stream`` coroutines and ``build``), measured."""
    figures: dict[str, float] = {}
    figures["construct"], memory = _construct(framework.build, iterations, warmup)
    figures["memory"] = float(memory)
    figures["single"] = await _timed(framework.single, iterations, warmup)
    figures["tool"] = await _timed(framework.tool, iterations, warmup)
    for turns in TURNS:
        figures[f"turns{turns}"] = await _timed(
            lambda turns=turns: framework.conversation(turns),
            max(1, iterations // turns * 5),
            min(warmup, 1),
        )
    figures["stream"] = (
        await _timed(framework.stream, max(1, iterations // 10), min(warmup, 2)) / DELTAS
    )
    return figures


def main(argv: list[str]) -> None:
    name, iterations, warmup = argv[0], int(argv[1]), int(argv[2])
    framework = importlib.import_module(name)
    print(json.dumps(asyncio.run(run(framework, iterations, warmup))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
