"""The rate-budget benchmark at a small load: its fake provider throttles, and the budget
keeps every agent under the limit (the full run: ``make bench BENCH=ratelimit``)."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

from agentcore.drivers.testing import busiest_window

ROOT = Path(__file__).parents[2]


def test_seventy_agents_see_no_429_and_never_pass_the_limit() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        bench = importlib.import_module("bench.bench_ratelimit")
    finally:
        sys.path.remove(str(ROOT))
    server, elapsed, notices = asyncio.run(bench.run(agents=70, prompts=1))
    assert server.rejected == []
    assert len(server.accepted) == 70
    assert busiest_window(server.accepted, bench.WINDOW) <= bench.LIMIT
    assert notices >= 70 - bench.LIMIT  # the calls past the first window waited, and said so
    assert elapsed >= (70 - bench.LIMIT) * bench.WINDOW / bench.LIMIT * 0.9
