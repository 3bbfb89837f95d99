"""Media is stored once, by sha256, beside every journal (memory, JSONL, SQLite,
PostgreSQL); the lines refer to it, reading puts it back, replay stays exact, a missing
blob is an error naming its hash, and scrubbing never touches it."""

from __future__ import annotations

import base64
import hashlib
import itertools
import os
import pathlib
import shutil
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore.events import (
    AudioContent,
    DocumentContent,
    ImageContent,
    TextContent,
    ToolResult,
    UserMessage,
)
from agentcore.journal import (
    JournalEntry,
    JsonlJournal,
    MemoryJournal,
    MissingBlobError,
    SqliteJournal,
    read_jsonl,
    replay,
    scrub_event,
)
from agentcore.loop import AgentPrompt
from agentcore.sessions import Sessions
from agentcore.testing import content_parts
from tests.sessions.conftest import Backend, make_backend, sql

_ids = itertools.count()

# a few byte strings, so that parts repeat within one example (one blob, many references)
_POOL = [os.urandom(n) for n in (1, 2, 3, 57, 300, 4096)]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def media_parts() -> st.SearchStrategy[Any]:
    """Parts that carry bytes, of pooled bytes so that they repeat (and now and then data
    that is not canonical base64, which must stay in the line, unchanged)."""
    data = st.one_of(st.sampled_from(_POOL).map(_b64), st.sampled_from(["", "abc", "QQ", "QR=="]))
    return st.one_of(
        st.builds(ImageContent, st.sampled_from(["image/png", "image/webp"]), data),
        st.builds(DocumentContent, st.sampled_from(["application/pdf", "text/plain"]), data),
        st.builds(AudioContent, st.just("audio/wav"), data),
    )


def contents() -> st.SearchStrategy[Any]:
    part = st.one_of(content_parts(), media_parts())
    return st.one_of(st.text(max_size=10), st.lists(part, max_size=5).map(tuple))


def inputs() -> st.SearchStrategy[Any]:
    user = st.builds(UserMessage, st.just("m"), contents(), timestamp=st.integers(0, 99))
    return st.one_of(
        user,
        st.builds(ToolResult, st.just("call_1"), contents(), timestamp=st.integers(0, 99)),
        st.lists(user, min_size=1, max_size=2).map(lambda m: AgentPrompt(tuple(m))),
    )


def _blob_data(events: list[Any]) -> set[bytes]:
    found: set[bytes] = set()

    def walk(value: Any) -> None:
        if isinstance(value, ImageContent | DocumentContent | AudioContent):
            try:
                decoded = base64.b64decode(value.data, validate=True)
            except ValueError:
                return
            if value.data and _b64(decoded) == value.data:
                found.add(decoded)
        elif isinstance(value, tuple):
            for item in value:
                walk(item)
        elif hasattr(value, "__attrs_attrs__"):
            for field in value.__attrs_attrs__:
                walk(getattr(value, field.name))

    for event in events:
        walk(event)
    return found


@pytest.mark.parametrize("name", ["memory", "jsonl", "sqlite", "postgres"])
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events=st.lists(inputs(), min_size=1, max_size=6))
def test_any_mix_of_parts_round_trips_and_replays_the_same(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path, name: str, events: list[Any]
) -> None:
    server = request.getfixturevalue("postgres_server") if name == "postgres" else None
    folder = tmp_path / str(next(_ids))
    folder.mkdir()
    backend = make_backend(name, folder, server)
    journal, _snapshots = backend.open()
    for event in events:
        journal.append("a", event)
    journal.close()
    reopened, _snapshots = backend.open()
    try:
        read = [entry.event for entry in reopened.entries("a")]
        recorded = [scrub_event(event) for event in events]  # a text may look like a key
        assert read == recorded
        appended = [JournalEntry("a", seq, event) for seq, event in enumerate(recorded, 1)]
        assert list(replay(reopened)) == list(replay(appended))
        if isinstance(reopened, JsonlJournal):  # the file's own fast path
            assert list(replay(reopened.path)) == list(replay(appended))
        # each distinct media content once, whatever refers to it how often
        stored = {reopened.blobs.get(digest) for digest in reopened.blobs}  # type: ignore[attr-defined]
        assert stored == _blob_data(events)
    finally:
        reopened.close()


def _image(size: int = 1000) -> ImageContent:
    return ImageContent("image/png", _b64(os.urandom(size)))


