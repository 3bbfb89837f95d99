"""Reading JSONL journals fast: records, direct event building and the forked reader
change nothing.

Tests the private modules ``agentcore._journal.read`` and ``agentcore._journal.fork``: the
fast reader and the forked one against the plain one."""

from __future__ import annotations

import _thread
import os
import pathlib
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal import fork as _journal_fork
from agentcore._journal import read as _journal_read
from agentcore.events import TextDelta, from_dict, to_dict
from agentcore.journal import JournalError, JsonlJournal, MemoryJournal, read_jsonl, replay
from agentcore.testing import events, stream_events

PARALLEL = pytest.mark.parametrize("parallel", [False, True], ids=["in-process", "forked"])

# how a forked read shares the parsing: the child parses every frame, the parent parses
# every frame but the last, or as the pipe's fill level says (the default)
SPLITS = {"child-parses": 0, "parent-parses": 1 << 40, "balanced": _journal_fork._LOW_WATER}


@pytest.fixture(params=list(SPLITS))
def split(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(_journal_fork, "_LOW_WATER", SPLITS[request.param])
    return str(request.param)


@settings(max_examples=200, deadline=None)
@given(events())
def test_fast_builder_equals_from_dict(event: Any) -> None:
    wire = to_dict(event)
    count, values, check = _journal_read.VALUES[wire["type"]]
    assert count == len(wire["data"])
    if check is not None:
        assert check(values(wire["data"]), wire["timestamp"]) == event
    built = _journal_read.BUILDERS[wire["type"]](values(wire["data"]), wire["timestamp"])
    assert type(built) is type(event)
    assert built == from_dict(wire) == event


@PARALLEL
@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ('{"text":"a"}', "missing field"),
        ('{"text":"a","inde":0}', "missing field"),
        ('{"text":"a","index":0,"extra":1}', "unknown field"),
        ('{"text":1,"index":0,"extra":1}', "unknown field"),
    ],
)
def test_a_line_off_the_fast_path_gets_from_dicts_error(
    tmp_path: pathlib.Path, parallel: bool, data: str, problem: str
) -> None:
    path = tmp_path / "j.jsonl"
    event = '{"type":"text_delta","timestamp":1,"data":' + data + "}"
    path.write_text('{"agent_id":"a","seq":1,"event":' + event + "}\n")
    with pytest.raises(JournalError, match=rf"j\.jsonl:1: corrupt journal line.*{problem}"):
        list(read_jsonl(path, parallel=parallel))


def _write(path: pathlib.Path, stream: list[Any]) -> None:
    journal = JsonlJournal(path)
    for number, event in enumerate(stream):
        journal.append(f"a{number % 3}", event)
    journal.close()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(stream_events(), max_size=300),
    st.sampled_from([None, "a1"]),
    st.sampled_from([False, True]),
)
def test_file_replay_equals_memory_replay(
    stream: list[Any], agent: str | None, parallel: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.jsonl"
        _write(path, stream)
        entries = list(read_jsonl(path, parallel=parallel))
        assert [e.event for e in entries] == stream
        memory = MemoryJournal(entries)
        replayed = list(replay(path, agent_id=agent, parallel=parallel))
        assert replayed == list(replay(memory, agent_id=agent))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(stream_events(), max_size=1200),
    st.sampled_from([None, "a2"]),
    st.sampled_from(list(SPLITS.values())),
)
def test_a_forked_read_gives_the_entries_this_process_would_read(
    stream: list[Any], agent: str | None, low_water: int
) -> None:
    def entries(blocks: Iterator[list[Any]]) -> list[Any]:
        return [e for records in blocks for e in _journal_read.build_entries(records, True)]

    _journal_fork._LOW_WATER, default = low_water, _journal_fork._LOW_WATER
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.jsonl"
        _write(path, stream)
        here = entries(_journal_read.in_process_records(path, agent, True))
        try:
            forked = entries(_journal_fork.forked_records(path, agent, True))
        finally:
            _journal_fork._LOW_WATER = default
        assert forked == here


@PARALLEL
def test_a_corrupt_line_in_a_later_block_is_named_after_the_entries_before_it(
    tmp_path: pathlib.Path, parallel: bool, split: str
) -> None:
    path = tmp_path / "j.jsonl"
    count = _journal_read.BLOCK_LINES * 9 + 5
    _write(path, [TextDelta(text="x", index=0)] * count)
    lines = path.read_bytes().split(b"\n")
    bad = _journal_read.BLOCK_LINES * 5 + 3  # 1-based line number, in a later frame
    lines[bad - 1] = b'{"agent_id": "a0", "seq": 9, "event": {"type": "text_delta", "data": 1}}'
    path.write_bytes(b"\n".join(lines))
    seen: list[int] = []
    with pytest.raises(JournalError, match=rf"j\.jsonl:{bad}: corrupt journal line"):
        for entry in read_jsonl(path, parallel=parallel):
            seen.append(entry.seq)
    assert len(seen) == bad - 1
    with pytest.raises(JournalError, match=rf"j\.jsonl:{bad}:"):
        list(replay(path, parallel=parallel))


@PARALLEL
def test_well_formed_lines_with_missing_optional_fields_still_decode(
    tmp_path: pathlib.Path, parallel: bool
) -> None:
    path = tmp_path / "j.jsonl"
    event = b'{"type":"thinking_delta","data":{"text":"t","index":0}}'
    line = b'{"agent_id":"a","seq":1,"event":' + event + b"}"
    path.write_bytes(line + b"\n")
    [entry] = read_jsonl(path, parallel=parallel)
    assert entry.event == from_dict({"type": "thinking_delta", "data": {"text": "t", "index": 0}})


