"""write and edit replace a file atomically, on both backends: a failure part way leaves
the old file whole and names its real cause; the mode carries over; nothing is left
behind.

Tests the private module ``agentcore._coding.shell_operations``: the error a failed write
raises."""

from __future__ import annotations

import errno
import os
import pathlib
import resource
import signal
import stat
from collections.abc import Iterator
from typing import Any

import pytest

from agentcore._coding.shell_operations import _error
from agentcore.coding import create_edit_tool, create_write_tool

ORIGINAL = "# FIRST LINE\n" + "def f():\n    return 1\n" * 5000  # 110 KB


@pytest.fixture
def disk_full_at_150_kb() -> Iterator[None]:
    """A file-size limit of 150 KB, as a full disk or a quota: writes past it fail with
    EFBIG here and kill a child process with SIGXFSZ."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (150_000, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def _listing(ws: pathlib.Path) -> list[str]:
    return sorted(os.listdir(ws))


def test_a_failed_edit_leaves_the_file_whole_and_names_the_cause(
    ws: pathlib.Path, backend: Any, call: Any, disk_full_at_150_kb: None
) -> None:
    src = ws / "main.py"
    src.write_text(ORIGINAL)
    edit = create_edit_tool(str(ws), operations=backend)
    out = call(edit, path="main.py", old_text="# FIRST LINE", new_text="# doc\n" * 9000)
    assert out.is_error
    assert out.content == (
        "could not write 'main.py': File too large (EFBIG); the file was left as it was"
    )
    assert src.read_text() == ORIGINAL
    assert _listing(ws) == ["main.py"]  # no temporary file left


def test_a_failed_write_leaves_the_file_whole(
    ws: pathlib.Path, backend: Any, call: Any, disk_full_at_150_kb: None
) -> None:
    src = ws / "main.py"
    src.write_text(ORIGINAL)
    out = call(
        create_write_tool(str(ws), operations=backend), path="main.py", content="x" * 200_000
    )
    assert out.is_error and "File too large (EFBIG)" in out.content
    assert "permission" not in out.content
    assert src.read_text() == ORIGINAL and _listing(ws) == ["main.py"]


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_the_mode_carries_over(ws: pathlib.Path, backend: Any, call: Any, mode: int) -> None:
    src = ws / "run.sh"
    src.write_text("echo one\n")
    src.chmod(mode)
    before = src.stat()
    assert not call(
        create_edit_tool(str(ws), operations=backend), path="run.sh", old_text="one", new_text="two"
    ).is_error
    after = src.stat()
    assert src.read_text() == "echo two\n"
    assert stat.S_IMODE(after.st_mode) == mode
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert after.st_ino != before.st_ino  # a new file renamed over the name


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_the_owner_carries_over(ws: pathlib.Path, backend: Any, call: Any) -> None:
    src = ws / "theirs.txt"
    src.write_text("one\n")
    os.chown(src, 4321, 8765)
    write = create_write_tool(str(ws), operations=backend)
    assert not call(write, path="theirs.txt", content="two\n").is_error
    assert (src.stat().st_uid, src.stat().st_gid) == (4321, 8765)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file")
def test_a_read_only_file_is_not_replaced(ws: pathlib.Path, backend: Any, call: Any) -> None:
    src = ws / "locked.txt"
    src.write_text("one\n")
    src.chmod(0o444)
    out = call(create_write_tool(str(ws), operations=backend), path="locked.txt", content="x")
    assert out.is_error and out.content == "permission denied for 'locked.txt'"
    assert src.read_text() == "one\n" and _listing(ws) == ["locked.txt"]


def test_a_new_file_gets_the_umask_mode(ws: pathlib.Path, backend: Any, call: Any) -> None:
    umask = os.umask(0o027)
    os.umask(umask)
    assert not call(
        create_write_tool(str(ws), operations=backend), path="n.txt", content="x"
    ).is_error
    assert stat.S_IMODE((ws / "n.txt").stat().st_mode) == 0o666 & ~umask
    assert _listing(ws) == ["n.txt"]


def test_a_directory_is_not_replaced(ws: pathlib.Path, backend: Any, call: Any) -> None:
    (ws / "d").mkdir()
    out = call(create_write_tool(str(ws), operations=backend), path="d", content="x")
    assert out.is_error and "is a directory" in out.content
    assert (ws / "d").is_dir() and _listing(ws) == ["d"]


@pytest.mark.parametrize(
    ("message", "number"),
    [
        ("cat: write error: No space left on device", errno.ENOSPC),
        ("cat: write error: Disk quota exceeded", errno.EDQUOT),
        ("mktemp: failed to create file via template: Read-only file system", errno.EROFS),
        ("mktemp: failed to create file via template: Permission denied", errno.EACCES),
    ],
)
def test_the_shell_backend_names_the_real_cause(message: str, number: int) -> None:
    error = _error(7, message, "/ws/f")
    assert error.errno == number and error.filename == "/ws/f"
    assert isinstance(error, PermissionError) == (number == errno.EACCES)


def test_an_unknown_shell_failure_keeps_its_message() -> None:
    error = _error(7, "cat: something odd happened", "/ws/f")
    assert "something odd happened" in str(error) and error.errno is None
