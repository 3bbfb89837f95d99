"""Paths resolve inside the workspace: ``..``, absolute paths and symbolic links that lead
out are refused by every file tool, on both backends; allowed directories are reachable."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from agentcore.coding import Workspace, create_all_tools, create_coding_tools


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
