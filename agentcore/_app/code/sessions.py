"""Where ``agentcore code`` keeps its sessions: a journal each, plus a little about it.

A session is its journal (every input of the agent, so ``Agent.resume`` rebuilds the
conversation) and a ``SessionInfo``: the workspace, the model, when it started and its
first prompt as a title. ``SessionStore`` is what the app needs from a backend (a
session left without a prompt is discarded, so ``--resume`` finds the last real one);
``JsonlSessions`` keeps each session as ``ID.jsonl`` (the journal), ``ID.json`` (the
info) and ``ID.tools.log`` (the tool logger's lines) in one directory. Another backend
(a database holding journals) implements the same methods.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import Protocol

import attrs

from ..._core.errors import ConfigurationError
from ..._journal.journal import Journal, JsonlJournal

__all__ = ["JsonlSessions", "Session", "SessionInfo", "SessionStore", "default_sessions_dir"]


@attrs.frozen(slots=True)
class SessionInfo:
    """What a session is about: ``cwd`` (the workspace), ``model`` (as given on the command
    line), ``created`` (ms since the epoch) and ``title`` (its first prompt, or "")."""

    id: str
    cwd: str
    model: str
    created: int
    title: str = ""


@attrs.frozen(slots=True)
class Session:
    """A session's info, its journal (the agent's id in it is ``info.id``) and the file
    its tool calls are logged to (``None``: the ``agentcore.tools`` logger)."""

    info: SessionInfo
    journal: Journal
    log: Path | None = None


class SessionStore(Protocol):
    """A place for sessions. ``open`` and ``create`` return the journal ready to append;
    ``update`` saves changed info; ``discard`` forgets a session."""

    def create(self, cwd: str, model: str) -> Session: ...

    def open(self, session_id: str) -> Session: ...

    def latest(self, cwd: str) -> SessionInfo | None:
        """The session of ``cwd`` used last."""

    def list(self) -> list[SessionInfo]:
        """Every session, oldest first."""

    def update(self, info: SessionInfo) -> None: ...

    def discard(self, session_id: str) -> None: ...


def default_sessions_dir() -> Path:
    """``$XDG_STATE_HOME/agentcore/sessions`` (``~/.local/state/agentcore/sessions``)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(state) / "agentcore" / "sessions"


def new_session_id(now_ms: int) -> str:
    """``20260102-150405-3fa2``: sorts by time, unique enough for one person's sessions."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now_ms / 1000))
    return f"{stamp}-{secrets.token_hex(2)}"


class JsonlSessions:
    """Sessions as files in ``directory`` (created on first use, readable by you only)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_sessions_dir()

    def __repr__(self) -> str:
        return f"JsonlSessions({str(self.directory)!r})"

    def create(self, cwd: str, model: str) -> Session:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        now = int(time.time() * 1000)
        info = SessionInfo(new_session_id(now), cwd, model, now)
        while self._journal_path(info.id).exists():  # two sessions in the same second
            info = attrs.evolve(info, id=new_session_id(now))
        self.update(info)
        return self._session(info)

    def open(self, session_id: str) -> Session:
        path = self._journal_path(session_id)
        if "/" in session_id or session_id.startswith(".") or not path.exists():
            raise ConfigurationError(
                f"no session {session_id!r} in {self.directory}; list them with "
                "agentcore code --sessions"
            )
        return self._session(self._info(session_id))

    def latest(self, cwd: str) -> SessionInfo | None:
        """The session of ``cwd`` whose journal was written last."""
        mine = [info for info in self.list() if info.cwd == cwd]
        if not mine:
            return None
        return max(mine, key=lambda info: self._journal_path(info.id).stat().st_mtime_ns)

    def list(self) -> list[SessionInfo]:
        """Every session, oldest first."""
        if not self.directory.is_dir():
            return []
        found = [self._info(p.stem) for p in self.directory.glob("*.jsonl")]
        return sorted(found, key=lambda info: (info.created, info.id))

    def update(self, info: SessionInfo) -> None:
        path = self.directory / f"{info.id}.json"
        temporary = path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(attrs.asdict(info), ensure_ascii=False) + "\n")
        os.replace(temporary, path)

    def discard(self, session_id: str) -> None:
        for path in (
            self._journal_path(session_id),
            self.directory / f"{session_id}.json",
            self._log_path(session_id),
        ):
            path.unlink(missing_ok=True)

    def _session(self, info: SessionInfo) -> Session:
        return Session(info, JsonlJournal(self._journal_path(info.id)), self._log_path(info.id))

    def _journal_path(self, session_id: str) -> Path:
        return self.directory / f"{session_id}.jsonl"

    def _log_path(self, session_id: str) -> Path:
        return self.directory / f"{session_id}.tools.log"

    def _info(self, session_id: str) -> SessionInfo:
        try:
            data = json.loads((self.directory / f"{session_id}.json").read_text())
            return SessionInfo(**data)
        except (OSError, ValueError, TypeError):  # a journal whose info was lost
            created = int(self._journal_path(session_id).stat().st_mtime * 1000)
            return SessionInfo(session_id, "", "", created)
