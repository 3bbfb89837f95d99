"""``ShellOperations``: every operation a POSIX shell script run through a command prefix.

The prefix decides where the scripts run: ``("ssh", "host")`` on another machine,
``("docker", "exec", "-i", "box", "sh", "-c")`` in a container, ``("env", "-i", ...,
"sh", "-c")`` in a stripped environment, ``("bwrap", ..., "sh", "-c")`` in a sandbox. The
script is always the prefix's last argument. The machine needs a POSIX shell, GNU
coreutils (``realpath -m``, ``mktemp``, ``mv -T``, ``dd iflag=nofollow``, ``chmod
--reference``, ``sync FILE``), bash for commands, and ``rg`` for the search tools.

As ``LocalOperations`` does, file scripts walk to their directory a part at a time
(``cd -P``), refuse a part that is a symbolic link and check where they arrived
(``realpath .``) before creating anything, so a directory swapped for a link after the
path was checked is refused; writes go to a temporary file in the same directory, synced,
then renamed over the name (``mv -T``).

Scripts report the usual failures by exit code, turned back into the builtin errors:
3 a directory where a file was expected, 4 not found, 5 not a directory, 6 permission,
7 a command failed (its error message says why: no space, quota, read-only...), 9 a part
of the path became a symbolic link, 10 the file-size limit (SIGXFSZ).
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import shlex
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence

from .._runtime.tool_runner import AbortSignal
from .operations import DirEntry, ExecResult
from .process import CommandError, run_process, stream_lines
from .ripgrep import RipgrepSearch
from .workspace import OutsideWorkspaceError

__all__ = ["ShellOperations"]

_ERRORS: dict[int, type[OSError]] = {
    3: IsADirectoryError,
    4: FileNotFoundError,
    5: NotADirectoryError,
    6: PermissionError,
}
# errors a failed command's message may name, by their text on the machine's C library
_NAMED_ERRORS = (
    errno.ENOSPC,
    errno.EDQUOT,
    errno.EFBIG,
    errno.EROFS,
    errno.EIO,
    errno.EACCES,
    errno.EPERM,
    errno.ENAMETOOLONG,
)
# cd into directory $1 (absolute, links resolved) a part at a time; $2=1 makes missing
# parts. A part that is a link exits 9; where it arrived is checked before each mkdir and
# at the end, so a part swapped for a link between the test and the cd is caught too.
_WALK = """walk() {
  cd / || exit 6
  at=
  set -f
  IFS=/
  for c in $1; do
    [ -n "$c" ] || continue
    if [ "$2" = 1 ] && [ ! -e "$c" ] && [ ! -L "$c" ]; then
      [ "$(realpath .)" = "${at:-/}" ] || exit 9
      mkdir -- "$c" || [ -d "$c" ] || exit 7
    fi
    at="$at/$c"
    [ -L "$c" ] && exit 9
    [ -e "$c" ] || exit 4
    [ -d "$c" ] || exit 5
    cd -P -- "$c" || exit 6
  done
  unset IFS
  set +f
  [ "$(realpath .)" = "${at:-/}" ] || exit 9
}
"""
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
        stderr = done.stderr.decode("utf-8", errors="replace")
        raise _error(code, stderr, path)

    async def realpath(self, path: str) -> str:
        out = await self._run(f"realpath -m -- {shlex.quote(path)}", path)
        return out.decode("utf-8").removesuffix("\n")

    async def read_bytes(self, path: str) -> bytes:
        parent, name = posixpath.split(path)
        return await self._run(
            f"{_WALK}walk {shlex.quote(parent)} 0; n={shlex.quote(name)}\n"
            '[ -L "$n" ] && exit 9; [ -d "$n" ] && exit 3; [ -e "$n" ] || exit 4; '
            '[ -r "$n" ] || exit 6; dd if="$n" iflag=nofollow bs=65536 status=none || exit 7',
            path,
        )

    async def write_bytes(self, path: str, data: bytes) -> None:
        parent, name = posixpath.split(path)
        await self._run(
            f"{_WALK}walk {shlex.quote(parent)} 1; n={shlex.quote(name)}\n"
            '[ -d "$n" ] && [ ! -L "$n" ] && exit 3\n'
            '[ -f "$n" ] && [ ! -L "$n" ] && [ ! -w "$n" ] && exit 6\n'
            "t=$(mktemp ./.agentcore-XXXXXXXXXXXXXXXX) || exit 7\n"
            'cat > "$t"; s=$?\n'
            'if [ "$s" != 0 ]; then rm -f -- "$t"; '
            '[ "$s" -gt 128 ] && [ "$(kill -l "$s")" = XFSZ ] && exit 10; exit 7; fi\n'
            'if [ -f "$n" ] && [ ! -L "$n" ]; then\n'
            '  chown --reference="$n" -- "$t" 2>/dev/null || '
            'chgrp --reference="$n" -- "$t" 2>/dev/null\n'
            '  chmod --reference="$n" -- "$t"\n'
            'else chmod "$(printf %o $((0666 & ~$(umask))))" -- "$t"; fi || '
            '{ rm -f -- "$t"; exit 7; }\n'
            'sync -- "$t" 2>/dev/null || sync\n'
            'mv -fT -- "$t" "$n" || { rm -f -- "$t"; exit 7; }',
            path,
            stdin=data,
        )

    async def list_dir(self, path: str) -> list[DirEntry]:
        out = await self._run(f"{_WALK}walk {shlex.quote(path)} 0\n{_LIST}", path)
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


def _error(code: int | None, stderr: str, path: str) -> OSError:
    """The builtin error an exit code (and the failed command's message) stands for."""
    known = _ERRORS.get(code or 0)
    if known is not None:
        return known(f"{known.__name__}: {path}")
    if code == 9:
        return OutsideWorkspaceError(
            f"{path} now goes through a symbolic link: a part of it was replaced after the "
            "path was checked; refused, so nothing outside the workspace is touched"
        )
    if code == 10:
        return OSError(errno.EFBIG, os.strerror(errno.EFBIG), path)
    if code == 7:
        for number in _NAMED_ERRORS:
            if os.strerror(number) in stderr:
                return OSError(number, os.strerror(number), path)
    return CommandError(code, stderr)
