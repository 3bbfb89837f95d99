"""The bash tool: exit codes, timeouts, aborts, background jobs, output limits, options."""

from __future__ import annotations

import asyncio
import os
import pathlib
import signal
import time
from typing import Any

import pytest

from agentcore.coding import create_bash_tool
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


def test_abort_kills_the_command(ws: pathlib.Path, acall: Any) -> None:
    bash = create_bash_tool(str(ws))

    async def main() -> Any:
        stop = AbortSignal()
        task = asyncio.ensure_future(acall(bash, signal=stop, command="sleep 30"))
        await asyncio.sleep(0.3)
        stop.abort()
        return await asyncio.wait_for(task, 5)

    out = asyncio.run(main())
    assert out.is_error and out.details["aborted"] and "aborted" in out.content


def test_cancellation_kills_the_process_group(ws: pathlib.Path, acall: Any) -> None:
    bash = create_bash_tool(str(ws))
    pid_file = ws / "pid"

    async def main() -> None:
        task = asyncio.ensure_future(acall(bash, command=f"echo $$ > {pid_file}; sleep 30"))
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


def test_long_output_keeps_its_tail_and_saves_the_whole(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    out = call(create_bash_tool(str(ws), operations=backend), command="seq 1 5000")
    body, notice = out.content.rsplit("\n\n", 1)
    assert body.splitlines() == [str(i) for i in range(3001, 5001)]
    path = out.details["full_output_path"]
    assert path in notice and "5000 lines" in notice
    assert pathlib.Path(path).read_text().splitlines() == [str(i) for i in range(1, 5001)]
    assert out.details["truncation"]["truncated_by"] == "lines"
    os.unlink(path)


def test_huge_output_is_spooled_and_cut_at_50_kb(ws: pathlib.Path, call: Any) -> None:
    out = call(
        create_bash_tool(str(ws)), command="yes abcdefghij | head -c 3000000; echo; echo END"
    )
    body = out.content.rsplit("\n\n", 1)[0]
    assert body.endswith("END") and len(body.encode()) <= 51200
    path = out.details["full_output_path"]
    assert os.path.getsize(path) == 3000000 + len("\nEND\n")
    os.unlink(path)


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