def _many_deltas(path: pathlib.Path, count: int = 3000) -> list[Any]:
    stream = [TextDelta(text=f"t{n}", index=0, timestamp=n) for n in range(count)]
    _write(path, stream)
    return stream


def _all_reaped(pids: list[int]) -> bool:
    """Whether there were children and every one of them was reaped."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return bool(pids)


def test_a_child_that_dies_early_is_replaced_by_reading_the_rest_here(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, split: str, forks: list[int]
) -> None:
    path = tmp_path / "j.jsonl"
    stream = _many_deltas(path)
    real_write = _journal_fork._write_all

    def write_one_frame_then_die(fd: int, data: bytes) -> None:  # runs in the child
        real_write(fd, data)
        os._exit(1)

    monkeypatch.setattr(_journal_fork, "_write_all", write_one_frame_then_die)
    assert [e.event for e in read_jsonl(path, parallel=True)] == stream
    assert _all_reaped(forks)


def test_stopping_early_kills_and_reaps_the_child(tmp_path: pathlib.Path, forks: list[int]) -> None:
    path = tmp_path / "j.jsonl"
    _many_deltas(path, 20_000)
    entries: Iterator[Any] = read_jsonl(path, parallel=True)
    assert next(entries).seq == 1
    entries.close()  # type: ignore[attr-defined]
    assert _all_reaped(forks)


def test_a_multi_threaded_process_reads_without_forking(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.jsonl"
    stream = _many_deltas(path)

    def no_fork() -> int:
        raise AssertionError("forked while another thread runs")

    monkeypatch.setattr(os, "fork", no_fork)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert [e.event for e in read_jsonl(path, parallel=True)] == stream
    finally:
        release.set()
        other.join()


def test_only_a_caller_who_asks_gets_a_forked_reader(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.jsonl"
    stream = _many_deltas(path)
    monkeypatch.setattr(_journal_read, "CHUNK_BYTES", 4096)  # many chunks, as a large file
    forks: list[int] = []
    real_fork = os.fork

    def counting_fork() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", counting_fork)
    assert [e.event for e in read_jsonl(path)] == stream
    assert list(replay(path)) == list(replay(path, parallel=True))
    assert forks == [1]
    assert [e.event for e in read_jsonl(path, parallel=True)] == stream
    assert forks == [1, 1]


def test_a_slow_reader_leaves_the_parsing_to_the_child(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.jsonl"
    stream = _many_deltas(path, 12_000)  # 47 frames
    parsed_here: list[int] = []
    real = _journal_fork.lines_records

    def counting(*args: Any, **kwargs: Any) -> Iterator[list[Any]]:
        parsed_here.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_journal_fork, "lines_records", counting)
    events = []
    for records in _journal_fork.forked_records(path, None, True):
        time.sleep(0.002)  # a fold much slower than parsing: the pipe stays full
        events += _journal_read.build_entries(records, True)
    assert [e.event for e in events] == stream
    # only a few frames, sent while the pipe was filling up, were left to this process
    assert len(parsed_here) <= 8


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(max_size=60), max_size=40),
    st.integers(1, 300),
    st.integers(0, 45),
    st.sampled_from([b"", b'{"agent_id":"a","seq":9', b"\n\n"]),
)
def test_reading_in_chunks_of_any_size_gives_every_line_once(
    texts: list[str], chunk_bytes: int, skip: int, tail: bytes
) -> None:
    """Lines cut anywhere by the chunk boundaries, longer than a chunk, empty, and an
    unterminated tail: the same records as parsing the whole file at once, also after
    skipping lines (as a reader does when its forked child died)."""
    default, _journal_read.CHUNK_BYTES = _journal_read.CHUNK_BYTES, chunk_bytes
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "j.jsonl"
            _write(path, [TextDelta(text=text, index=0) for text in texts])
            with path.open("ab") as f:
                f.write(tail)
            lines = path.read_bytes().split(b"\n")
            skip = min(skip, len(lines) - 1)  # whole lines only: the tail is the last item

            def parsed(lines: list[bytes], offset: int) -> list[Any]:
                return [
                    record
                    for block in range(0, len(lines), _journal_read.BLOCK_LINES)
                    for record in _journal_read.parse_lines(path, lines, block, None, True, offset)[
                        0
                    ]
                ]

            def read(skip: int) -> list[Any]:
                blocks = _journal_read.in_process_records(path, None, True, skip)
                return [record for block in blocks for record in block]

            assert read(0) == parsed(lines, 0)
            assert read(skip) == parsed(lines[skip:], skip)
    finally:
        _journal_read.CHUNK_BYTES = default


def test_a_thread_threading_cannot_see_forbids_the_fork(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.jsonl"
    stream = _many_deltas(path)
    assert _journal_fork.can_fork() == sys.platform.startswith("linux")  # forked tests fork

    def no_fork() -> int:
        raise AssertionError("forked while a native thread runs")

    lock = _thread.allocate_lock()
    lock.acquire()
    _thread.start_new_thread(lock.acquire, ())  # a thread as a C library starts one
    try:
        assert threading.active_count() == 1
        assert not _journal_fork.can_fork()
        monkeypatch.setattr(os, "fork", no_fork)
        assert [e.event for e in read_jsonl(path, parallel=True)] == stream
    finally:
        lock.release()
        deadline = time.monotonic() + 5
        while not _journal_fork.can_fork() and time.monotonic() < deadline:
            time.sleep(0.001)  # the thread is leaving: later tests may fork again
