"""The side-by-side bench (``python -m bench peers``) does not rot: agentcore's side of
every scenario runs, and a peer that cannot run is named in the table, never skipped.
No peer is installed here (the bench installs them into its own venv)."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def harness() -> Any:
    sys.path[:0] = [str(ROOT), str(ROOT / "bench" / "peers")]
    try:
        yield importlib.import_module("bench.bench_peers")
    finally:
        del sys.path[:2]


def test_agentcore_runs_each_scenario_once(harness: Any) -> None:
    runner = importlib.import_module("_runner")
    side = importlib.import_module("agentcore_side")
    figures = asyncio.run(runner.run(side, 1, 0))
    measured = {key for key, _, _ in harness.MEASURES} - {"import"}
    assert set(figures) == measured
    assert all(value > 0 for value in figures.values()), figures


def test_a_peer_that_cannot_run_is_named_with_why(harness: Any) -> None:
    broken = harness.Framework("broken", "no_such_side", (), "import json", ("attrs",))
    failed: dict[str, str] = {}
    medians = harness.measure([broken], failed, rounds=1)
    assert medians == {}
    assert "no_such_side" in failed["broken"], failed


def test_the_table_gives_ratios_and_names_what_did_not_run(harness: Any) -> None:
    keys = [key for key, _, _ in harness.MEASURES]
    ours = dict.fromkeys(keys, 1e-3)
    peer = dict.fromkeys(keys, 4e-3)
    text = harness.table(
        {"agentcore": ours, "fast": peer},
        {"gone": "pip install failed: no wheel"},
        ["agentcore", "fast", "gone"],
    )
    rows = [line for line in text.splitlines() if line.startswith("| single-turn")]
    assert rows == ["| single-turn run, ~5-token answer | 4.00x (4.00 ms) | not run | 1.00 ms |"]
    assert "gone not run: pip install failed: no wheel" in text
