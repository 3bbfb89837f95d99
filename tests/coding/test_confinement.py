"""Paths resolve inside the workspace: ``..``, absolute paths and symbolic links that lead
out are refused by every file tool, on both backends; allowed directories are reachable.
A hard link to an outside file and a directory swapped for a link after the check do not
carry a write out either."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import shutil
from typing import Any

import pytest

from agentcore.coding import (
    LocalOperations,
    OutsideWorkspaceError,
    Workspace,
    create_all_tools,
    create_coding_tools,
)

from .conftest import sandbox_operations


@pytest.fixture
def outside(tmp_path: pathlib.Path) -> pathlib.Path:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "secret.txt").write_text("top secret\n")
    return secret


def _tools(ws: pathlib.Path, backend: Any, **options: Any) -> dict[str, Any]:
    return {t.name: t for t in create_coding_tools(str(ws), operations=backend, **options)}


ESCAPES = [
    "../outside/secret.txt",
    "{outside}/secret.txt",
    "sub/../../outside/secret.txt",
    "link/secret.txt",
    "filelink",
]


@pytest.mark.parametrize("path", ESCAPES)
def test_every_file_tool_refuses_an_escape(
    ws: pathlib.Path, outside: pathlib.Path, backend: Any, call: Any, path: str
) -> None:
    (ws / "sub").mkdir()
    (ws / "link").symlink_to(outside)
    (ws / "filelink").symlink_to(outside / "secret.txt")
    path = path.format(outside=outside)
    tools = _tools(ws, backend)
    attempts = {
        "read": {"path": path},
        "write": {"path": path, "content": "pwned"},
        "edit": {"path": path, "old_text": "top", "new_text": "pwned"},
        "ls": {"path": path.rsplit("/", 1)[0] if "/" in path else path},
        "grep": {"pattern": "secret", "path": path},
        "find": {"pattern": "*", "path": path},
    }
    for name, args in attempts.items():
        out = call(tools[name], **args)
        assert out.is_error, (name, out.content)
        assert "outside the workspace" in out.content, (name, out.content)
        assert "top secret" not in out.content
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_a_link_inside_the_workspace_and_dotdot_that_stays_inside_are_fine(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    (ws / "real").mkdir()
    (ws / "real" / "f.txt").write_text("ok\n")
    (ws / "alias").symlink_to(ws / "real")
    tools = _tools(ws, backend)
    assert call(tools["read"], path="alias/f.txt").content == "ok"
    assert call(tools["read"], path="real/../real/f.txt").content == "ok"
    assert call(tools["read"], path=str(ws / "real" / "f.txt")).content == "ok"


def test_allowed_directories_and_unconfined(
    ws: pathlib.Path, outside: pathlib.Path, backend: Any, call: Any
) -> None:
    allowed = _tools(ws, backend, allow_paths=[str(outside)])
    assert call(allowed["read"], path=f"{outside}/secret.txt").content == "top secret"
    grep = call(allowed["grep"], pattern="secret", path=str(outside))
    assert grep.content == "outside/secret.txt:1: top secret"
    free = _tools(ws, backend, confined=False)
    assert call(free["read"], path="../outside/secret.txt").content == "top secret"


def test_workspace_objects_are_shared_and_validated(ws: pathlib.Path, call: Any) -> None:
    with pytest.raises(ValueError, match="absolute"):
        Workspace("relative/dir")
    tools = {t.name: t for t in create_all_tools(Workspace(str(ws)))}
    assert {"read", "write", "edit", "bash", "grep", "find", "ls"} <= set(tools)
    assert {"todo_read", "todo_write", "webfetch", "websearch"} <= set(tools)
    assert call(tools["read"], path="/etc/hostname").is_error


def test_a_hard_link_to_an_outside_file_does_not_carry_writes_out(
    ws: pathlib.Path, outside: pathlib.Path, backend: Any, call: Any
) -> None:
    secret = outside / "secret.txt"
    os.link(secret, ws / "notes.txt")
    os.link(secret, ws / "more.txt")
    tools = _tools(ws, backend)
    assert not call(tools["write"], path="notes.txt", content="written by the agent\n").is_error
    edited = call(tools["edit"], path="more.txt", old_text="top", new_text="no")
    assert not edited.is_error
    assert secret.read_text() == "top secret\n"
    assert (ws / "notes.txt").read_text() == "written by the agent\n"
    assert (ws / "more.txt").read_text() == "no secret\n"
    assert secret.stat().st_nlink == 1  # both names now hold files of their own


def _swap_for_link(directory: pathlib.Path, target: pathlib.Path) -> None:
    shutil.rmtree(directory)
    directory.symlink_to(target)


def test_operations_refuse_a_directory_swapped_for_a_link_after_the_check(
    ws: pathlib.Path, outside: pathlib.Path, backend: Any
) -> None:
    """The path reaching an operation is the real one confinement checked; a part of it
    that is a link now was swapped in since, and is refused by every file operation."""
    d = ws / "d"
    d.mkdir()

    async def main() -> None:
        real = await backend.realpath(str(d))
        _swap_for_link(d, outside)
        for attempt in (
            backend.write_bytes(f"{real}/x.txt", b"pwned"),
            backend.write_bytes(f"{real}/new/deeper/x.txt", b"pwned"),
            backend.read_bytes(f"{real}/secret.txt"),
            backend.list_dir(real),
        ):
            with pytest.raises(OutsideWorkspaceError, match="now goes through a symbolic link"):
                await attempt

    asyncio.run(main())
    assert sorted(os.listdir(outside)) == ["secret.txt"]


def test_a_file_swapped_for_a_link_after_the_check_is_not_read(
    ws: pathlib.Path, outside: pathlib.Path, backend: Any
) -> None:
    (ws / "f.txt").write_text("inside\n")

    async def main() -> None:
        real = await backend.realpath(str(ws / "f.txt"))
        (ws / "f.txt").unlink()
        (ws / "f.txt").symlink_to(outside / "secret.txt")
        with pytest.raises(OutsideWorkspaceError):
            await backend.read_bytes(real)
        await backend.write_bytes(real, b"replaces the link itself")

    asyncio.run(main())
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert (ws / "f.txt").read_text() == "replaces the link itself"


class SwapAfterCheck:
    """A backend whose ``realpath`` of a path under ``directory`` swaps that directory for
    a link to ``target`` once it has answered: the race, made certain."""

    def __init__(self, inner: Any, directory: pathlib.Path, target: pathlib.Path) -> None:
        self.inner, self.directory, self.target = inner, directory, target

    async def realpath(self, path: str) -> str:
        real = await self.inner.realpath(path)
        if path.startswith(f"{self.directory}/") and not self.directory.is_symlink():
            _swap_for_link(self.directory, self.target)
        return str(real)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_the_tools_refuse_a_directory_swapped_between_the_check_and_the_use(
    ws: pathlib.Path, outside: pathlib.Path, backend: Any, call: Any
) -> None:
    d = ws / "d"
    tools = _tools(ws, SwapAfterCheck(backend, d, outside))
    attempts = {
        "write": {"path": "d/new.txt", "content": "pwned"},
        "edit": {"path": "d/secret.txt", "old_text": "top", "new_text": "pwned"},
        "read": {"path": "d/secret.txt"},
    }
    for name, args in attempts.items():
        if d.is_symlink():
            d.unlink()
        d.mkdir(exist_ok=True)
        (d / "secret.txt").write_text("top inside\n")
        out = call(tools[name], **args)
        assert out.is_error, (name, out.content)
        assert "now goes through a symbolic link" in out.content, (name, out.content)
        assert "top secret" not in out.content
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "top secret\n"


@pytest.mark.parametrize(("name", "writes"), [("local", 300), ("shell", 30)])
def test_writes_never_land_outside_while_a_directory_flips_to_a_link(
    ws: pathlib.Path, outside: pathlib.Path, acall: Any, name: str, writes: int
) -> None:
    backend = LocalOperations() if name == "local" else sandbox_operations()
    write = _tools(ws, backend)["write"]
    d = ws / "d"
    d.mkdir()

    async def main() -> list[Any]:
        stop = False

        async def flip() -> None:
            while not stop:
                with contextlib.suppress(OSError):
                    if d.is_symlink():
                        d.unlink()
                        d.mkdir()
                    else:
                        _swap_for_link(d, outside)
                await asyncio.sleep(0)

        flipper = asyncio.create_task(flip())
        try:
            return [await acall(write, path=f"d/race{i}.txt", content="x") for i in range(writes)]
        finally:
            stop = True
            await flipper

    outcomes = asyncio.run(main())
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert len(outcomes) == writes  # each written inside, or refused, or lost with d