def test_one_blob_however_many_inputs_refer_to_it(backend: Backend) -> None:
    picture = _image(20_000)
    journal, _snapshots = backend.open()
    for n in range(5):
        journal.append("a", UserMessage(f"u{n}", (TextContent(f"look {n}"), picture)))
        journal.append("a", ToolResult(f"c{n}", (picture,)))
    journal.append("b", AgentPrompt((UserMessage("u", (picture,)),)))
    journal.close()
    journal, _snapshots = backend.open()
    try:
        assert len(list(journal.blobs)) == 1  # type: ignore[attr-defined]
        (digest,) = journal.blobs  # type: ignore[attr-defined]
        assert journal.blobs.get(digest) == base64.b64decode(picture.data)  # type: ignore[attr-defined]
        events = [entry.event for entry in journal.entries()]
        assert all(picture in getattr(e, "content", getattr(e, "result", ())) for e in events[:-1])
        if isinstance(journal, JsonlJournal):
            assert journal.path.stat().st_size < 4000  # eleven small lines, no base64
            assert picture.data not in journal.path.read_text()
        if backend.sql:
            (longest,) = sql(journal).database.query(
                "SELECT max(length(event)) FROM agentcore_entries"
            )[0]
            assert longest < 400
    finally:
        journal.close()


def test_memory_journal_holds_one_string_for_equal_media() -> None:
    journal = MemoryJournal()
    for n in range(3):
        journal.append("a", UserMessage(f"u{n}", (ImageContent("image/png", _b64(_POOL[4])),)))
    first, *others = (entry.event.content[0].data for entry in journal.entries())
    assert all(other is first for other in others)
    assert len(journal.blobs) == 1


def test_missing_blob_is_an_error_naming_its_hash(tmp_path: pathlib.Path) -> None:
    picture = _image()
    jsonl = JsonlJournal(tmp_path / "j.jsonl")
    jsonl.append("a", UserMessage("u", (picture,)))
    jsonl.close()
    (digest,) = jsonl.blobs
    shutil.rmtree(jsonl.blobs.folder)
    hexdigest = digest.removeprefix("sha256:")
    with pytest.raises(MissingBlobError, match=f"j.jsonl:1: blob sha256:{hexdigest} is missing"):
        list(read_jsonl(jsonl.path))
    with pytest.raises(MissingBlobError, match=f"blob sha256:{hexdigest} is missing"):
        list(replay(jsonl.path))

    sqlite = SqliteJournal(tmp_path / "j.db")
    sqlite.append("a", UserMessage("u", (picture,)))
    with sqlite.database.transaction() as tx:
        tx.run("DELETE FROM agentcore_blobs")
    with pytest.raises(MissingBlobError, match=f"entry 1 of agent 'a': blob sha256:{hexdigest}"):
        list(sqlite.entries())
    sqlite.close()


# base64 that reads like a Google API key ("AIza" and 35 more letters) and like a bearer
# token: the scrubber must leave both alone inside media
_KEYLIKE = "AIza" + "B" * 36 + "QmVhcmVyIGFiY2RlZmcxMjM0NTY3OA=="


@pytest.mark.parametrize("name", ["memory", "jsonl", "sqlite"])
def test_scrubbing_never_touches_media(tmp_path: pathlib.Path, name: str) -> None:
    assert _b64(base64.b64decode(_KEYLIKE)) == _KEYLIKE
    picture = ImageContent("image/png", _KEYLIKE)
    event = UserMessage(
        "u", (TextContent("my key is sk-ant-api03-abcdefghijklmnopqrstuv"), picture)
    )
    scrubbed = scrub_event(event)
    assert scrubbed.content[1] == picture
    assert "sk-ant" not in scrubbed.content[0].text
    journal, _snapshots = make_backend(name, tmp_path).open()
    journal.append("a", event)
    (entry,) = journal.entries()
    assert entry.event.content == scrubbed.content
    journal.close()


def test_a_fork_carries_its_blobs(sql_backend: Backend) -> None:
    picture = _image()
    journal, snapshots = sql_backend.open()
    journal.append("s1", UserMessage("u", (TextContent("see"), picture)))
    sessions = Sessions(sql(journal), snapshots)
    sessions.fork("s1", "s2")
    sessions.delete("s1")
    (entry,) = journal.entries("s2")
    assert entry.event.content[1] == picture
    journal.close()


@pytest.mark.parametrize("target", ["memory", "jsonl", "sqlite"])
def test_a_copied_session_carries_its_blobs(tmp_path: pathlib.Path, target: str) -> None:
    picture = _image()
    source = JsonlJournal(tmp_path / "source.jsonl")
    source.append("a", UserMessage("u", (picture,)))
    source.close()
    copy, _snapshots = make_backend(target, tmp_path).open()
    for entry in source.entries():
        copy.append(entry.agent_id, entry.event)
    shutil.rmtree(source.blobs.folder)  # the copy holds its own
    assert [entry.event for entry in copy.entries()] == [UserMessage("u", (picture,))]
    digest = hashlib.sha256(base64.b64decode(picture.data)).hexdigest()
    assert list(copy.blobs) == [f"sha256:{digest}"]  # type: ignore[attr-defined]
    copy.close()


def test_a_journal_line_described_names_media_never_their_bytes() -> None:
    from agentcore.cli import describe

    picture = ImageContent.from_bytes(b"\x89PNG\r\n\x1a\n" + bytes(5000))
    line = describe(UserMessage("u1", (TextContent("hi"), picture)))
    assert '"[image image/png, 4.9 KB]"' in line
    assert picture.data[:12] not in line
