"""A real, throwaway PostgreSQL server for tests and benchmarks.

``PostgresServer`` runs the ``postgres`` binary of the machine (Debian's ``postgresql``
package: ``/usr/lib/postgresql/<version>/bin``, or ``AGENTCORE_POSTGRES_BIN``) in a
temporary data directory, listening on 127.0.0.1 only, on a free port, with a random
password (SCRAM) and no Unix socket. Stopping it removes the directory. It is a child of
the process that started it and, on Linux, dies with it.

``initdb`` and ``postgres`` refuse to run as root: when this process is root, the server
runs as an unprivileged user (``nobody`` unless ``user=`` says otherwise) that owns the
data directory.

Usage::

    with PostgresServer() as server:
        conninfo = server.create_database("t1")  # a fresh, empty database
        ...
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["PostgresServer", "find_postgres_bin"]

_READY_TIMEOUT = 60.0
_SUPERUSER = "postgres"


def find_postgres_bin() -> Path:
    """The folder holding ``initdb`` and ``postgres``: ``AGENTCORE_POSTGRES_BIN``, else the
    newest ``/usr/lib/postgresql/*/bin``, else the folder of ``postgres`` on ``PATH``.
    Raises ``RuntimeError`` saying how to install it when there is none."""
    configured = os.environ.get("AGENTCORE_POSTGRES_BIN")
    candidates = [Path(configured)] if configured else []
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True,
    )
    candidates += versions
    found = shutil.which("postgres")
    if found:
        candidates.append(Path(found).resolve().parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    raise RuntimeError(
        "no PostgreSQL server binaries (initdb, postgres) found: install Debian's "
        "'postgresql' package (make does it from .ci/system-packages.txt) or set "
        "AGENTCORE_POSTGRES_BIN to the folder that holds them"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _parent_death_signal() -> Callable[[], None] | None:
    """A function for the child to run before ``exec``: on Linux, ask for SIGTERM when the
    process that started it dies (``prctl(PR_SET_PDEATHSIG)``). Looked up here, in the
    parent: the child only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None).prctl
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return None
    return functools.partial(prctl, 1, int(signal.SIGTERM))


class PostgresServer:
    """A PostgreSQL server on 127.0.0.1 in a temporary data directory (module docstring).

    ``settings`` are extra server settings (``{"fsync": "off"}``). ``start()`` returns once
    the server accepts connections (``RuntimeError`` with its log otherwise); ``stop()``
    shuts it down and deletes its data; both are idempotent, and the server is a context
    manager. ``conninfo`` and ``url`` name the ``postgres`` database as the superuser
    ``postgres``; ``create_database(name)`` makes another and returns its ``conninfo``.
    """

    def __init__(
        self,
        *,
        bin_dir: str | os.PathLike[str] | None = None,
        user: str | None = None,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        self.bin_dir = Path(bin_dir) if bin_dir is not None else find_postgres_bin()
        self.host = "127.0.0.1"
        self.port = 0
        self.user = _SUPERUSER
        self.password = secrets.token_urlsafe(18)
        self._os_user = user if user is not None else ("nobody" if os.geteuid() == 0 else None)
        self._settings = dict(settings or {})
        self._dir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def data_dir(self) -> Path:
        if self._dir is None:
            raise RuntimeError("the server is not started")
        return self._dir / "data"

    @property
    def log_path(self) -> Path:
        return self.data_dir.parent / "server.log"

    def conninfo_for(self, dbname: str) -> str:
        """The libpq connection string of database ``dbname`` on this server."""
        return (
            f"host={self.host} port={self.port} user={self.user} "
            f"password={self.password} dbname={dbname}"
        )

    @property
    def conninfo(self) -> str:
        return self.conninfo_for("postgres")

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/postgres"

    def _run_as(self) -> dict[str, Any]:
        return {} if self._os_user is None else {"user": self._os_user}

    def start(self) -> PostgresServer:
        if self._process is not None:
            return self
        self._dir = Path(tempfile.mkdtemp(prefix="agentcore-pg-"))
        pwfile = self._dir / "pw"
        pwfile.write_text(self.password)
        if self._os_user is not None:
            shutil.chown(self._dir, self._os_user)
            shutil.chown(pwfile, self._os_user)
        try:
            subprocess.run(
                [
                    str(self.bin_dir / "initdb"),
                    "-D",
                    str(self.data_dir),
                    "-U",
                    self.user,
                    f"--pwfile={pwfile}",
                    "--auth=scram-sha-256",
                    "-E",
                    "UTF8",
                    "--no-locale",
                    "--no-sync",
                ],
                check=True,
                capture_output=True,
                cwd=self._dir,
                **self._run_as(),
            )
        except subprocess.CalledProcessError as exc:
            self.stop()
            raise RuntimeError(f"initdb failed: {exc.stderr.decode(errors='replace')}") from exc
        pwfile.unlink()
        for attempt in range(3):
            try:
                self._launch()
                return self
            except RuntimeError:
                self._terminate()
                if attempt == 2:
                    self.stop()
                    raise
        return self  # pragma: no cover - the loop returns or raises

    def _launch(self) -> None:
        self.port = _free_port()
        settings = {
            "listen_addresses": self.host,
            "port": str(self.port),
            "unix_socket_directories": "",
            **self._settings,
        }
        args = [str(self.bin_dir / "postgres"), "-D", str(self.data_dir)]
        for name, value in settings.items():
            args += ["-c", f"{name}={value}"]
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it
        with log:
            self._process = subprocess.Popen(
                args,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self._dir,
                preexec_fn=_parent_death_signal(),
                **self._run_as(),
            )
        deadline = time.monotonic() + _READY_TIMEOUT
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"postgres exited at start:\n{self._log_tail()}")
            ready = subprocess.run(
                [str(self.bin_dir / "pg_isready"), "-q", "-h", self.host, "-p", str(self.port)],
                check=False,
            )
            if ready.returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError(f"postgres did not accept connections in time:\n{self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return "(no log)"

    def create_database(self, name: str) -> str:
        """Create the empty database ``name``; return its ``conninfo``."""
        env = {**os.environ, "PGPASSWORD": self.password}
        result = subprocess.run(
            [
                str(self.bin_dir / "createdb"),
                "-h",
                self.host,
                "-p",
                str(self.port),
                "-U",
                self.user,
                name,
            ],
            env=env,
            capture_output=True,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"createdb {name} failed: {result.stderr.decode(errors='replace')}")
        return self.conninfo_for(name)

    def _terminate(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # fast shutdown: roll back, stop
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def stop(self) -> None:
        self._terminate()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
