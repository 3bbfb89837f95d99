"""The one exception of the MCP client, and the kinds of failure it reports.

``MCPServerError`` is the remote side's fault (a server that would not start, died,
stopped answering or rejected a request) except for ``closed``, which says the caller
used a server after ``aclose()``. Its message never holds a header value, an
environment value or a token: every text that reaches it went through ``Redactor``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Literal, TypeAlias

from .._core.errors import AgentError, ErrorCode
from .._core.secrets import REDACTED, scrub

__all__ = ["FailureKind", "MCPServerError", "Redactor", "guard_transport_logs"]

FailureKind: TypeAlias = Literal["connect", "lost", "timeout", "rejected", "protocol", "closed"]
"""``connect``: could not start or handshake; ``lost``: the connection died; ``timeout``:
no answer in time; ``rejected``: the server answered with a JSON-RPC error; ``protocol``:
an answer the client could not use; ``closed``: the server was closed with ``aclose()``."""

_CODES: dict[str, ErrorCode] = {
    "connect": ErrorCode.CONNECTION_ERROR,
    "lost": ErrorCode.CONNECTION_ERROR,
    "timeout": ErrorCode.TOOL_EXECUTION_ERROR,
    "rejected": ErrorCode.TOOL_EXECUTION_ERROR,
    "protocol": ErrorCode.PROVIDER_ERROR,
    "closed": ErrorCode.ENGINE_CLOSED,
}


class MCPServerError(AgentError):
    """An MCP server failed; ``server`` names it and ``kind`` says how (``FailureKind``)."""

    default_code = ErrorCode.CONNECTION_ERROR

    def __init__(self, message: str, *, server: str, kind: FailureKind) -> None:
        super().__init__(message, code=_CODES[kind], details={"server": server, "kind": kind})
        self.server = server
        self.kind: FailureKind = kind


MIN_SECRET_LENGTH = 6
"""Exact values shorter than this are not redacted (``"1"`` or ``"true"`` would mangle
every message); short values are not secrets worth the name."""


class Redactor:
    """Removes a server's configured secrets (header and environment values, URL
    credentials) and anything that looks like a key or token from a text."""

    __slots__ = ("_pattern",)

    def __init__(self, secrets: Iterable[str]) -> None:
        values = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, values))) if values else None

    def __call__(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        return scrub(text)


TRANSPORT_LOGGERS = ("httpx2", "mcp.client.streamable_http", "mcp.client.sse")
"""Loggers that write request URLs (``httpx2`` at INFO, the SDK at DEBUG)."""


class _ScrubRecords(logging.Filter):
    """Redacts registered secrets (and key-like strings) from records of the transport
    loggers, so a token in a URL's query never reaches a log handler."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()
        self._redact = Redactor(())

    def add(self, secrets: Iterable[str]) -> None:
        fresh = set(secrets) - self.secrets
        if fresh:
            self.secrets |= fresh
            self._redact = Redactor(self.secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self._redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


_SCRUBBER = _ScrubRecords()


def guard_transport_logs(secrets: Iterable[str]) -> None:
    """Keep ``secrets`` out of what the HTTP and SDK transport loggers write. The filter
    is installed on those loggers once per process; secrets are added, never removed."""
    _SCRUBBER.add(secrets)
    for name in TRANSPORT_LOGGERS:
        logger = logging.getLogger(name)
        if _SCRUBBER not in logger.filters:
            logger.addFilter(_SCRUBBER)
