"""``LocalOperations``: the coding tools' operations on this machine.

Files are reached through directory descriptors opened one part at a time from ``/``
without following symbolic links (``openat`` with ``O_NOFOLLOW``): the path a tool was
given is the real path confinement checked, so a part found to be a symbolic link now
was swapped in since, and is refused. Writes go to a temporary file in the same
directory, synced, then renamed over the name: a failure leaves the old file whole, and
a name that is one of several hard links gets a new file (the other links keep theirs).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import shutil
import stat
from collections.abc import AsyncGenerator, Callable, Mapping

from .._runtime.tool_runner import AbortSignal
from .operations import DirEntry, ExecResult
from .process import run_process, stream_lines
from .ripgrep import RipgrepSearch, find_ripgrep
from .workspace import OutsideWorkspaceError

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


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# the directories passed through: searched, not read (O_PATH needs no read permission)
_PASSING = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _swapped(path: str) -> OutsideWorkspaceError:
    return OutsideWorkspaceError(
        f"{path} now goes through a symbolic link: a part of it was replaced after the path "
        "was checked; refused, so nothing outside the workspace is touched"
    )


def _open_dir(path: str, *, create: bool = False) -> int:
    """A descriptor of the directory ``path`` (absolute, links resolved), opened a part at
    a time without following a link; ``create`` makes the missing parts."""
    names = [name for name in path.split("/") if name]
    fd = os.open("/", _PASSING if names else _DIRECTORY)
    try:
        for i, name in enumerate(names, 1):
            flags = _DIRECTORY if i == len(names) else _PASSING
            try:
                child = _open_child(name, fd, flags, create)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(name, fd):
                    raise _swapped(path) from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_child(name: str, dir_fd: int, flags: int, create: bool) -> int:
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            raise
    with contextlib.suppress(FileExistsError):  # made meanwhile by someone else
        os.mkdir(name, dir_fd=dir_fd)
    return os.open(name, flags, dir_fd=dir_fd)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _read(path: str) -> bytes:
    parent, name = os.path.split(path)
    directory = _open_dir(parent)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=directory)
    except OSError as exc:
        if exc.errno == errno.ELOOP and _is_link(name, directory):
            raise _swapped(path) from None
        raise
    finally:
        os.close(directory)
    with open(fd, "rb") as f:
        return f.read()


def _write(path: str, data: bytes) -> None:
    parent, name = os.path.split(path)
    directory = _open_dir(parent, create=True)
    try:
        _replace(directory, name, path, data)
    finally:
        os.close(directory)


def _replace(directory: int, name: str, path: str, data: bytes) -> None:
    """Write ``data`` to a new file beside ``name``, sync it, rename it over ``name``;
    the old file's mode and (when allowed) owner carry over. A file we may not write
    stays as it is, though renaming over it would be allowed."""
    try:
        old: os.stat_result | None = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    if old is not None and stat.S_ISDIR(old.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    kept = old if old is not None and stat.S_ISREG(old.st_mode) else None
    if kept is not None and not os.access(name, os.W_OK, dir_fd=directory):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)  # read-only
    temporary = f".agentcore-{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, 0o600 if kept else 0o666, dir_fd=directory)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if kept is not None:
                _keep_owner(fd, kept)
                os.fchmod(fd, stat.S_IMODE(kept.st_mode))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=directory)
        raise
    os.fsync(directory)


def _keep_owner(fd: int, old: os.stat_result) -> None:
    if (old.st_uid, old.st_gid) == (os.geteuid(), os.getegid()):
        return
    for uid in (old.st_uid, -1):  # another user's file: at least its group, when allowed
        try:
            os.fchown(fd, uid, old.st_gid)
            return
        except PermissionError:
            continue


def _list(path: str) -> list[DirEntry]:
    directory = _open_dir(path)
    try:
        with os.scandir(directory) as entries:
            return [DirEntry(e.name, _is_dir(e)) for e in entries]
    finally:
        os.close(directory)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a broken symbolic link
        return False
