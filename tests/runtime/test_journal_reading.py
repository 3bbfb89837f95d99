"""Reading JSONL journals fast: block decoding and direct event building change nothing."""

from __future__ import annotations

import pathlib
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import _journal
from agentcore.events import TextDelta, from_dict, to_dict
from agentcore.journal import JournalError, JsonlJournal, MemoryJournal, read_jsonl, replay
from agentcore.testing import events, stream_events


@settings(max_examples=200, deadline=None)
@given(events())
def test_fast_builder_equals_from_dict(event: Any) -> None:
    wire = to_dict(event)
    built = _journal._BUILDERS[wire["type"]](wire["data"], wire["timestamp"])
    assert type(built) is type(event)
    assert built == from_dict(wire) == event


def test_builder_rejects_a_missing_or_unknown_field() -> None:
    build = _journal._BUILDERS["text_delta"]
    with pytest.raises(KeyError):
        build({"text": "a"}, 0)
    with pytest.raises(KeyError):
        build({"text": "a", "inde": 0}, 0)
    with pytest.raises(KeyError):
        build({"text": "a", "index": 0, "extra": 1}, 0)


def _write(path: pathlib.Path, stream: list[Any]) -> None:
    journal = JsonlJournal(path)
    for number, event in enumerate(stream):
        journal.append(f"a{number % 3}", event)
    journal.close()


@settings(max_examples=50, deadline=None)
@given(st.lists(stream_events(), max_size=300), st.sampled_from([None, "a1"]))
def test_file_replay_equals_memory_replay(stream: list[Any], agent: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.jsonl"
        _write(path, stream)
        entries = list(read_jsonl(path))
        assert [e.event for e in entries] == stream
        memory = MemoryJournal(entries)
        assert list(replay(path, agent_id=agent)) == list(replay(memory, agent_id=agent))


def test_a_corrupt_line_in_a_later_block_is_named_after_the_entries_before_it(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "j.jsonl"
    count = _journal._BLOCK_LINES * 2 + 5
    _write(path, [TextDelta(text="x", index=0)] * count)
    lines = path.read_bytes().split(b"\n")
    bad = _journal._BLOCK_LINES + 3  # 1-based line number
    lines[bad - 1] = b'{"agent_id": "a0", "seq": 9, "event": {"type": "text_delta", "data": 1}}'
    path.write_bytes(b"\n".join(lines))
    seen: list[int] = []
    with pytest.raises(JournalError, match=rf"j\.jsonl:{bad}: corrupt journal line"):
        for entry in read_jsonl(path):
            seen.append(entry.seq)
    assert len(seen) == bad - 1
    with pytest.raises(JournalError, match=rf"j\.jsonl:{bad}:"):
        list(replay(path))


def test_well_formed_lines_with_missing_optional_fields_still_decode(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "j.jsonl"
    event = b'{"type":"thinking_delta","data":{"text":"t","index":0}}'
    line = b'{"agent_id":"a","seq":1,"event":' + event + b"}"
    path.write_bytes(line + b"\n")
    [entry] = read_jsonl(path)
    assert entry.event == from_dict({"type": "thinking_delta", "data": {"text": "t", "index": 0}})
