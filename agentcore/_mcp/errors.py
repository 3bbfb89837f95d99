"""Keeping secrets out of what the MCP client says: the ``Redactor`` and the transport
loggers' filter.

``MCPServerError`` (``agentcore.errors``) is the remote side's fault (a server that would
not start, died, stopped answering or rejected a request) except for ``closed``, which
says the caller used a server after ``aclose()``. Its message never holds a header value,
an environment value or a token: every text that reaches it went through ``Redactor``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from .._core.errors import FailureKind, MCPServerError
from .._core.secrets import REDACTED, scrub

__all__ = ["FailureKind", "MCPServerError", "Redactor", "guard_transport_logs"]


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
