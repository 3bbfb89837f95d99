"""Sessions kept as JSONL journals and a little JSON about each.

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import os
import pathlib
import stat

import pytest

from agentcore._app.code.sessions import JsonlSessions, default_sessions_dir
from agentcore.errors import ConfigurationError
from agentcore.events import UserMessage


def test_create_open_latest_list_update_discard(tmp_path: pathlib.Path) -> None:
    store = JsonlSessions(tmp_path / "s")
    assert store.list() == [] and store.latest("/w") is None
    first = store.create("/w", "demo")
    second = store.create("/other", "openai/gpt-5")
    third = store.create("/w", "demo")
    assert len({first.info.id, second.info.id, third.info.id}) == 3
    assert stat.S_IMODE(os.stat(tmp_path / "s").st_mode) == 0o700
    assert {i.id for i in store.list()} == {first.info.id, second.info.id, third.info.id}
    assert [i.created for i in store.list()] == sorted(i.created for i in store.list())
    os.utime(store.directory / f"{first.info.id}.jsonl", ns=(1, 1))
    assert store.latest("/w") == third.info
    first.journal.append(first.info.id, UserMessage("m1", "hello"))  # used last
    first.journal.close()
    assert store.latest("/w") == first.info
    store.discard(first.info.id)
    assert store.latest("/w") == third.info
    store.discard(third.info.id)
    assert store.latest("/w") is None and [i.id for i in store.list()] == [second.info.id]
    first = store.create("/w", "demo")
    first.journal.append(first.info.id, UserMessage("m1", "hello"))
    again = store.open(first.info.id)
    assert again.info == first.info
    assert [e.event.content for e in again.journal.entries()] == ["hello"]
    store.update(again.info.__class__(**{**again.info.__getstate__(), "title": "hello"}))
    assert store.open(first.info.id).info.title == "hello"


def test_bad_ids_and_lost_info(tmp_path: pathlib.Path) -> None:
    store = JsonlSessions(tmp_path)
    for bad in ("nope", "../x", ".hidden"):
        with pytest.raises(ConfigurationError, match="no session"):
            store.open(bad)
    session = store.create("/w", "demo")
    (tmp_path / f"{session.info.id}.json").unlink()
    info = store.open(session.info.id).info
    assert (info.id, info.cwd, info.model) == (session.info.id, "", "")


def test_default_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_sessions_dir() == tmp_path / "agentcore" / "sessions"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_sessions_dir() == tmp_path / ".local" / "state" / "agentcore" / "sessions"
