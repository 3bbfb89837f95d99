"""The extensions agentcore ships: a tool logger and a context-info injector (the bash
guard lives with the coding tools, ``agentcore/_coding/bash_guard.py``).

Each is a factory returning an extension (``agent.use(tool_logger())``); see
docs/middleware.md. They use only the public ``ExtensionAPI``, like yours would.
"""

from __future__ import annotations

import datetime
import logging
import pathlib
from collections.abc import Callable, Mapping
from typing import Any

from .._core.driver import Message
from .._core.events import UserMessage
from .._loop.events import ToolExecutionEnd, ToolExecutionStart
from .extensions import Extension, ExtensionAPI
from .extensions import extension as declared

__all__ = ["context_info", "tool_logger"]

_log = logging.getLogger("agentcore.tools")


def tool_logger(on_log: Callable[[Mapping[str, Any]], object] | None = None) -> Extension:
    """Log each tool call's start (name, id, arguments) and end (error flag, duration in
    ms, from the events' timestamps). ``on_log(entry)`` gets each entry as a dict;
    by default entries go to the ``agentcore.tools`` logger at INFO."""
    emit = on_log if on_log is not None else _log_entry

    def extension(api: ExtensionAPI) -> None:
        started: dict[str, int] = {}

        def on_event(output: Any) -> None:
            cls = type(output)
            if cls is ToolExecutionStart:
                started[output.tool_call_id] = output.timestamp
                emit(
                    {
                        "type": "start",
                        "tool_name": output.tool_name,
                        "tool_call_id": output.tool_call_id,
                        "args": output.args,
                    }
                )
            elif cls is ToolExecutionEnd:
                began = started.pop(output.tool_call_id, output.timestamp)
                emit(
                    {
                        "type": "end",
                        "tool_name": output.tool_name,
                        "tool_call_id": output.tool_call_id,
                        "is_error": output.is_error,
                        "duration_ms": output.timestamp - began,
                    }
                )

        api.on("event", on_event)

    return declared(extension)


def _log_entry(entry: Mapping[str, Any]) -> None:
    if entry["type"] == "start":
        _log.info("tool %s (%s) started", entry["tool_name"], entry["tool_call_id"])
    else:
        outcome = "failed" if entry["is_error"] else "ended"
        _log.info(
            "tool %s (%s) %s after %d ms",
            entry["tool_name"],
            entry["tool_call_id"],
            outcome,
            entry["duration_ms"],
        )


def context_info(
    cwd: str | pathlib.Path | None = None,
    *,
    now: Callable[[], datetime.datetime] | None = None,
) -> Extension:
    """Before each model call, put a short note first in the context: the working
    directory, its git branch (read from ``.git/HEAD``, no subprocess) and the time.
    The note shapes that call's request only; the history is unchanged."""
    root = pathlib.Path(cwd if cwd is not None else pathlib.Path.cwd()).resolve()
    clock = now or (lambda: datetime.datetime.now().astimezone())

    def extension(api: ExtensionAPI) -> None:
        def inject(messages: tuple[Message, ...]) -> tuple[Message, ...]:
            lines = [f"Working directory: {root}"]
            branch = _git_branch(root)
            if branch is not None:
                lines.append(f"Git branch: {branch}")
            lines.append(f"Current time: {clock().isoformat(timespec='seconds')}")
            note = UserMessage(
                message_id="context_info", content="<context>\n" + "\n".join(lines) + "\n</context>"
            )
            return (note, *messages)

        api.on("transform_context", inject)

    return declared(extension)


def _git_branch(root: pathlib.Path) -> str | None:
    """The branch checked out in the repository holding ``root`` (a short commit id when
    detached), or ``None`` outside a repository."""
    for folder in (root, *root.parents):
        git = folder / ".git"
        if git.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = git.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("gitdir:"):
                return None
            git = (folder / text.removeprefix("gitdir:").strip()).resolve()
        if git.is_dir():
            try:
                head = (git / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if head.startswith("ref: "):
                return head.removeprefix("ref: ").removeprefix("refs/heads/")
            return head[:12]
    return None
