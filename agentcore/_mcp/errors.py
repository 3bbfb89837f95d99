"""Keeping secrets out of what the MCP client says: the ``Redactor`` and the transport
loggers' filter.

``MCPServerError`` (``agentcore.errors``) is the remote side's fault (a server that would
not start, died, stopped answering or rejected a request) except for ``closed``, which
says the caller used a server after ``aclose()``. Its message never holds a header value,
an environment value or a token: every text that reaches it went through ``Redactor``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._core.errors import FailureKind, MCPServerError
from .._runtime.secret_logs import Redactor, guard_logs

__all__ = ["FailureKind", "MCPServerError", "Redactor", "guard_transport_logs"]


TRANSPORT_LOGGERS = ("httpx2", "mcp.client.streamable_http", "mcp.client.sse")
"""Loggers that write request URLs (``httpx2`` at INFO, the SDK at DEBUG)."""


def guard_transport_logs(secrets: Iterable[str]) -> None:
    """Keep ``secrets`` out of what the HTTP and SDK transport loggers write."""
    guard_logs(secrets, TRANSPORT_LOGGERS)
