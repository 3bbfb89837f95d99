"""A resume of a large JSONL journal reads it with a forked child while it folds: the run
records the child sends are the ones this process reads, the state is the one folding
every entry gives, a corrupt line is named as before, and the child finalises none of
the parent's garbage.

Tests the private modules ``agentcore._journal.fork``, ``agentcore._journal.journal``,
``agentcore._journal.read`` and ``agentcore._journal.resume``: the forked reader's run
records and when a resume forks (the journal's ``parallel`` switch included).
"""

from __future__ import annotations

import asyncio
import gc
import os
import pathlib
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent
from agentcore._journal import fork, read
from agentcore._journal.journal import record_blocks
from agentcore._journal.resume import load_conversation
from agentcore.drivers.scripted import ScriptedDriver
from agentcore.errors import ConfigurationError
from agentcore.events import TextDelta
from agentcore.journal import JournalError, JsonlJournal, MemoryJournal, replay
from agentcore.loop import LoopConfig, conversation_processor, create_initial_conversation_state

from .test_delta_runs import _expanded, _write, chunked_lanes, delta_lines

LOW_WATERS = [0, 1 << 40, fork._LOW_WATER]
"""The child parses every frame, the parent every frame but the last, or as the pipe says."""


@pytest.fixture
def spare_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two CPUs, both idle: what ``worth_forking`` asks of the machine."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (0.2, 0.2, 0.2))


@settings(max_examples=60, deadline=None)
@given(
    delta_lines(),
    st.sampled_from([None, "a", "b"]),
    st.sampled_from([2, 5, 64]),
    st.sampled_from(LOW_WATERS),
)
def test_a_forked_read_gives_the_run_records_this_process_reads(
    inputs: list[tuple[str, Any]], agent: str | None, block: int, low_water: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patched:
        patched.setattr(read, "BLOCK_LINES", block)
        patched.setattr(fork, "BLOCK_LINES", block)  # its own name for it
        patched.setattr(fork, "_LOW_WATER", low_water)
        path = pathlib.Path(tmp) / "j.jsonl"
        _write(path, inputs)
        here = list(record_blocks(path, agent_id=agent, runs=True))
        forked = list(record_blocks(path, agent_id=agent, runs=True, parallel=True))
        assert _entries(forked) == _entries(here)  # runs cut where the frames are
        for records in forked:  # the very strings fold_blocks compares by identity
            for record in records:
                if record[2] in read.DELTA_OF:
                    assert record[2] is read.RUN_OF[read.DELTA_OF[record[2]]]


def _entries(blocks: list[list[Any]]) -> list[tuple[str, int, Any]]:
    """Each entry of ``blocks`` (runs expanded) with its event built."""
    build = read.BUILDERS
    return [
        (agent, seq, build[kind](values, timestamp))
        for agent, seq, kind, timestamp, values in _expanded(blocks)
    ]


@settings(max_examples=40, deadline=None)
@given(chunked_lanes(), st.sampled_from([3, 64]), st.sampled_from(LOW_WATERS))
def test_a_forked_resume_lands_in_the_state_of_folding_every_entry(
    inputs: list[tuple[str, Any]], block: int, low_water: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patched:
        patched.setattr(read, "BLOCK_LINES", block)
        patched.setattr(fork, "BLOCK_LINES", block)  # its own name for it
        patched.setattr(fork, "_LOW_WATER", low_water)
        patched.setattr("agentcore._journal.resume.worth_forking", lambda _path: True)
        path = pathlib.Path(tmp) / "j.jsonl"
        _write(path, inputs)
        entries = list(JsonlJournal(path).entries())
        fresh = create_initial_conversation_state(LoopConfig())
        file = JsonlJournal(path)
        forked = 0
        real_fork = os.fork

        def counting_fork() -> int:
            nonlocal forked
            forked += 1
            return real_fork()

        patched.setattr(os, "fork", counting_fork)
        for agent in ("a", "b"):
            lane = MemoryJournal([e for e in entries if e.agent_id == agent])
            whole = load_conversation(lane, agent, conversation_processor, fresh)
            assert load_conversation(file, agent, conversation_processor, fresh) == whole
        assert forked == 2
        assert list(replay(path, parallel=True)) == list(replay(entries))


def _deltas(path: pathlib.Path, count: int) -> None:
    journal = JsonlJournal(path)
    for n in range(count):
        journal.append("a", TextDelta(text=f"t{n} ", index=0, timestamp=n))
    journal.close()


def test_a_resume_forks_for_a_large_file_on_a_spare_cpu_only(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, spare_cpu: None
) -> None:
    path = tmp_path / "j.jsonl"
    assert not fork.worth_forking(path)  # no file
    _deltas(path, 50)
    size = path.stat().st_size
    monkeypatch.setattr(fork, "FORK_BYTES", size + 1)
    assert not fork.worth_forking(path)
    monkeypatch.setattr(fork, "FORK_BYTES", size)
    assert fork.worth_forking(path)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 0.2, 0.2))  # both CPUs about busy
    assert not fork.worth_forking(path)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})  # one CPU allowed
    assert not fork.worth_forking(path)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    assert fork.worth_forking(path)

    def no_load_average() -> tuple[float, float, float]:
        raise OSError("Load averages are unobtainable")

    monkeypatch.setattr(os, "getloadavg", no_load_average)  # a sandbox without /proc
    assert not fork.worth_forking(path)


