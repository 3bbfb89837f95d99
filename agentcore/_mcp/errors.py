"""The one exception of the MCP client, and the kinds of failure it reports.

``MCPServerError`` is the remote side's fault (a server that would not start, died,
stopped answering or rejected a request) except for ``closed``, which says the caller
used a server after ``aclose()``. Its message never holds a header value, an
environment value or a token: every text that reaches it went through ``Redactor``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal, TypeAlias

from .._core.errors import AgentError, ErrorCode
from .._core.secrets import REDACTED, scrub

__all__ = ["FailureKind", "MCPServerError", "Redactor"]

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
