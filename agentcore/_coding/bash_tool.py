"""The ``bash`` tool: run a command in the workspace, keep the end of its output."""

from __future__ import annotations

import inspect
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import IO, Any, TypeAlias

from .._loop.tools import Tool, ToolOutput, define_tool
from .local import LocalOperations
from .operations import ExecOperations
from .results import failure
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_tail
from .workspace import Workspace, as_workspace

__all__ = ["EnvHook", "OutputSpool", "create_bash_tool"]

EnvHook: TypeAlias = Callable[[str, str], Mapping[str, str] | Awaitable[Mapping[str, str]]]
"""``hook(command, cwd)``: variables to add to the command's environment (sync or async)."""

_UPDATE_EVERY = 0.25  # seconds between progress updates while a command runs


class OutputSpool:
    """A command's output as it arrives: the tail in memory, everything in a temporary
    file once it grows past ``spill_at`` bytes (so a huge output costs no memory).

    ``text()`` is what is in memory (everything, unless ``spilled``); ``save()`` makes
    sure the file holds the whole output, closes it and returns its path.
    """

    def __init__(self, keep: int = 2 * DEFAULT_MAX_BYTES, spill_at: int = 1 << 20) -> None:
        self._keep = keep
        self._spill_at = spill_at
        self._buffer = bytearray()
        self._file: IO[bytes] | None = None
        self.total_bytes = 0
        self._newlines = 0
        self._ends_with_newline = True

    @property
    def spilled(self) -> bool:
        return self._file is not None

    @property
    def total_lines(self) -> int:
        return self._newlines + (not self._ends_with_newline)

    def write(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.total_bytes += len(chunk)
        self._newlines += chunk.count(b"\n")
        self._ends_with_newline = chunk.endswith(b"\n")
        self._buffer += chunk
        if self._file is not None:
            self._file.write(chunk)
            del self._buffer[: -self._keep]
        elif len(self._buffer) > self._spill_at:
            self._open().write(self._buffer)
            del self._buffer[: -self._keep]

    def tail(self, size: int) -> str:
        return self._buffer[-size:].decode("utf-8", errors="replace")

    def text(self) -> str:
        return self._buffer.decode("utf-8", errors="replace")

    def _open(self) -> IO[bytes]:
        self._file = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in save)
            prefix="agentcore-bash-", suffix=".log", delete=False
        )
        return self._file

    def save(self) -> str:
        file = self._file or self._open()
        if not file.tell():
            file.write(self._buffer)
        file.close()
        return file.name


def create_bash_tool(
    cwd: str | Workspace,
    *,
    operations: ExecOperations | None = None,
    command_prefix: str | None = None,
    env: EnvHook | Mapping[str, str] | None = None,
    default_timeout: float | None = None,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Tool:
    """``bash(command, timeout?)``: run ``command`` with bash in the workspace root.

    ``command_prefix`` is run first in the same shell (``set -euo pipefail``, a
    ``source venv/bin/activate``); ``env`` adds variables, fixed or computed per command
    by a hook. The output (stdout and stderr merged) keeps its last ``max_lines`` lines
    or ``max_bytes`` bytes; when cut, the whole output is saved to a temporary file named
    in the notice. A non-zero exit, a timeout (``timeout`` seconds, else
    ``default_timeout``; the process group is killed) and an abort are error results.
    Details: ``exit_code``, ``timed_out``, ``aborted``, ``truncation``,
    ``full_output_path``. Progress updates carry the output's tail while it runs.
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
        spool = OutputSpool(keep=2 * max_bytes)
        last_update = 0.0

        def on_data(chunk: bytes) -> None:
            nonlocal last_update
            spool.write(chunk)
            now = time.monotonic()
            if now - last_update >= _UPDATE_EVERY:
                last_update = now
                ctx.on_update({"output": spool.tail(4096), "bytes": spool.total_bytes})

        try:
            result = await ops.exec(
                script, ws.root, env=extra, on_data=on_data, signal=ctx.signal, timeout=timeout
            )
        except OSError as exc:
            return failure(f"could not run the command: {exc}")
        cut = truncate_tail(spool.text(), max_lines, max_bytes)
        path = spool.save() if cut.truncated or spool.spilled else None
        output = cut.content.removesuffix("\n") or "(no output)"
        if path is not None:
            shown = (
                "the end of the last line"
                if cut.partial_last_line
                else f"the last {cut.output_lines} lines"
            )
            output += (
                f"\n\n[Output is {spool.total_lines} lines, {format_size(spool.total_bytes)}; "
                f"showing {shown}. Full output: {path}]"
            )
        details: dict[str, Any] = {
            "exit_code": result.exit_code,
            "timed_out": result.timed_out,
            "aborted": result.aborted,
            "truncation": cut.as_details() if path is not None else None,
            "full_output_path": path,
        }
        if result.timed_out:
            output += f"\n\nCommand timed out after {timeout:g} s; its process group was killed."
        elif result.aborted:
            output += "\n\nCommand aborted; its process group was killed."
        elif result.exit_code:
            output += f"\n\nCommand exited with code {result.exit_code}."
        failed = result.timed_out or result.aborted or bool(result.exit_code)
        return ToolOutput(output, details=details, is_error=failed)

    return define_tool(
        "bash",
        "Run a bash command in the workspace root. Returns stdout and stderr merged; long "
        f"output keeps its last {max_lines} lines or {format_size(max_bytes)}, with the full "
        "output saved to a file named in a notice. `timeout` is in seconds.",
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