def test_agent_resume_of_a_large_journal_forks_and_gets_the_same_state(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, spare_cpu: None, forks: list[int]
) -> None:
    path = tmp_path / "j.jsonl"
    _deltas(path, read.BLOCK_LINES * 20)

    async def main() -> Any:
        agent = await Agent.resume(JsonlJournal(path), agent_id="a", model=ScriptedDriver([]))
        try:
            return agent.conversation_state
        finally:
            await agent.aclose()

    def resumed() -> Any:
        return asyncio.run(main())

    monkeypatch.setattr(fork, "FORK_BYTES", path.stat().st_size + 1)
    here = resumed()
    assert forks == []
    monkeypatch.setattr(fork, "FORK_BYTES", path.stat().st_size)
    assert resumed() == here
    assert len(forks) == 1
    for pid in forks:  # reaped
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


@pytest.mark.parametrize("low_water", LOW_WATERS)
def test_a_forked_resume_names_a_corrupt_line(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, spare_cpu: None, low_water: int
) -> None:
    path = tmp_path / "j.jsonl"
    _deltas(path, read.BLOCK_LINES * 9 + 5)
    lines = path.read_bytes().split(b"\n")
    bad = read.BLOCK_LINES * 5 + 3  # in a later frame
    lines[bad - 1] = b'{"agent_id": "a", "seq": 9, "event": {"type": "text_delta", "data": 1}}'
    path.write_bytes(b"\n".join(lines))
    monkeypatch.setattr(fork, "FORK_BYTES", 0)
    monkeypatch.setattr(fork, "_LOW_WATER", low_water)
    fresh = create_initial_conversation_state(LoopConfig())
    with pytest.raises(JournalError, match=rf"j\.jsonl:{bad}: corrupt journal line"):
        load_conversation(JsonlJournal(path), "a", conversation_processor, fresh)


class _Finalised:
    """Garbage in a reference cycle whose finaliser notes the process it ran in."""

    def __init__(self, log: pathlib.Path) -> None:
        self.log = log
        self.me = self

    def __del__(self) -> None:
        with self.log.open("a") as f:
            f.write(f"{os.getpid()}\n")


def test_the_child_finalises_none_of_the_parents_garbage(tmp_path: pathlib.Path) -> None:
    path, log = tmp_path / "j.jsonl", tmp_path / "finalised"
    _deltas(path, 3000)  # the child allocates enough for a collection of its youngest objects
    collecting = gc.isenabled()
    gc.enable()
    try:
        _Finalised(log)  # garbage now, collected at the next collection
        assert len(list(record_blocks(path, runs=True, parallel=True))) > 0
        gc.collect()
    finally:
        if not collecting:
            gc.disable()
    assert log.read_text().split() == [str(os.getpid())]


@pytest.mark.parametrize(
    ("parallel", "size_over", "load", "forked"),
    [
        (None, 0, 0.2, 1),  # the gate: a large file, a spare CPU
        (None, 1, 0.2, 0),  # a small file
        (None, 0, 1.5, 0),  # a busy machine
        (False, 0, 0.2, 0),  # never
        (True, 1, 1.5, 1),  # whatever the size and the load
    ],
)
def test_the_journals_parallel_switch_decides_whether_a_resume_forks(
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    spare_cpu: None,
    forks: list[int],
    parallel: bool | None,
    size_over: int,
    load: float,
    forked: int,
) -> None:
    path = tmp_path / "j.jsonl"
    _deltas(path, read.BLOCK_LINES * 3)
    monkeypatch.setattr(fork, "FORK_BYTES", path.stat().st_size + size_over)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    fresh = create_initial_conversation_state(LoopConfig())
    entries = list(JsonlJournal(path).entries())
    whole = load_conversation(MemoryJournal(entries), "a", conversation_processor, fresh)
    journal = JsonlJournal(path, parallel=parallel)
    assert journal.parallel is parallel
    assert load_conversation(journal, "a", conversation_processor, fresh) == whole
    assert len(forks) == forked


def test_parallel_true_still_reads_in_process_where_forking_is_unsafe(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    path = tmp_path / "j.jsonl"
    _deltas(path, read.BLOCK_LINES * 3)
    monkeypatch.setattr("agentcore._journal.journal.can_fork", lambda: False)
    fresh = create_initial_conversation_state(LoopConfig())
    whole = load_conversation(
        MemoryJournal(list(JsonlJournal(path).entries())), "a", conversation_processor, fresh
    )
    assert (
        load_conversation(JsonlJournal(path, parallel=True), "a", conversation_processor, fresh)
        == whole
    )
    assert forks == []


@pytest.mark.parametrize("value", [1, 0, "yes", "auto"])
def test_a_wrong_parallel_value_is_refused(tmp_path: pathlib.Path, value: Any) -> None:
    with pytest.raises(
        ConfigurationError, match=rf"parallel must be True, False or None, got {value!r}"
    ):
        JsonlJournal(tmp_path / "j.jsonl", parallel=value)
    assert not (tmp_path / "j.jsonl").exists()
