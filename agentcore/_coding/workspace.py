"""Confinement: every path a tool is given must resolve inside the workspace.

``Workspace.resolve`` joins a relative path to the root, normalises ``..``, then resolves
symbolic links on the machine the files live on (through the backend's ``realpath``), and
refuses the path when either the written path or its real target falls outside the root
and the explicitly allowed directories. So ``../x``, ``/etc/passwd`` and a link
``docs -> /`` are refused alike, with an error naming the path and the workspace.
Commands run by ``bash`` start in the root but are not confined: use the bash guard or a
sandboxing backend for that.
"""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import Sequence

from .operations import PathOperations

__all__ = ["OutsideWorkspaceError", "Workspace", "as_workspace"]


class OutsideWorkspaceError(PermissionError):
    """A path resolves outside the workspace and the allowed directories."""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class Workspace:
    """The root the tools work in, and the other directories they may touch.

    ``root`` and ``allowed`` must be absolute; ``confined=False`` turns the checks off
    (paths still resolve relative to the root). The real paths of the roots are looked
    up once, at the first ``resolve``.
    """

    __slots__ = ("_locks", "_real", "allowed", "confined", "root")

    def __init__(self, root: str, allowed: Sequence[str] = (), *, confined: bool = True) -> None:
        relative = [p for p in (root, *allowed) if not posixpath.isabs(p)]
        if relative:
            raise ValueError(f"workspace directories must be absolute paths, got {relative}")
        self.root = posixpath.normpath(root)
        self.allowed = tuple(posixpath.normpath(p) for p in allowed)
        self.confined = confined
        self._real: tuple[str, ...] | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    def __repr__(self) -> str:
        return f"Workspace({self.root!r}, allowed={self.allowed!r}, confined={self.confined})"

    def display(self, path: str) -> str:
        """``path`` as the model should see it: relative to the root when inside it."""
        for root in (self.root, *(self._real or ())[:1]):
            if _inside(path, root):
                return posixpath.relpath(path, root)
        return path

    def lock(self, real_path: str) -> asyncio.Lock:
        """The lock that serialises read-modify-write of one file (parallel edits of the
        same file would otherwise lose one another's changes)."""
        return self._locks.setdefault(real_path, asyncio.Lock())

    def base_for(self, real_path: str) -> str:
        """The directory search results under ``real_path`` are shown relative to: the
        real root when inside it, else the path's parent directory."""
        root = self._real[0] if self._real else self.root
        return root if _inside(real_path, root) else posixpath.dirname(real_path)

    async def resolve(self, path: str, ops: PathOperations) -> str:
        """The real absolute path of ``path`` (relative to the root), symbolic links
        resolved. Raises ``OutsideWorkspaceError`` when it escapes the workspace."""
        joined = posixpath.normpath(posixpath.join(self.root, path or "."))
        if self._real is None:
            self._real = tuple([await ops.realpath(r) for r in (self.root, *self.allowed)])
        if not self.confined:
            return await ops.realpath(joined)
        if not any(_inside(joined, r) for r in (self.root, *self.allowed, *self._real)):
            raise OutsideWorkspaceError(
                f"path {path!r} is outside the workspace {self.root}; only paths inside it"
                + (f" or inside {', '.join(self.allowed)}" if self.allowed else "")
                + " may be used"
            )
        real = await ops.realpath(joined)
        if not any(_inside(real, r) for r in self._real):
            raise OutsideWorkspaceError(
                f"path {path!r} leads through a symbolic link to {real}, outside the "
                f"workspace {self.root}; use a path whose real location is inside it"
            )
        return real


def as_workspace(cwd: str | Workspace) -> Workspace:
    """``cwd`` itself if it is a ``Workspace``, else a confined one rooted at it (made
    absolute against the current directory)."""
    return cwd if isinstance(cwd, Workspace) else Workspace(posixpath.abspath(cwd))
