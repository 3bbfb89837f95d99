"""The bash tool: exit codes, timeouts, aborts, background jobs, output limits, options.

Tests the private modules ``agentcore._coding.bash_tool`` and
``agentcore._coding.truncate``: the output window of a running command and its size text."""

from __future__ import annotations

import asyncio
import glob
import os
import pathlib
import re
import signal
import tempfile
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._coding.bash_tool import OutputWindow
from agentcore._coding.truncate import format_size
from agentcore.coding import create_bash_tool, create_coding_tools
from agentcore.tools import AbortSignal


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_output_and_a_non_zero_exit_is_an_error_with_the_code(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    bash = create_bash_tool(str(ws), operations=backend)
    ok = call(bash, command="echo out; echo err >&2; pwd")
    assert not ok.is_error
    assert ok.content.splitlines() == ["out", "err", os.path.realpath(ws)]
    assert ok.details["exit_code"] == 0
    failed = call(bash, command="echo before; exit 7")
    assert failed.is_error and failed.details["exit_code"] == 7
    assert failed.content == "before\n\nCommand exited with code 7."


def test_timeout_kills_the_whole_process_group(ws: pathlib.Path, backend: Any, call: Any) -> None:
    bash = create_bash_tool(str(ws), operations=backend)
    started = time.monotonic()
    out = call(bash, command="sleep 30 & echo child $!; sleep 30", timeout=0.5)
    assert time.monotonic() - started < 5
    assert out.is_error and out.details["timed_out"] and out.details["exit_code"] is None
    assert "timed out after 0.5 s" in out.content
    child = int(out.content.split("child ")[1].split()[0])
    deadline = time.monotonic() + 2
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(child)


def test_a_background_job_holding_stdout_does_not_hang_the_call(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    bash = create_bash_tool(str(ws), operations=backend)
    started = time.monotonic()
    out = call(bash, command="sleep 30 & echo started $!")
    elapsed = time.monotonic() - started
    pid = int(out.content.split()[1])
    try:
        assert elapsed < 3, elapsed
        assert not out.is_error and out.content.startswith("started")
    finally:
        os.kill(pid, signal.SIGKILL)


def test_abort_kills_the_command_and_leaves_no_file(ws: pathlib.Path, acall: Any) -> None:
    bash = create_bash_tool(str(ws))
    before = _spool_files()

    async def main() -> Any:
        stop = AbortSignal()
        command = "head -c 3000000 /dev/zero | tr '\\0' x; sleep 30"
        task = asyncio.ensure_future(acall(bash, signal=stop, command=command))
        await asyncio.sleep(0.5)
        stop.abort()
        return await asyncio.wait_for(task, 5)

    out = asyncio.run(main())
    assert out.is_error and out.details["aborted"] and "aborted" in out.content
    assert not out.details["output_limited"]
    assert _spool_files() == before


def test_cancellation_kills_the_process_group(ws: pathlib.Path, acall: Any) -> None:
    bash = create_bash_tool(str(ws))
    pid_file = ws / "pid"
    before = _spool_files()

    async def main() -> None:
        command = f"head -c 3000000 /dev/zero; echo $$ > {pid_file}; sleep 30"
        task = asyncio.ensure_future(acall(bash, command=command))
        while not pid_file.exists() or not pid_file.read_text().strip():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 2
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(pid)
    assert _spool_files() == before


def _spool_files() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "agentcore-bash-*")))


