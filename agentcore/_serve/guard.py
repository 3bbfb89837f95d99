"""Who may talk to the server: the ``Host`` and ``Origin`` rules of docs/serve.md ("Security").

Pure decisions on header values, so they are tested without a server:

- ``host_refusal``: a DNS-rebinding page reaches a loopback server under its own name
  (``Host: evil.example``), so only names that cannot be rebound are served: IP literals,
  ``localhost`` and ``*.localhost``, plus the names the operator allows (``allow_hosts``,
  where the bound name goes, ``"*"`` for any).
- ``origin_refusal``: a state-changing request a browser sends for another site carries
  that site's ``Origin`` (or ``Sec-Fetch-Site: cross-site`` when it omits it); only this
  server's own origin and the allowed ones (``allow_origins``) may change anything.
  A client that is not a browser (curl, an SDK) sends neither header and passes.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection
from urllib.parse import urlsplit

__all__ = ["check_origin", "host_refusal", "normal_origin", "origin_refusal"]

_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _split_host(value: str) -> tuple[str, str]:
    """``(name, port)`` of a ``Host`` value (``[::1]:8000``, ``localhost``...), lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        return name, rest.removeprefix(":")
    if value.count(":") > 1:  # a bare IPv6 address
        return value, ""
    name, _, port = value.partition(":")
    return name, port


def _unbindable(name: str) -> bool:
    """Whether no DNS answer can point ``name`` here on an attacker's behalf."""
    if name == "localhost" or name.endswith(".localhost"):
        return True  # browsers resolve these to loopback themselves
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_refusal(host: str | None, allow_hosts: Collection[str]) -> str | None:
    """Why a request with this ``Host`` header is refused; ``None``: it is served.
    A request without one is not a browser's (HTTP/1.1 browsers always send it)."""
    if host is None or "*" in allow_hosts:
        return None
    name, _ = _split_host(host)
    if _unbindable(name) or name in {h.lower() for h in allow_hosts}:
        return None
    return (
        f"Host {host!r} is not a name of this server (a DNS-rebinding page reaches a "
        "local server under its own name); allow it with --allow-host NAME"
    )


def normal_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case, without a default port or a trailing slash."""
    parts = urlsplit(origin.strip().lower().rstrip("/"))
    name, port = _split_host(parts.netloc)
    if port == _DEFAULT_PORTS.get(parts.scheme):
        port = ""
    shown = f"[{name}]" if ":" in name else name
    return f"{parts.scheme}://{shown}" + (f":{port}" if port else "")


def check_origin(origin: str) -> None:
    """Raise ``ValueError`` unless ``origin`` is one (``http(s)://host[:port]``, no path)."""
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/"):
        raise ValueError(
            f"{origin!r} is not an origin: scheme://host[:port], e.g. http://localhost:3000"
        )


def origin_refusal(
    origin: str | None,
    fetch_site: str | None,
    host: str | None,
    allow_origins: Collection[str],
) -> str | None:
    """Why a state-changing request is refused; ``None``: it may go ahead (the module
    docstring). ``host`` is the request's ``Host``: the page's own origin is on it."""
    if origin is None:
        if fetch_site is None or fetch_site in ("same-origin", "none"):
            return None
        return (
            f"a {fetch_site} request from a browser without an Origin header; send it from "
            "this server's page, or from an origin allowed with --allow-origin"
        )
    given = normal_origin(origin) if origin != "null" else "null"
    if given in {normal_origin(o) for o in allow_origins}:
        return None
    if host is not None and given != "null":
        scheme = urlsplit(given).scheme
        if given == normal_origin(f"{scheme}://{host}"):
            return None
    return (
        f"cross-origin request from {origin!r} refused; a frontend served elsewhere needs "
        f"--allow-origin {origin}"
    )
