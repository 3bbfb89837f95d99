"""JsonlPresenter: one wire-form line per output, flushed at turn end and on close."""

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.errors import EngineClosedError, InvalidEventError
from agentcore.events import ConversationEnd, TextDelta, TurnResponse, from_dict
from agentcore.presenters.jsonl import JsonlPresenter, decode_line, encode_line


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_lines_round_trip_through_from_dict(tmp_path: Path, conversation: list[Any]) -> None:
    path = tmp_path / "out.jsonl"
    with JsonlPresenter(path) as p:
        for i, out in enumerate(conversation):
            p.present(f"agent-{i % 2}", out)
    lines = _lines(path)
    assert len(lines) == len(conversation)
    for i, (line, out) in enumerate(zip(lines, conversation, strict=True)):
        record = json.loads(line)
        assert set(record) == {"agent_id", "event"}
        assert record["agent_id"] == f"agent-{i % 2}"
        assert from_dict(record["event"]) == out
        assert decode_line(line) == (f"agent-{i % 2}", out)


def test_flushes_at_turn_end_not_before(tmp_path: Path, conversation: list[Any]) -> None:
    path = tmp_path / "out.jsonl"
    p = JsonlPresenter(path)
    end = next(i for i, o in enumerate(conversation) if isinstance(o, ConversationEnd))
    for out in conversation[:end]:
        p.present("a1", out)
    assert _lines(path) == []  # nothing written mid-turn
    p.present("a1", conversation[end])
    assert len(_lines(path)) == end + 1  # conversation_end flushes
    p.present("a1", conversation[end + 1])  # turn_response flushes too
    assert len(_lines(path)) == end + 2
    p.present("a1", TextDelta("next turn", 0))
    assert len(_lines(path)) == end + 2
    p.close()
    assert decode_line(_lines(path)[-1]) == ("a1", TextDelta("next turn", 0))


def test_appends_to_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    for text in ("one", "two"):
        with JsonlPresenter(path) as p:
            p.present("a1", TextDelta(text, 0))
    assert [decode_line(line)[1].text for line in _lines(path)] == ["one", "two"]


def test_fsync_flushes_to_disk_at_turn_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    path = tmp_path / "synced.jsonl"
    with JsonlPresenter(path, fsync=True) as p:
        p.present("a1", TextDelta("x", 0))
        assert synced == []
        p.present("a1", ConversationEnd("completed"))
        assert len(synced) == 1 and len(_lines(path)) == 2
    with JsonlPresenter(tmp_path / "plain.jsonl") as p:
        p.present("a1", ConversationEnd("completed"))
    assert len(synced) == 2  # the close of the first presenter only; fsync=False never syncs


def test_full_buffer_is_written_early() -> None:
    buf = io.StringIO()
    p = JsonlPresenter(buf, max_buffered=3)
    for i in range(7):
        p.present("a1", TextDelta(str(i), 0))
    assert len(buf.getvalue().splitlines()) == 6
    with pytest.raises(ValueError, match="max_buffered"):
        JsonlPresenter(buf, max_buffered=0)


def test_close_is_idempotent_and_present_after_close_raises(tmp_path: Path) -> None:
    buf = io.StringIO()
    p = JsonlPresenter(buf)
    p.present("a1", TextDelta("x", 0))
    p.close()
    p.close()
    p.flush()
    assert p.closed
    assert not buf.closed  # a caller's file stays open
    assert len(buf.getvalue().splitlines()) == 1
    with pytest.raises(EngineClosedError, match="closed; create a new presenter"):
        p.present("a1", TextDelta("y", 0))
    owned = JsonlPresenter(tmp_path / "x.jsonl")
    owned.close()
    with pytest.raises(RuntimeError, match=r"x\.jsonl is closed"):
        owned.present("a1", TextDelta("y", 0))


def test_unregistered_outputs_and_bad_lines_raise_clear_errors() -> None:
    p = JsonlPresenter(io.StringIO())
    with pytest.raises(InvalidEventError, match="not a registered event type"):
        p.present("a1", object())
    with pytest.raises(InvalidEventError, match="truncated last line"):
        decode_line('{"agent_id": "a1", "ev')
    with pytest.raises(InvalidEventError, match="string 'agent_id'"):
        decode_line('{"event": {}}')
    with pytest.raises(InvalidEventError, match="'event' object"):
        decode_line('{"agent_id": "a1", "event": [1]}')
    with pytest.raises(InvalidEventError, match="unknown event type"):
        decode_line('{"agent_id": "a1", "event": {"type": "nope"}}')


@settings(max_examples=100)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a1", "a2"]),
            st.one_of(
                st.builds(TextDelta, st.text(), st.integers(0, 5)),
                st.builds(ConversationEnd, st.sampled_from(["completed", "error"])),
                st.builds(
                    TurnResponse,
                    st.text(),
                    st.integers(0, 10**6),
                    cost=st.none() | st.floats(0, 10, allow_nan=False),
                ),
            ),
        ),
        max_size=30,
    )
)
def test_every_output_written_once_in_order(pairs: list[tuple[str, Any]]) -> None:
    buf = io.StringIO()
    p = JsonlPresenter(buf)
    for aid, out in pairs:
        p.present(aid, out)
    p.close()
    assert [decode_line(line) for line in buf.getvalue().splitlines()] == pairs
    assert all(encode_line(a, o) + "\n" in buf.getvalue() for a, o in pairs)
