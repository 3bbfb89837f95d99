"""``LocalOperations``: the coding tools' operations on this machine."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncGenerator, Callable, Mapping

from .._runtime.tool_runner import AbortSignal
from .operations import DirEntry, ExecResult
from .process import run_process, stream_lines
from .ripgrep import RipgrepSearch, find_ripgrep

__all__ = ["LocalOperations"]


class LocalOperations(RipgrepSearch):
    """Files, processes and searches on this machine (every operation protocol at once).

    ``rg_path`` overrides where ``rg`` is found (see ``find_ripgrep``); ``shell`` is the
    shell commands run with (bash when installed, else sh). File operations run in a
    worker thread so a slow disk never blocks the event loop.
    """

    def __init__(self, *, rg_path: str | None = None, shell: str | None = None) -> None:
        self._rg_path = rg_path
        self._shell = shell or shutil.which("bash") or "/bin/sh"

    def __repr__(self) -> str:
        return f"LocalOperations(shell={self._shell!r})"

    @property
    def rg(self) -> str:
        if self._rg_path is None:
            self._rg_path = find_ripgrep()
        return self._rg_path

    async def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    async def read_bytes(self, path: str) -> bytes:
        return await asyncio.to_thread(_read, path)

    async def write_bytes(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(_write, path, data)

    async def list_dir(self, path: str) -> list[DirEntry]:
        return await asyncio.to_thread(_list, path)

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
        output = await run_process(
            [self._shell, "-c", command],
            cwd=cwd,
            env={**os.environ, **env},
            on_data=on_data,
            signal=signal,
            timeout=timeout,
        )
        return output.result

    def _lines(self, argv: list[str], cwd: str) -> AsyncGenerator[bytes, None]:
        return stream_lines(argv, cwd=cwd, ok=(0, 1))


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _write(path: str, data: bytes) -> None:
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def _list(path: str) -> list[DirEntry]:
    with os.scandir(path) as entries:
        return [DirEntry(e.name, _is_dir(e)) for e in entries]


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a broken symbolic link
        return False
