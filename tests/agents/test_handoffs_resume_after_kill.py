"""A conversation with handoffs killed with SIGKILL at random points, resumed in a new
process: once ``AgentRegistry.resume`` has finished it, the history equals the
uninterrupted run's (texts, calls, results, every handoff), passes the provider-validity
check, holds no duplicated tool result, and no journaled input is lost; the kills land in
every phase, between a handoff and the target's first reply included.
"""

from __future__ import annotations

import json
import pathlib
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentcore.agents import handoff_of
from agentcore.events import from_dict
from agentcore.journal import read_jsonl
from agentcore.loop import history_problems

CHILD = pathlib.Path(__file__).with_name("handoff_child.py")
KILLS = 16


def _child(mode: str, journal: pathlib.Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), mode, str(journal)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _history(output: str) -> list[Any]:
    return [from_dict(m) for m in json.loads(output.strip().splitlines()[-1])]


def _shape(history: list[Any]) -> list[Any]:
    out: list[Any] = []
    for m in history:
        if m.type == "user_message":
            out.append(("user", m.content))
        elif m.type == "assistant_message":
            calls = [(c.tool_call_id, c.tool_name, dict(c.input)) for c in m.tool_calls]
            out.append(("assistant", m.text, calls))
        else:
            out.append(("tool", m.tool_call_id, m.result, m.is_error, handoff_of(m)))
    return out


def _phase(before: list[Any]) -> str:
    """Where the kill landed, read from what had been journaled."""
    handoffs = sum(
        1 for e in before if e.event.type == "tool_result" and "handoff" in (e.event.details or {})
    )
    replies = sum(1 for e in before if e.event.type == "message_stop")
    if not before:
        return "before anything"
    return f"after {handoffs} handoff(s) and {replies} reply(ies)"


def _trial(seed: int, after: float, directory: pathlib.Path, reference: list[Any]) -> str:
    journal = directory / f"chat-{seed}.jsonl"
    writer = _child("run", journal)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    time.sleep(after)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    before = list(read_jsonl(journal)) if journal.exists() else []
    resumer = _child("resume", journal)
    out, err = resumer.communicate(timeout=60)
    assert resumer.returncode == 0, err
    history = _history(out)
    if not any(e.event.type == "agent_prompt" for e in before):
        assert history == []
        return "killed before the prompt"
    after = list(read_jsonl(journal))
    assert [(e.seq, e.event) for e in after[: len(before)]] == [(e.seq, e.event) for e in before], (
        "an input journaled before the kill was lost or changed"
    )
    assert history_problems(history) == []
    results = [m for m in history if m.type == "tool_result_message"]
    assert len({r.tool_call_id for r in results}) == len(results), "a tool result duplicated"
    assert _shape(history) == _shape(reference)
    return _phase(before)


def test_a_conversation_killed_mid_handoff_resumes_to_the_same_history(
    tmp_path: pathlib.Path,
) -> None:
    full = _child("run", tmp_path / "reference.jsonl")
    assert full.stdout is not None
    assert full.stdout.readline().strip() == "ready"
    started = time.monotonic()
    out, err = full.communicate(timeout=60)
    took = time.monotonic() - started  # kills spread over a run as long, whatever the load
    assert full.returncode == 0, err
    reference = _history(out)
    moves = [handoff_of(m) for m in reference if handoff_of(m) is not None]
    assert [(h["from"], h["to"]) for h in moves] == [("triage", "billing"), ("billing", "triage")]
    assert reference[-1].text.endswith("triage again: all sorted")
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(
            pool.map(
                lambda s: _trial(s, took * (s + 0.5) / KILLS, tmp_path, reference), range(KILLS)
            )
        )
    assert len(set(outcomes)) >= 3, sorted(set(outcomes))
    assert any(o.startswith("after 1 handoff") for o in outcomes), sorted(set(outcomes))
