"""The tool sets: ``create_coding_tools``, ``create_read_only_tools``, ``create_all_tools``."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from .._loop.tools import Tool
from .bash_tool import DEFAULT_BASH_TIMEOUT, EnvHook, create_bash_tool
from .file_tools import create_edit_tool, create_read_tool, create_write_tool
from .local import LocalOperations
from .operations import Operations
from .search_tools import create_find_tool, create_grep_tool, create_ls_tool
from .todo import TodoStore, create_todo_read_tool, create_todo_write_tool
from .web import SearchBackend, create_webfetch_tool, create_websearch_tool
from .workspace import Workspace

__all__ = ["create_all_tools", "create_coding_tools", "create_read_only_tools"]


def _workspace(cwd: str | Workspace, allow_paths: Sequence[str], confined: bool) -> Workspace:
    if isinstance(cwd, Workspace):
        return cwd
    root = posixpath.abspath(cwd)
    return Workspace(root, [posixpath.abspath(p) for p in allow_paths], confined=confined)


def create_read_only_tools(
    cwd: str | Workspace,
    *,
    operations: Operations | None = None,
    allow_paths: Sequence[str] = (),
    confined: bool = True,
    auto_resize_images: bool = True,
) -> list[Tool]:
    """``read``, ``grep``, ``find``, ``ls``: look, never change or run anything."""
    ws = _workspace(cwd, allow_paths, confined)
    ops: Operations = operations or LocalOperations()
    return [
        create_read_tool(ws, operations=ops, auto_resize_images=auto_resize_images),
        create_grep_tool(ws, operations=ops),
        create_find_tool(ws, operations=ops),
        create_ls_tool(ws, operations=ops),
    ]


def create_coding_tools(
    cwd: str | Workspace,
    *,
    operations: Operations | None = None,
    allow_paths: Sequence[str] = (),
    confined: bool = True,
    auto_resize_images: bool = True,
    command_prefix: str | None = None,
    env: EnvHook | Mapping[str, str] | None = None,
    bash_timeout: float | None = DEFAULT_BASH_TIMEOUT,
) -> list[Tool]:
    """``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find``, ``ls`` for ``cwd``.

    ``operations`` is the backend for all of them (``LocalOperations()`` by default;
    ``ShellOperations(prefix)`` for another machine); ``allow_paths`` are directories
    outside ``cwd`` the file tools may also use; ``confined=False`` lifts confinement.
    ``command_prefix``, ``env`` and ``bash_timeout`` (the default timeout, 300 s; None for
    none) go to bash.
    """
    ws = _workspace(cwd, allow_paths, confined)
    ops: Operations = operations or LocalOperations()
    read, grep, find, ls = create_read_only_tools(
        ws, operations=ops, auto_resize_images=auto_resize_images
    )
    return [
        read,
        create_write_tool(ws, operations=ops),
        create_edit_tool(ws, operations=ops),
        create_bash_tool(
            ws,
            operations=ops,
            command_prefix=command_prefix,
            env=env,
            default_timeout=bash_timeout,
        ),
        grep,
        find,
        ls,
    ]


def create_all_tools(
    cwd: str | Workspace,
    *,
    todo_store: TodoStore | None = None,
    search_backend: SearchBackend | None = None,
    **options: Any,
) -> list[Tool]:
    """The coding tools, plus ``todo_read``/``todo_write`` (over ``todo_store``, a new one
    by default), ``webfetch`` and ``websearch`` (over ``search_backend``; without one it
    answers with an error result). ``options`` are those of ``create_coding_tools``."""
    store = todo_store if todo_store is not None else TodoStore()
    return [
        *create_coding_tools(cwd, **options),
        create_todo_read_tool(store),
        create_todo_write_tool(store),
        create_webfetch_tool(auto_resize_images=options.get("auto_resize_images", True)),
        create_websearch_tool(search_backend),
    ]
