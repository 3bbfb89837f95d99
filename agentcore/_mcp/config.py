"""Where an MCP server lives: transport parameters, and the common ``mcpServers`` file.

``StdioParams`` starts a server as a subprocess; ``HttpParams`` reaches one over
streamable HTTP (or the older SSE transport). ``read_mcp_config`` reads the JSON shape
most MCP clients share::

    {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "some-server"], "env": {"TOKEN": "${TOKEN}"}},
        "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${KEY}"}}
    }}

``${VAR}`` and ``${VAR:-default}`` in any string are replaced from the environment.
Values (which may be secrets) never appear in a repr or an error message: errors name the
server, the field and the variable.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias
from urllib.parse import urlsplit

import attrs

from .._core.errors import ConfigurationError
from .._runtime.secret_logs import url_secrets

__all__ = ["HttpParams", "ServerParams", "StdioParams", "expand_env", "read_mcp_config"]


def _strings_tuple(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.frozen(slots=True)
class StdioParams:
    """Start ``command args...`` and speak MCP on its stdin/stdout.

    ``env`` is added to a minimal inherited environment (``PATH``, ``HOME``, ...; the
    SDK's choice), ``cwd`` is the working directory. The repr hides ``env`` values.
    """

    command: str
    args: tuple[str, ...] = attrs.field(default=(), converter=_strings_tuple)
    env: Mapping[str, str] = attrs.field(factory=dict, repr=lambda env: f"<{len(env)} hidden>")
    cwd: str | None = None

    def secrets(self) -> tuple[str, ...]:
        """Values to keep out of logs and errors: the environment values."""
        return tuple(self.env.values())

    @property
    def label(self) -> str:
        """A default server name: the command's file name."""
        return os.path.basename(self.command) or "stdio"


Transport: TypeAlias = Literal["streamable-http", "sse"]


@attrs.frozen(slots=True)
class HttpParams:
    """Reach a server at ``url`` over streamable HTTP (``transport="sse"``: the older SSE
    transport), sending ``headers`` with every request. The repr hides header values and
    the URL's query and credentials."""

    url: str = attrs.field(repr=lambda url: repr(_safe_url(url)))
    headers: Mapping[str, str] = attrs.field(factory=dict, repr=lambda h: f"<{sorted(h)}>")
    transport: Transport = "streamable-http"

    def __attrs_post_init__(self) -> None:
        if urlsplit(self.url).scheme not in ("http", "https"):
            raise ConfigurationError(
                f"MCP server URL must start with http:// or https://, got {_safe_url(self.url)!r}"
            )
        if self.transport not in ("streamable-http", "sse"):
            raise ConfigurationError(
                f"MCP HTTP transport must be 'streamable-http' or 'sse', got {self.transport!r}"
            )

    def secrets(self) -> tuple[str, ...]:
        """Values to keep out of logs and errors: header values, URL credentials and
        query values."""
        return (*self.headers.values(), *url_secrets(self.url))

    @property
    def label(self) -> str:
        """A default server name: the URL's host."""
        return urlsplit(self.url).hostname or "http"


ServerParams: TypeAlias = StdioParams | HttpParams


def _safe_url(url: str) -> str:
    """``url`` without credentials, query or fragment (they may carry tokens)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


# -- the configuration file -------------------------------------------------------------

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_env(text: str, environ: Mapping[str, str], *, where: str) -> str:
    """``text`` with each ``${VAR}`` or ``${VAR:-default}`` replaced from ``environ``.

    Raises ``ConfigurationError`` naming ``where`` and the variable (never a value) when
    a variable is unset and has no default.
    """

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name)
        if found is not None:
            return found
        if default is not None:
            return default
        raise ConfigurationError(
            f"{where}: environment variable {name!r} is not set "
            "(set it, or write ${" + name + ":-default})"
        )

    return _VAR.sub(value, text)


_STDIO_TYPES = frozenset({"stdio"})
_HTTP_TYPES: dict[str, Transport] = {
    "http": "streamable-http",
    "streamable-http": "streamable-http",
    "streamableHttp": "streamable-http",
    "sse": "sse",
}


def read_mcp_config(
    source: str | os.PathLike[str] | Mapping[str, Any],
    *,
    environ: Mapping[str, str] | None = None,
) -> dict[str, ServerParams]:
    """Parse an ``mcpServers`` configuration (a JSON file's path or the parsed dict).

    Accepts the top-level key ``mcpServers`` (or ``servers``). Each entry has
    ``command``/``args``/``env``/``cwd`` (stdio) or ``url``/``headers`` (HTTP); ``type``
    (``stdio``, ``http``, ``streamable-http``, ``sse``) picks the transport when given;
    ``"disabled": true`` skips an entry; other keys are ignored (other clients' options).
    ``environ`` defaults to ``os.environ``. Raises ``ConfigurationError`` naming the
    server and the field for anything malformed.
    """
    env = os.environ if environ is None else environ
    data = _load(source) if not isinstance(source, Mapping) else source
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, Mapping):
        raise ConfigurationError(
            'MCP configuration needs a "mcpServers" object mapping names to servers, '
            f"got top-level keys {sorted(data)}"
        )
    found: dict[str, ServerParams] = {}
    for name, entry in servers.items():
        where = f"MCP server {name!r}"
        if not isinstance(entry, Mapping):
            raise ConfigurationError(f"{where}: expected an object, got {type(entry).__name__}")
        if entry.get("disabled") is True:
            continue
        found[name] = _entry(entry, env, where)
    return found


def _load(path: str | os.PathLike[str]) -> Mapping[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot read MCP configuration {os.fspath(path)!r}: {exc.strerror}"
        ) from None
    except json.JSONDecodeError as exc:
        raise ConfigurationError(
            f"MCP configuration {os.fspath(path)!r} is not valid JSON: {exc.msg} "
            f"(line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(data, Mapping):
        raise ConfigurationError(f"MCP configuration {os.fspath(path)!r} must hold a JSON object")
    return data


def _entry(entry: Mapping[str, Any], env: Mapping[str, str], where: str) -> ServerParams:
    kind = entry.get("type", entry.get("transport"))
    if kind is None:
        kind = "stdio" if "command" in entry else "http" if "url" in entry else None
    if kind in _STDIO_TYPES:
        return StdioParams(
            _string(entry, "command", env, where),
            tuple(_strings(entry.get("args", []), env, f"{where} args")),
            _string_map(entry.get("env", {}), env, f"{where} env"),
            _string(entry, "cwd", env, where) if "cwd" in entry else None,
        )
    if kind in _HTTP_TYPES:
        return HttpParams(
            _string(entry, "url", env, where),
            _string_map(entry.get("headers", {}), env, f"{where} headers"),
            _HTTP_TYPES[kind],
        )
    if kind is None:
        raise ConfigurationError(f'{where}: needs "command" (stdio) or "url" (HTTP)')
    raise ConfigurationError(
        f"{where}: unknown type {kind!r}; use one of {sorted(_STDIO_TYPES | set(_HTTP_TYPES))}"
    )


def _string(entry: Mapping[str, Any], key: str, env: Mapping[str, str], where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise ConfigurationError(f'{where}: "{key}" must be a non-empty string')
    return expand_env(value, env, where=f"{where} {key}")


def _strings(value: Any, env: Mapping[str, str], where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigurationError(f"{where}: must be a list of strings")
    return [expand_env(v, env, where=where) for v in value]


def _string_map(value: Any, env: Mapping[str, str], where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigurationError(f"{where}: must be an object of strings")
    return {k: expand_env(v, env, where=f"{where} {k}") for k, v in value.items()}