def test_long_output_keeps_its_head_and_tail_and_says_what_was_left_out(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    before = _spool_files()
    out = call(create_bash_tool(str(ws), operations=backend), command="seq 1 5000")
    lines = out.content.splitlines()
    assert lines[:500] == [str(i) for i in range(1, 501)]
    assert lines[-1500:] == [str(i) for i in range(3501, 5001)]
    notice = lines[500]
    assert len(lines) == 2001
    assert "3000 lines left out" in notice and "the output is 5000 lines, 23.3 KB" in notice
    assert "showing the first 500 lines and the last 1500 lines" in notice
    assert "/" not in notice  # no path the model could not read
    truncation = out.details["truncation"]
    assert (truncation["total_lines"], truncation["omitted_lines"]) == (5000, 3000)
    assert "full_output_path" not in out.details
    assert _spool_files() == before


def test_huge_output_costs_no_disk_and_keeps_50_kb(ws: pathlib.Path, call: Any) -> None:
    before = _spool_files()
    out = call(
        create_bash_tool(str(ws)),
        command="echo START; yes abcdefghij | head -c 3000000; echo; echo END",
    )
    lines = out.content.splitlines()
    assert lines[0] == "START" and lines[-1] == "END"
    assert len(out.content.encode()) <= 51200 + 400  # the limit, and the notice
    assert out.details["truncation"]["total_bytes"] == len("START\n") + 3000000 + len("\nEND\n")
    assert "2.8 MB" in out.content and not out.is_error
    assert _spool_files() == before


def test_one_endless_line_keeps_its_end(ws: pathlib.Path, call: Any) -> None:
    out = call(create_bash_tool(str(ws)), command="head -c 300000 /dev/zero | tr '\\0' x; echo")
    notice, body = out.content.split("\n")
    assert body == "x" * 51200
    left_out = format_size(out.details["truncation"]["total_bytes"] - 51200)
    assert notice.startswith(f"[... {left_out} left out here: the output is 1 line, ")
    assert "showing the end of the last line" in notice


def test_endless_output_is_stopped_at_the_hard_cap(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    before = _spool_files()
    bash = create_bash_tool(str(ws), operations=backend, max_output_bytes=2_000_000)
    started = time.monotonic()
    out = call(bash, command="echo $$ > pid; yes 'endless output'")
    assert time.monotonic() - started < 10
    assert out.is_error and out.details["output_limited"] and not out.details["aborted"]
    assert out.details["exit_code"] is None and out.details["truncation"]["total_bytes"] > 2_000_000
    assert out.content.endswith(
        "Command stopped: it wrote more than 1.9 MB of output; its process group was killed. "
        "Redirect the output to a file, or limit it (head, grep, a quieter option)."
    )
    assert out.content.startswith("endless output\n")
    pid = int((ws / "pid").read_text())
    deadline = time.monotonic() + 2
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(pid)
    assert _spool_files() == before


def test_the_default_timeout_applies_without_one_from_the_model(
    ws: pathlib.Path, call: Any
) -> None:
    assert create_coding_tools(str(ws))[3].name == "bash"
    assert "(a 300 s default)" in create_coding_tools(str(ws))[3].description
    out = call(create_bash_tool(str(ws), default_timeout=0.3), command="sleep 20")
    assert out.details["timed_out"] and "timed out after 0.3 s" in out.content
    unlimited = create_bash_tool(str(ws), default_timeout=None)
    assert "(no default)" in unlimited.description


windows = st.lists(
    st.one_of(st.binary(max_size=300), st.sampled_from([b"\n", b"x" * 700, "é\n".encode()])),
    max_size=80,
)


@settings(max_examples=300, deadline=None)
@given(windows, st.integers(1, 60), st.integers(8, 2000))
def test_the_window_keeps_within_its_limits_and_counts_everything(
    chunks: list[bytes], max_lines: int, max_bytes: int
) -> None:
    window = OutputWindow(head=max_bytes, tail=max_bytes + 1)
    for chunk in chunks:
        window.write(chunk)
    whole = b"".join(chunks)
    text, truncation = window.render(max_lines, max_bytes)
    assert window.total_bytes == len(whole)
    assert window.total_lines == whole.count(b"\n") + (not whole.endswith(b"\n") and bool(whole))
    if not window.dropped:
        assert window.tail(50) == whole[-50:].decode("utf-8", errors="replace")
    if truncation is None:
        assert text == whole.decode("utf-8", errors="replace")
        return
    head, notice, tail = _split(text)
    assert truncation["head_lines"] + truncation["tail_lines"] <= max_lines
    assert len(head.encode()) + len(tail.encode()) <= max_bytes
    assert truncation["head_lines"] <= max_lines // 4
    decoded = whole.decode("utf-8", errors="replace")
    assert decoded.startswith(head)
    assert decoded.removesuffix("\n").endswith(tail)
    assert f"the output is {truncation['total_lines']} line" in notice


def _split(text: str) -> tuple[str, str, str]:
    """(head, notice, tail) of a cut output."""
    before, notice, after = re.split(r"(?:^|\n)(\[\.\.\. .*\.\.\.\])\n", text, maxsplit=1)
    return before, notice, after


def test_command_prefix_env_hook_and_updates(ws: pathlib.Path, backend: Any, acall: Any) -> None:
    seen: list[tuple[str, str]] = []

    async def hook(command: str, cwd: str) -> dict[str, str]:
        seen.append((command, cwd))
        return {"GREETING": "hello there"}

    bash = create_bash_tool(
        str(ws), operations=backend, command_prefix="set -u; NAME=world", env=hook
    )
    updates: list[Any] = []
    out = asyncio.run(acall(bash, updates=updates, command='echo "$GREETING $NAME"'))
    assert out.content == "hello there world"
    assert seen == [('echo "$GREETING $NAME"', str(ws))]
    assert updates and updates[0]["output"].startswith("hello there")


def test_a_failing_env_hook_is_an_error_result(ws: pathlib.Path, call: Any) -> None:
    def hook(command: str, cwd: str) -> dict[str, str]:
        raise RuntimeError("vault unreachable")

    out = call(create_bash_tool(str(ws), env=hook), command="true")
    assert out.is_error and "vault unreachable" in out.content
