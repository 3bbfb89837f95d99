"""A tool-using run on SQLite and on PostgreSQL killed with SIGKILL at random points,
then resumed in a new process.

For each kill: every entry the journal accepted before the kill is in the database, as
the documented policy promises (with ``batch=1``, every acknowledged append; with
``batch=N``, every one acknowledged before the last ``sync()`` returned, and at most
``N - 1`` after it); the entries left are a prefix of what the resumed run journals;
``Agent.resume`` finishes the conversation as an uninterrupted run would (the resume
policy's ``INTERRUPTED`` answers aside), with a provider-valid history.
"""

from __future__ import annotations

import os
import pathlib
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from agentcore.events import ToolResultMessage
from agentcore.journal import Journal, PostgresJournal, SqliteJournal
from agentcore.loop import history_problems
from agentcore.testing import PostgresServer
from tests.conftest import fresh_schema
from tests.runtime.test_resume_after_kill import _history, _shape

CHILD = pathlib.Path(__file__).with_name("crash_child.py")
ROOT = pathlib.Path(__file__).parents[2]
KILLS = 8


def _child(mode: str, kind: str, batch: int, where: str) -> subprocess.Popen[str]:
    env = {**os.environ, "AGENTCORE_CRASH_DB": where, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, str(CHILD), mode, kind, str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _journal(kind: str, where: str) -> Journal:
    return SqliteJournal(where) if kind == "sqlite" else PostgresJournal(where)


def _accepted(lines: list[str], batch: int) -> tuple[set[int], int]:
    """The seqs that must survive, and how many acknowledged ones may be lost."""
    acks: list[int] = []
    synced = 0
    for line in lines:
        if line.startswith("ack "):
            acks.append(int(line.split()[1]))
        elif line == "sync":
            synced = len(acks)
    if batch == 1:
        return set(acks), 0
    return set(acks[:synced]), batch - 1


def _trial(kind: str, batch: int, seed: int, where: str, reference: list[Any]) -> tuple[str, int]:
    """Kill a run at a random point, resume it: where the kill landed, and how many
    entries the journal held then."""
    rng = random.Random(seed)
    writer = _child("run", kind, batch, where)
    assert writer.stdout is not None
    lines: list[str] = []
    while (line := writer.stdout.readline().strip()) != "ready":
        assert line, "the child died before it was ready"
        lines.append(line)
    time.sleep(rng.uniform(0.0, 0.35))
    writer.send_signal(signal.SIGKILL)
    out, _err = writer.communicate()
    lines += out.splitlines()
    must, may_lose = _accepted(lines, batch)
    acked = {int(line.split()[1]) for line in lines if line.startswith("ack ")}
    journal = _journal(kind, where)
    before = list(journal.entries("child"))
    journal.close()
    seqs = {e.seq for e in before}
    assert must <= seqs, f"accepted entries lost: {sorted(must - seqs)}"
    assert len(acked - seqs) <= may_lose, f"lost {sorted(acked - seqs)} (batch={batch})"
    assert sorted(seqs) == list(range(1, len(seqs) + 1))
    if not any(e.event.type == "agent_prompt" for e in before):
        return "killed before the prompt", len(seqs)
    resumer = _child("resume", kind, batch, where)
    out, err = resumer.communicate(timeout=120)
    assert resumer.returncode == 0, err
    history = _history(out)
    journal = _journal(kind, where)
    after = list(journal.entries("child"))
    journal.close()
    assert [(e.seq, e.event) for e in after[: len(before)]] == [(e.seq, e.event) for e in before]
    assert history_problems(history) == []
    results = [m for m in history if isinstance(m, ToolResultMessage)]
    assert len({r.tool_call_id for r in results}) == len(results), "a tool result duplicated"
    interrupted = {
        r.tool_call_id for r in results if r.is_error and r.details == {"error_code": "INTERRUPTED"}
    }
    assert _shape(history, interrupted) == _shape(reference, interrupted)
    lost = len(acked - seqs)
    return ("interrupted charge" if interrupted else f"resumed, {lost} lost"), len(seqs)


def _where(kind: str, tmp_path: pathlib.Path, name: str, server: PostgresServer | None) -> str:
    if kind == "sqlite":
        return str(tmp_path / f"{name}.db")
    assert server is not None
    return fresh_schema(server)


@pytest.mark.parametrize("batch", [1, 16])
@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_run_killed_anywhere_loses_nothing_accepted_and_resumes(
    kind: str, batch: int, tmp_path: pathlib.Path, request: pytest.FixtureRequest
) -> None:
    server = request.getfixturevalue("postgres_server") if kind == "postgres" else None
    full = _child("run", kind, batch, _where(kind, tmp_path, "reference", server))
    out, err = full.communicate(timeout=120)
    assert full.returncode == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("history ")]
    reference = _history(line.removeprefix("history "))
    assert [m.type for m in reference].count("tool_result_message") == 3
    places = [_where(kind, tmp_path, f"kill-{seed}", server) for seed in range(KILLS)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(
            pool.map(
                lambda s: _trial(kind, batch, s, places[s], reference),
                range(KILLS),
            )
        )
    assert len({held for _, held in outcomes}) >= 2, outcomes  # killed at different points
