"""What the coding tools need from a machine, as small protocols, one per tool family.

A tool never touches the file system or starts a process itself: it calls these
operations, so the same tools work on another machine (over ssh, in a container, in a
sandbox) by passing another implementation. Two ship with agentcore:
``LocalOperations`` (this machine) and ``ShellOperations`` (every operation a shell script
run through a command prefix such as ``ssh host`` or ``docker exec -i box sh -c``).

Paths given to operations are absolute, real (links resolved) and already confined to
the workspace by the tool; the file operations follow no symbolic link in them (a part
that is a link now was swapped in after the check: ``OutsideWorkspaceError``). Failures
raise the builtin ``OSError`` subclasses (``FileNotFoundError``, ``IsADirectoryError``,
``NotADirectoryError``, ``PermissionError``, or an ``OSError`` with the real ``errno``:
``ENOSPC``, ``EDQUOT``, ``EFBIG``...) so the tools can turn them into clear error results
whatever the backend.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Protocol

import attrs

from .._runtime.tool_runner import AbortSignal

__all__ = [
    "DirEntry",
    "EditOperations",
    "ExecOperations",
    "ExecResult",
    "GrepLine",
    "GrepQuery",
    "ListOperations",
    "Operations",
    "PathOperations",
    "ReadOperations",
    "SearchOperations",
    "WriteOperations",
]


@attrs.frozen(slots=True)
class DirEntry:
    """One directory entry; ``is_dir`` follows symbolic links."""

    name: str
    is_dir: bool


@attrs.frozen(slots=True)
class ExecResult:
    """How a command ended: its exit code (None when it was killed by us), and why."""

    exit_code: int | None
    timed_out: bool = False
    aborted: bool = False


@attrs.frozen(slots=True)
class GrepQuery:
    """A content search: ``pattern`` under ``path`` (absolute), run from ``cwd`` so that
    the reported paths are relative to it."""

    pattern: str
    path: str
    cwd: str
    glob: str | None = None
    ignore_case: bool = False
    literal: bool = False
    context: int = 0


@attrs.frozen(slots=True)
class GrepLine:
    """A matching line (``is_match``) or a context line around one; ``line_number`` is
    1-based and ``text`` has no line end."""

    path: str
    line_number: int
    text: str
    is_match: bool


class PathOperations(Protocol):
    """Resolving a path on the machine the files live on (for confinement)."""

    async def realpath(self, path: str) -> str:
        """``path`` with every symbolic link resolved; missing trailing parts are kept."""
        ...


class ReadOperations(PathOperations, Protocol):
    async def read_bytes(self, path: str) -> bytes:
        """The file's content; ``IsADirectoryError``/``FileNotFoundError`` as usual."""
        ...


class WriteOperations(PathOperations, Protocol):
    async def write_bytes(self, path: str, data: bytes) -> None:
        """Create or replace the file, creating missing parent directories, atomically:
        a new file beside it, synced, renamed over the name, with the old file's mode
        (and owner when allowed). On failure the old file is as it was."""
        ...


class EditOperations(ReadOperations, WriteOperations, Protocol):
    """Reading and writing back the same file."""


class ListOperations(PathOperations, Protocol):
    async def list_dir(self, path: str) -> list[DirEntry]:
        """Every entry of the directory, dotfiles included, in no particular order."""
        ...


class ExecOperations(Protocol):
    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        env: Mapping[str, str],
        on_data: Callable[[bytes], None],
        signal: AbortSignal | None = None,
        timeout: float | None = None,
    ) -> ExecResult:
        """Run ``command`` with bash in ``cwd``, with ``env`` added to the environment,
        passing stdout and stderr (merged) to ``on_data`` as they come. On timeout or
        abort the whole process group is killed. Returns once the command has exited,
        even when a background process it started still holds the output open."""
        ...


class SearchOperations(PathOperations, Protocol):
    def grep(self, query: GrepQuery) -> AsyncGenerator[GrepLine, None]:
        """Matching and context lines, in file order, respecting ``.gitignore``. Closing
        the iterator early stops the search. Raises ``ValueError`` for a bad pattern."""
        ...

    def glob(self, root: str, pattern: str) -> AsyncGenerator[str, None]:
        """Files under ``root`` matching the glob, as paths relative to ``root``, sorted,
        respecting ``.gitignore``. Closing the iterator early stops the search."""
        ...


class Operations(EditOperations, ListOperations, ExecOperations, SearchOperations, Protocol):
    """Every operation at once: what a backend for the whole tool set provides."""
