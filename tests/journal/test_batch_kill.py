"""SIGKILL during a batch of two tool calls (one idempotent, one not) on a batching journal
(``SqliteJournal(batch=16)``), at 52 random points, then ``Agent.resume`` in a new process:
the non-idempotent tool never runs twice (each run is a line in a ledger file), because the
journal writes the tool-call request before the tools run (attack
batch_journal_reruns_nonidempotent_tool.py)."""

from __future__ import annotations

import json
import pathlib
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

CHILD = pathlib.Path(__file__).with_name("batch_kill_child.py")
ROOT = pathlib.Path(__file__).resolve().parents[2]
KILLS = 52


def _child(mode: str, db: pathlib.Path, ledger: pathlib.Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), mode, str(db), str(ledger)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _trial(seed: int, directory: pathlib.Path) -> str:
    rng = random.Random(seed)
    db, ledger = directory / f"{seed}.db", directory / f"{seed}.ledger"
    ledger.touch()
    writer = _child("run", db, ledger)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready", writer.communicate()[1]
    time.sleep(rng.uniform(0.0, 0.3))
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    charged_before = ledger.read_text().count("charge")
    resumer = _child("resume", db, ledger)
    out, err = resumer.communicate(timeout=90)
    assert resumer.returncode == 0, err
    charges = ledger.read_text().count("charge")
    assert charges <= 1, f"seed {seed}: the non-idempotent tool ran {charges} times"
    history = json.loads(out.strip().splitlines()[-1])
    if not history:  # nothing was written: no tool can have run (the request comes first)
        assert charges == 0, f"seed {seed}: a tool ran with nothing journaled"
        return "killed before anything was written"
    results = {
        m["data"]["tool_call_id"]: m["data"] for m in history if m["type"] == "tool_result_message"
    }
    if charged_before and results["c1"]["is_error"]:
        assert results["c1"]["details"] == {"error_code": "INTERRUPTED"}
        return "charge caught running: answered INTERRUPTED"
    if charged_before:
        return "charge done before the kill"
    return "killed before the charge: it ran once on resume" if charges else "never charged"


@pytest.mark.slow
def test_a_kill_during_a_tool_batch_never_runs_the_non_idempotent_call_twice(
    tmp_path: pathlib.Path,
) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda seed: _trial(seed, tmp_path), range(KILLS)))
    # the kills landed before the charge, while it ran, and after it
    assert "charge caught running: answered INTERRUPTED" in outcomes, outcomes
    before = {"killed before the charge: it ran once on resume", "never charged"}
    assert before & set(outcomes), outcomes  # (whether its request was written yet or not)
