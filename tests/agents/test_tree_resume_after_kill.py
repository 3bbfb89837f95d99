"""A tree of agents killed with SIGKILL at random points, resumed in a new process.

For each kill point, once ``AgentRegistry.resume`` has finished the tree: every agent's
history equals the uninterrupted run's (but for a call to the non-idempotent tool that was
running, answered ``INTERRUPTED``), no tool result is duplicated, every history passes
the provider-validity check, and no journaled input is lost. Children found in the journal
are resumed from their lanes, never spawned twice (each lane has one lineage per task).
"""

from __future__ import annotations

import json
import pathlib
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentcore.events import from_dict
from agentcore.journal import read_jsonl
from agentcore.loop import history_problems

CHILD = pathlib.Path(__file__).with_name("tree_child.py")
KILLS = 28


def _child(mode: str, journal: pathlib.Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), mode, str(journal)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _histories(output: str) -> dict[str, list[Any]]:
    data = json.loads(output.strip().splitlines()[-1])
    return {agent: [from_dict(m) for m in messages] for agent, messages in data.items()}


def _shape(history: list[Any], interrupted: set[str]) -> list[Any]:
    """What must match an uninterrupted run: texts, calls, results (but the answers the
    resume policy gave), lineages without their time-derived parent run ids."""
    out: list[Any] = []
    for m in history:
        if m.type == "subagent_lineage":
            out.append(("lineage", m.agent_id, m.run_id, m.task_id, m.agent_type, m.depth))
        elif m.type == "user_message":
            out.append(("user", m.content))
        elif m.type == "assistant_message":
            calls = [(c.tool_call_id, c.tool_name, dict(c.input)) for c in m.tool_calls]
            out.append(("assistant", m.text, calls))
        else:
            result = "<interrupted>" if m.tool_call_id in interrupted else (m.result, m.is_error)
            out.append(("tool", m.tool_call_id, result))
    return out


def _trial(seed: int, directory: pathlib.Path, reference: dict[str, list[Any]]) -> str:
    rng = random.Random(seed)
    journal = directory / f"tree-{seed}.jsonl"
    writer = _child("run", journal)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    time.sleep(0.45 * rng.random() ** 2)  # early phases are short: more kills land there
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    before = list(read_jsonl(journal)) if journal.exists() else []
    resumer = _child("resume", journal)
    out, err = resumer.communicate(timeout=60)
    assert resumer.returncode == 0, err
    histories = _histories(out)
    if not any(e.agent_id == "root" and e.event.type == "agent_prompt" for e in before):
        assert histories.get("root", []) == []  # the prompt was never accepted
        return "killed before the prompt"
    after = list(read_jsonl(journal))
    assert [(e.agent_id, e.seq, e.event) for e in after[: len(before)]] == [
        (e.agent_id, e.seq, e.event) for e in before
    ], "an input journaled before the kill was lost or changed"
    assert set(histories) == set(reference)
    interrupted: set[str] = set()
    for history in histories.values():
        assert history_problems(history) == []
        results = [m for m in history if m.type == "tool_result_message"]
        assert len({r.tool_call_id for r in results}) == len(results), "a tool result duplicated"
        interrupted |= {
            r.tool_call_id
            for r in results
            if r.is_error
            and isinstance(r.details, dict)
            and r.details.get("error_code") == "INTERRUPTED"
        }
    for agent, history in histories.items():
        assert _shape(history, interrupted) == _shape(reference[agent], interrupted), agent
    return "interrupted charge" if interrupted else _phase(before)


def _phase(before: list[Any]) -> str:
    """Where the kill landed, read from what had been journaled."""
    lanes = {e.agent_id for e in before}
    root_replies = sum(1 for e in before if e.agent_id == "root" and e.event.type == "message_stop")
    continued = sum(
        1
        for e in before
        if e.agent_id == "root/spawn.0"
        and e.event.type == "agent_prompt"
        and e.event.messages[0].type == "subagent_lineage"
    )
    if root_replies >= 3:
        return "after the last reply"
    if continued >= 2:
        return "while the finder's task was continued"
    if len(lanes) > 1:
        return f"while {len(lanes) - 1} sub-agent lane(s) ran"
    return "before any sub-agent"


def test_a_tree_killed_anywhere_resumes_to_the_same_conversations(tmp_path: pathlib.Path) -> None:
    full = _child("run", tmp_path / "reference.jsonl")
    out, err = full.communicate(timeout=60)
    assert full.returncode == 0, err
    reference = _histories(out)
    assert set(reference) == {"root", "root/spawn.0", "root/spawn.1", "root/spawn.1/e1.0"}
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda s: _trial(s, tmp_path, reference), range(KILLS)))
    # the kills landed in different phases: before the children, among them, after them
    assert len(set(outcomes)) >= 4, sorted(set(outcomes))
