"""Running the app under uvicorn, with the exposure rules of docs/serve.md ("Security").

Loopback addresses (127.0.0.1, ::1, localhost) are the default. Binding anything else
needs a bearer token: ``run`` generates one (and prints it) when none is given, so an
exposed server is never open.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import sys
from typing import TextIO

import attrs

from .app import ServeConfig, create_app

__all__ = ["is_loopback", "new_token", "run"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def new_token() -> str:
    """A fresh random bearer token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def run(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    out: TextIO | None = None,
    log_level: str = "warning",
    sock: socket.socket | None = None,
) -> None:
    """Serve ``create_app(config)`` on ``host:port`` until interrupted (blocking); on
    ``sock`` when given (already bound there, so a port in use is said before the
    address is printed, as ``agentcore serve`` does).

    Off loopback, a token is required: without one in ``config``, one is generated and
    printed with the page's address, so only who reads it can use the API. A host bound
    by name is one of the ``Host`` names served.
    """
    import uvicorn

    out = out or sys.stdout
    if not _is_address(host) and host not in config.allow_hosts:  # a name bound: served
        config = attrs.evolve(config, allow_hosts=(*config.allow_hosts, host))
    if not is_loopback(host) and config.token is None:
        config = attrs.evolve(config, token=new_token())
        out.write(
            f"agentcore serve: {host} is not a loopback address; bearer token: {config.token}\n"
        )
    shown = f"[{host}]" if ":" in host else host
    query = f"?token={config.token}" if config.token else ""
    out.write(f"agentcore serve: http://{shown}:{port}/{query}\n")
    out.flush()
    served = uvicorn.Config(
        create_app(config), host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5
    )
    uvicorn.Server(served).run(sockets=None if sock is None else [sock])
