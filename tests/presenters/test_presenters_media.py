"""Presenters never write media bytes into their text: the JSONL presenter and the
persistence rows refer to blobs stored once (and read them back); the console and
OpenTelemetry show a placeholder, kinds and sizes."""

from __future__ import annotations

import base64
import json
import os
import pathlib
from typing import Any

import pytest

from agentcore.events import (
    AudioContent,
    DocumentContent,
    ImageContent,
    TextContent,
    ToolResultMessage,
    TurnResponse,
    Usage,
    UserMessage,
)
from agentcore.journal import MemoryBlobs
from agentcore.presenters import PersistencePresenter, PostgresRows, SqliteRows
from agentcore.presenters.jsonl import JsonlPresenter, decode_line, encode_line

PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(50_000)
PDF = b"%PDF-1.4\n" + os.urandom(20_000)
WAV = b"RIFF\x00\x00\x00\x00WAVE" + os.urandom(10_000)
PARTS = (
    TextContent("look"),
    ImageContent.from_bytes(PNG),
    DocumentContent.from_bytes(PDF, title="a.pdf"),
    AudioContent.from_bytes(WAV),
)


def _outputs() -> list[Any]:
    return [
        UserMessage("u1", PARTS, timestamp=1),
        ToolResultMessage("c1", "shoot", PARTS[:2], timestamp=2),
        UserMessage("u2", PARTS, timestamp=3),
        TurnResponse("t1", 5, Usage(), None, "m", "end_turn", timestamp=4),
    ]


def test_jsonl_lines_refer_to_blobs_stored_once(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "out.jsonl"
    with JsonlPresenter(path) as presenter:
        for output in _outputs():
            presenter.present("a", output)
    text = path.read_text()
    assert len(text) < 3000 and base64.b64encode(PNG[:300]).decode()[:40] not in text
    folder = tmp_path / "out.jsonl.blobs"
    assert sorted(p.stat().st_size for p in folder.iterdir()) == sorted(
        [len(PNG), len(PDF), len(WAV)]
    )
    read = [decode_line(line, presenter.blobs)[1] for line in text.splitlines()]
    assert read == _outputs()


def test_jsonl_into_an_open_file_keeps_media_inline_unless_given_blobs() -> None:
    output = UserMessage("u1", PARTS)
    inline = encode_line("a", output)
    assert PARTS[1].data in inline  # type: ignore[union-attr]
    assert decode_line(inline) == ("a", output)
    blobs = MemoryBlobs()
    line = encode_line("a", output, blobs)
    assert len(line) < 1000 and len(blobs) == 3
    assert decode_line(line, blobs) == ("a", output)


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_persistence_rows_refer_to_blobs_stored_once(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path, database: str
) -> None:
    if database == "sqlite":
        sink: Any = SqliteRows(tmp_path / "rows.db")
    else:
        sink = PostgresRows(request.getfixturevalue("postgres_db"))
    presenter = PersistencePresenter(sink)
    for output in _outputs():
        presenter.present("a", output)
    presenter.flush()
    if database == "sqlite":
        import sqlite3

        conn: Any = sqlite3.connect(tmp_path / "rows.db")
        query = conn.execute
    else:
        import psycopg

        conn = psycopg.connect(request.getfixturevalue("postgres_db"))
        query = conn.execute
    wires = [json.loads(row[0]) for row in query("SELECT wire FROM agentcore_messages")]
    blobs = {row[0]: bytes(row[1]) for row in query("SELECT hash, data FROM agentcore_blobs")}
    conn.close()
    presenter.close()
    assert sorted(len(b) for b in blobs.values()) == sorted([len(PNG), len(PDF), len(WAV)])
    assert all(len(json.dumps(wire)) < 1000 for wire in wires)
    refs = {
        p["blob"]
        for w in wires
        for p in w["data"].get("content", w["data"].get("result"))
        if "blob" in p
    }
    assert refs == set(blobs)
