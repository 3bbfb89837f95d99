"""The ``bash`` tool: run a command in the workspace, keep the head and tail of its output.

Nothing of the output goes to disk: the first and the last bytes are kept in memory and
the middle is only counted, so a command with endless output (``yes``, ``tail -f``)
costs bounded memory and no disk; past ``max_output_bytes`` it is killed.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from .._loop.tools import Tool, ToolOutput, define_tool
from .._runtime.tool_runner import AbortSignal
from .local import LocalOperations
from .operations import ExecOperations
from .results import failure
from .truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate_head,
    truncate_tail,
)
from .workspace import Workspace, as_workspace

__all__ = [
    "DEFAULT_BASH_TIMEOUT",
    "DEFAULT_MAX_OUTPUT_BYTES",
    "EnvHook",
    "OutputWindow",
    "create_bash_tool",
]

EnvHook: TypeAlias = Callable[[str, str], Mapping[str, str] | Awaitable[Mapping[str, str]]]
"""``hook(command, cwd)``: variables to add to the command's environment (sync or async)."""

DEFAULT_BASH_TIMEOUT = 300.0
"""Seconds a command may run when neither the model nor the caller gives a timeout."""
DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024
"""Output a command may write before its process group is killed."""

_UPDATE_EVERY = 0.25  # seconds between progress updates while a command runs


