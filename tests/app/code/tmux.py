"""A real tmux server driving ``agentcore code`` as a person would: keys in, screen out.

Each ``Tmux`` runs its own server on a socket in the test's temporary directory (so it
never touches the user's tmux), with ``remain-on-exit`` on, so a pane whose program
ended (or was killed) can still be read; a shell around the program prints its exit
status.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence

TMUX = shutil.which("tmux")
AGENTCORE = str(pathlib.Path(sys.executable).with_name("agentcore"))


class Tmux:
    """One tmux server; ``start`` runs a command in a new session named ``name``."""

    def __init__(self, root: pathlib.Path, *, width: int = 110, height: int = 40) -> None:
        assert TMUX is not None, "tmux is not installed (see .ci/system-packages.txt)"
        self.socket = root / "tmux.sock"
        self.config = root / "tmux.conf"
        self.config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")
        self.width, self.height = width, height

    def _tmux(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        done = subprocess.run(
            [TMUX or "tmux", "-S", str(self.socket), "-f", str(self.config), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=20,
        )
        assert done.returncode == 0, f"tmux {args}: {done.stderr}"
        return done.stdout

    def start(self, command: Sequence[str], env: Mapping[str, str], name: str = "app") -> None:
        """Run ``command`` (with exactly ``env``) in a new session's only pane; a shell
        around it prints ``[exited N]`` when it ends."""
        self.name = name
        self._tmux(
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            "env",
            "-i",
            *(f"{k}={v}" for k, v in env.items()),
            "sh",
            "-c",
            '"$@"; echo "[exited $?]"',
            "sh",
            *command,
            env={**os.environ, "TMUX": ""},
        )

    def send(self, *keys: str) -> None:
        """Keys by tmux name (``Enter``, ``C-c``, ``Escape``)."""
        self._tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        """``text`` typed literally."""
        self._tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self) -> str:
        """The pane's text, its scrollback included, trailing blanks dropped."""
        text = self._tmux("capture-pane", "-p", "-J", "-S", "-5000", "-t", self.name)
        return "\n".join(line.rstrip() for line in text.rstrip().split("\n"))

    def visible(self) -> str:
        """Only what the pane shows now."""
        text = self._tmux("capture-pane", "-p", "-J", "-t", self.name)
        return "\n".join(line.rstrip() for line in text.rstrip().split("\n"))

    def wait_for(
        self, expected: str | Callable[[str], bool], timeout: float = 30, *, visible: bool = False
    ) -> str:
        """Poll the screen until it shows ``expected`` (a string, or a test of the text);
        fail with the screen when it does not in ``timeout`` seconds."""
        check = (lambda s: expected in s) if isinstance(expected, str) else expected
        deadline = time.monotonic() + timeout
        while True:
            text = self.visible() if visible else self.screen()
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {expected!r}:\n{text}")
            time.sleep(0.1)

    def pane(self, field: str) -> str:
        return self._tmux("display-message", "-p", "-t", self.name, f"#{{{field}}}").strip()

    def exit_status(self, timeout: float = 20) -> int:
        """Wait for the program to end; its exit status (as the shell around it saw it:
        the pane's own status can lag behind under load)."""
        screen = self.wait_for(lambda s: re.search(r"\[exited \d+\]", s) is not None, timeout)
        return int(re.findall(r"\[exited (\d+)\]", screen)[-1])

    def kill_program(self) -> None:
        """SIGKILL the pane's processes (as a crash would) and wait until they are gone."""
        pid = int(self.pane("pane_pid"))
        os.killpg(os.getpgid(pid), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _alive(pid):
            assert time.monotonic() < deadline, "the killed program is still running"
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-S", str(self.socket), "kill-server"], capture_output=True)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
        return False
