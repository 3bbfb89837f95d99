"""A tool-using run killed with SIGKILL at random points, resumed in a new process.

For each kill point: the final history equals an uninterrupted run's, except for what
the resume policy documents (a call to the non-idempotent tool that was running is
answered with an ``INTERRUPTED`` error result; the steering message is there exactly
when it had been journaled before the kill); every tool call has exactly one result; the
history passes the provider-validity check; nothing journaled is lost.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentcore.events import LAYERS, ToolResultMessage, from_dict
from agentcore.journal import read_jsonl
from agentcore.loop import history_problems

CHILD = pathlib.Path(__file__).with_name("resume_child.py")
KILLS = 52


def _child(mode: str, journal: pathlib.Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), mode, str(journal)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _history(output: str) -> list[Any]:
    return [from_dict(m) for m in json.loads(output.strip().splitlines()[-1])]


def _shape(history: list[Any], interrupted: set[str]) -> list[Any]:
    """What must match an uninterrupted run: ids, texts, calls; results except those the
    resume policy answered; the steering message left out (checked on its own)."""
    out: list[Any] = []
    for m in history:
        if m.type == "user_message":
            if m.content != "also check the weather":
                out.append(("user", m.content))
        elif m.type == "assistant_message":
            out.append(
                (
                    "assistant",
                    m.text,
                    [(c.tool_call_id, c.tool_name, dict(c.input)) for c in m.tool_calls],
                )
            )
        else:
            result = "<interrupted>" if m.tool_call_id in interrupted else (m.result, m.is_error)
            out.append(("tool", m.tool_call_id, result))
    return out


def _trial(seed: int, directory: pathlib.Path, reference: list[Any]) -> str:
    rng = random.Random(seed)
    journal = directory / f"journal-{seed}.jsonl"
    writer = _child("run", journal)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    time.sleep(rng.uniform(0.0, 0.3))
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    before = list(read_jsonl(journal))
    steered = any(e.event.type == "agent_steer" for e in before)
    resumer = _child("resume", journal)
    out, err = resumer.communicate(timeout=60)
    assert resumer.returncode == 0, err
    history = _history(out)
    after = list(read_jsonl(journal))
    assert [(e.seq, e.event) for e in after[: len(before)]] == [(e.seq, e.event) for e in before]
    if not any(e.event.type == "agent_prompt" for e in before):
        assert history == []  # the prompt was never accepted: nothing to finish
        return "killed before the prompt"
    assert history_problems(history) == []
    results = [m for m in history if isinstance(m, ToolResultMessage)]
    assert len({r.tool_call_id for r in results}) == len(results), "a tool result duplicated"
    interrupted = {
        r.tool_call_id for r in results if r.is_error and r.details == {"error_code": "INTERRUPTED"}
    }
    assert all(r.tool_name == "charge" for r in results if r.tool_call_id in interrupted)
    assert _shape(history, interrupted) == _shape(reference, interrupted)
    steers = [
        m for m in history if m.type == "user_message" and m.content == "also check the weather"
    ]
    assert len(steers) == (1 if steered else 0)
    kinds = {LAYERS[e.event.type] for e in before}
    return (
        "interrupted charge"
        if interrupted
        else f"resumed after {len(before)} inputs {sorted(kinds)}"
    )


def test_a_run_killed_anywhere_resumes_to_the_same_conversation(tmp_path: pathlib.Path) -> None:
    full = _child("run", tmp_path / "reference.jsonl")
    out, err = full.communicate(timeout=60)
    assert full.returncode == 0, err
    reference = _history(out)
    assert [m.type for m in reference].count("tool_result_message") == 3
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda s: _trial(s, tmp_path, reference), range(KILLS)))
    # the kills landed in different phases, and some caught the non-idempotent call running
    assert len(set(outcomes)) >= 5, outcomes
    assert "interrupted charge" in outcomes, outcomes
    assert os.path.exists(tmp_path / "reference.jsonl")