class OutputWindow:
    """A command's output as it arrives, in bounded memory: its first ``head`` bytes and
    at least its last ``tail`` bytes (at most twice that); the bytes between are counted
    and dropped."""

    def __init__(self, head: int, tail: int) -> None:
        self._head_room = head
        self._tail_room = tail
        self._head = bytearray()
        self._tail = bytearray()
        self.total_bytes = 0
        self._newlines = 0
        self._ends_with_newline = True

    @property
    def total_lines(self) -> int:
        return self._newlines + (not self._ends_with_newline)

    @property
    def dropped(self) -> int:
        """How many bytes between the head and the tail were not kept."""
        return self.total_bytes - len(self._head) - len(self._tail)

    def write(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.total_bytes += len(chunk)
        self._newlines += chunk.count(b"\n")
        self._ends_with_newline = chunk.endswith(b"\n")
        room = self._head_room - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._tail += chunk
        if len(self._tail) > 2 * self._tail_room:
            del self._tail[: -self._tail_room]

    def tail(self, size: int) -> str:
        """The last ``size`` bytes kept, for progress updates."""
        end = self._tail[-size:]
        if len(end) < size:
            end = self._head[len(end) - size :] + end
        return end.decode("utf-8", errors="replace")

    def render(self, max_lines: int, max_bytes: int) -> tuple[str, dict[str, Any] | None]:
        """The output as the model sees it, and what was cut (None when nothing was):
        the whole output when it is within both limits, else its first lines (a quarter
        of each limit), a notice of what was left out, and its last lines (the rest)."""
        if not self.dropped:
            text = (self._head + self._tail).decode("utf-8", errors="replace")
            if _within(text, max_lines, max_bytes):
                return text, None
            prefix = text
        else:
            prefix = self._head.decode("utf-8", errors="replace")
            prefix = prefix[: prefix.rfind("\n") + 1]  # the last line goes on in the middle
        head_lines, head_text, head_bytes = 0, "", 0
        if max_lines // 4 and prefix:
            head = truncate_head(prefix, max_lines // 4, max_bytes // 4)
            head_lines, head_text, head_bytes = head.output_lines, head.content, head.output_bytes
        if self.dropped:
            rest = self._tail.decode("utf-8", errors="replace")
        else:  # the whole output is here: the tail starts after the head's lines
            rest = "\n".join(prefix.split("\n")[head_lines:])
        tail = truncate_tail(rest, max_lines - head_lines, max_bytes - head_bytes)
        omitted_lines = max(self.total_lines - head_lines - tail.output_lines, 0)
        omitted_bytes = max(self.total_bytes - head_bytes - tail.output_bytes, 0)
        shown = [f"the first {_lines(head_lines)}"] if head_lines else []
        shown.append(
            "the end of the last line"
            if tail.partial_last_line
            else f"the last {_lines(tail.output_lines)}"
        )
        omitted = format_size(omitted_bytes) + (f", {_lines(omitted_lines)}" * bool(omitted_lines))
        notice = (
            f"[... {omitted} left out here: the output is {_lines(self.total_lines)}, "
            f"{format_size(self.total_bytes)}; showing {' and '.join(shown)}. Redirect it to "
            "a file in the workspace to read all of it ...]"
        )
        end = tail.content if tail.truncated else tail.content.removesuffix("\n")
        text = "\n".join([*[head_text] * bool(head_lines), notice, end])
        details = {
            "total_lines": self.total_lines,
            "total_bytes": self.total_bytes,
            "head_lines": head_lines,
            "tail_lines": tail.output_lines,
            "omitted_lines": omitted_lines,
            "omitted_bytes": omitted_bytes,
            "partial_last_line": tail.partial_last_line,
        }
        return text, details


def _lines(count: int) -> str:
    return f"{count} line" + "s" * (count != 1)


def _within(text: str, max_lines: int, max_bytes: int) -> bool:
    return not truncate_tail(text, max_lines, max_bytes).truncated


def create_bash_tool(
    cwd: str | Workspace,
    *,
    operations: ExecOperations | None = None,
    command_prefix: str | None = None,
    env: EnvHook | Mapping[str, str] | None = None,
    default_timeout: float | None = DEFAULT_BASH_TIMEOUT,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
) -> Tool:
    """``bash(command, timeout?)``: run ``command`` with bash in the workspace root.

    ``command_prefix`` is run first in the same shell (``set -euo pipefail``, a
    ``source venv/bin/activate``); ``env`` adds variables, fixed or computed per command
    by a hook. The output (stdout and stderr merged) is shown whole when within
    ``max_lines`` lines and ``max_bytes`` bytes, else its first and last lines with a
    notice of the total in between; nothing is written to disk. A non-zero exit, a
    timeout (``timeout`` seconds, else ``default_timeout``; None for none), more than
    ``max_output_bytes`` of output and an abort are error results (the last three kill
    the process group). Details: ``exit_code``, ``timed_out``, ``aborted``,
    ``output_limited``, ``truncation``. Progress updates carry the output's tail.
    """
    ws = as_workspace(cwd)
    ops: ExecOperations = operations or LocalOperations()

    async def bash(args: dict[str, Any], ctx: Any) -> ToolOutput:
        command: str = args["command"]
        timeout: float | None = args.get("timeout", default_timeout)
        script = command if command_prefix is None else f"{command_prefix}\n{command}"
        try:
            extra = await _environment(env, command, ws.root)
        except Exception as exc:  # a failing hook is the caller's bug, reported, not raised
            return failure(f"the bash environment hook failed: {type(exc).__name__}: {exc}")
        window = OutputWindow(head=max_bytes, tail=max_bytes + 1)
        stop = AbortSignal()  # the run's abort, or too much output
        last_update = 0.0

        def on_data(chunk: bytes) -> None:
            nonlocal last_update
            window.write(chunk)
            if window.total_bytes > max_output_bytes:
                stop.abort()
            now = time.monotonic()
            if now - last_update >= _UPDATE_EVERY:
                last_update = now
                ctx.on_update({"output": window.tail(4096), "bytes": window.total_bytes})

        forward = asyncio.ensure_future(_forward(ctx.signal, stop))
        try:
            result = await ops.exec(
                script, ws.root, env=extra, on_data=on_data, signal=stop, timeout=timeout
            )
        except OSError as exc:
            return failure(f"could not run the command: {exc}")
        finally:
            forward.cancel()
        output, truncation = window.render(max_lines, max_bytes)
        output = output.removesuffix("\n") or "(no output)"
        limited = result.aborted and not ctx.signal.aborted
        details: dict[str, Any] = {
            "exit_code": result.exit_code,
            "timed_out": result.timed_out,
            "aborted": result.aborted and not limited,
            "output_limited": limited,
            "truncation": truncation,
        }
        if result.timed_out:
            output += f"\n\nCommand timed out after {timeout:g} s; its process group was killed."
        elif limited:
            output += (
                f"\n\nCommand stopped: it wrote more than {format_size(max_output_bytes)} of "
                "output; its process group was killed. Redirect the output to a file, or "
                "limit it (head, grep, a quieter option)."
            )
        elif result.aborted:
            output += "\n\nCommand aborted; its process group was killed."
        elif result.exit_code:
            output += f"\n\nCommand exited with code {result.exit_code}."
        failed = result.timed_out or result.aborted or bool(result.exit_code)
        return ToolOutput(output, details=details, is_error=failed)

    limit = "no" if default_timeout is None else f"a {default_timeout:g} s"
    return define_tool(
        "bash",
        "Run a bash command in the workspace root. Returns stdout and stderr merged; long "
        f"output shows its first and last lines (at most {max_lines} lines or "
        f"{format_size(max_bytes)} in all), the middle left out. `timeout` is in seconds "
        f"({limit} default).",
        {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The bash command to run"},
                "timeout": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "Seconds before the command is killed",
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        },
        bash,
    )


async def _forward(source: AbortSignal, target: AbortSignal) -> None:
    await source.wait()
    target.abort()


async def _environment(
    env: EnvHook | Mapping[str, str] | None, command: str, cwd: str
) -> Mapping[str, str]:
    if env is None:
        return {}
    if isinstance(env, Mapping):
        return env
    value = env(command, cwd)
    if inspect.isawaitable(value):
        value = await value
    return dict(value)
