"""``ShellOperations``: every operation a POSIX shell script run through a command prefix.

The prefix decides where the scripts run: ``("ssh", "host")`` on another machine,
``("docker", "exec", "-i", "box", "sh", "-c")`` in a container, ``("env", "-i", ...,
"sh", "-c")`` in a stripped environment, ``("bwrap", ..., "sh", "-c")`` in a sandbox. The
script is always the prefix's last argument. The machine needs a POSIX shell, coreutils
(``cat``, ``mkdir``, ``dirname``, ``realpath -m``), bash for commands, and ``rg`` for the
search tools.

Scripts report the usual failures by exit code, turned back into the builtin errors:
3 a directory where a file was expected, 4 not found, 5 not a directory, 6 permission.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence

from .._runtime.tool_runner import AbortSignal
from .operations import DirEntry, ExecResult
from .process import CommandError, run_process, stream_lines
from .ripgrep import RipgrepSearch

__all__ = ["ShellOperations"]

_ERRORS: dict[int, type[OSError]] = {
    3: IsADirectoryError,
    4: FileNotFoundError,
    5: NotADirectoryError,
    6: PermissionError,
}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LIST = (
    "for f in * .[!.]* ..?*; do "
    'if [ -d "$f" ]; then printf "d/%s\\0" "$f"; '
    'elif [ -e "$f" ] || [ -L "$f" ]; then printf "f/%s\\0" "$f"; fi; done'
)


class ShellOperations(RipgrepSearch):
    """Operations as shell scripts run by ``[*prefix, script]`` (every protocol at once).

    ``rg`` and ``shell`` name the ripgrep binary and the shell for commands on the
    target machine. A timeout or abort kills the local process group of the prefix
    command (for ssh, the remote side then gets a hangup).
    """

    def __init__(
        self, prefix: Sequence[str] = ("sh", "-c"), *, rg: str = "rg", shell: str = "bash"
    ) -> None:
        if not prefix:
            raise ValueError("prefix must name a command, e.g. ('sh', '-c') or ('ssh', 'host')")
        self.prefix = tuple(prefix)
        self._rg = rg
        self._shell = shell

    def __repr__(self) -> str:
        return f"ShellOperations({self.prefix!r})"

    @property
    def rg(self) -> str:
        return self._rg

    async def _run(self, script: str, path: str, stdin: bytes | None = None) -> bytes:
        out = bytearray()
        done = await run_process(
            [*self.prefix, script], stdin=stdin, on_data=out.extend, merge_stderr=False
        )
        code = done.result.exit_code
        if code == 0:
            return bytes(out)
        error = _ERRORS.get(code or 0)
        if error is not None:
            raise error(f"{error.__name__}: {path}")
        raise CommandError(code, done.stderr.decode("utf-8", errors="replace"))

    async def realpath(self, path: str) -> str:
        out = await self._run(f"realpath -m -- {shlex.quote(path)}", path)
        return out.decode("utf-8").removesuffix("\n")

    async def read_bytes(self, path: str) -> bytes:
        return await self._run(
            f'p={shlex.quote(path)}; [ -d "$p" ] && exit 3; [ -e "$p" ] || exit 4; '
            '[ -r "$p" ] || exit 6; cat -- "$p"',
            path,
        )

    async def write_bytes(self, path: str, data: bytes) -> None:
        await self._run(
            f'p={shlex.quote(path)}; [ -d "$p" ] && exit 3; '
            'mkdir -p -- "$(dirname -- "$p")" || exit 6; cat > "$p" || exit 6',
            path,
            stdin=data,
        )

    async def list_dir(self, path: str) -> list[DirEntry]:
        out = await self._run(
            f'p={shlex.quote(path)}; [ -e "$p" ] || exit 4; [ -d "$p" ] || exit 5; '
            f'cd -- "$p" || exit 6; {_LIST}',
            path,
        )
        entries = out.decode("utf-8", errors="replace").split("\0")
        return [DirEntry(e[2:], e[0] == "d") for e in entries if e]

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
        bad = [k for k in env if not _NAME.match(k)]
        if bad:
            raise ValueError(f"environment variable names must be identifiers, got {bad}")
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
        script = (
            f"cd -- {shlex.quote(cwd)} || exit 1\n{exports}"
            f"exec {shlex.quote(self._shell)} -c {shlex.quote(command)}"
        )
        output = await run_process(
            [*self.prefix, script], on_data=on_data, signal=signal, timeout=timeout
        )
        return output.result

    def _lines(self, argv: list[str], cwd: str) -> AsyncGenerator[bytes, None]:
        script = f"cd -- {shlex.quote(cwd)} && exec {shlex.join(argv)}"
        return stream_lines([*self.prefix, script], ok=(0, 1))
