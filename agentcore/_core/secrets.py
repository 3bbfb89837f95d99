"""Secrets never leave the engine: the patterns of API keys and tokens, and their scrubbing.

Any substring that looks like an API key (``sk-...``, ``sk-ant-...``, ``AIza...``) or an
auth header value (``Bearer ...``) is replaced by ``[REDACTED]``. Journals scrub every
entry they record with these functions, so one pattern list serves every path.
"""

from __future__ import annotations

import re
from typing import Any

from .wire import from_dict, to_dict

__all__ = ["REDACTED", "SECRET_PATTERN", "has_secret", "scrub", "scrub_bytes", "scrub_event"]

REDACTED = "[REDACTED]"
SECRET_PATTERN = (
    r"sk-(?:ant-)?[A-Za-z0-9_\-]{16,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/\-]{8,}=*"
)
"""A regular expression matching every key or token shape agentcore scrubs."""

_SECRET = re.compile(SECRET_PATTERN)
_SECRET_BYTES = re.compile(SECRET_PATTERN.encode())


def scrub(text: str) -> str:
    """Replace every API-key-like or bearer-token substring of ``text`` with ``[REDACTED]``."""
    return _SECRET.sub(REDACTED, text)


def scrub_bytes(data: bytes) -> bytes:
    """``scrub`` for UTF-8 bytes (a serialised journal line)."""
    return _SECRET_BYTES.sub(REDACTED.encode(), data)


def has_secret(data: bytes) -> bool:
    """Whether ``data`` holds anything ``scrub_bytes`` would replace."""
    return _SECRET_BYTES.search(data) is not None


def _contains(value: Any) -> bool:
    if isinstance(value, str):
        return _SECRET.search(value) is not None
    if isinstance(value, list):
        return any(_contains(v) for v in value)
    if isinstance(value, dict):
        return any(_contains(k) or _contains(v) for k, v in value.items())
    return False


def _scrub_value(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrub_value(v) for v in value]
    if isinstance(value, dict):
        return {_scrub_value(k): _scrub_value(v) for k, v in value.items()}
    return value


def scrub_event(event: Any) -> Any:
    """``event`` with secrets redacted from every string, dict keys included (``event``
    itself when it holds none)."""
    wire = to_dict(event)
    if not _contains(wire):
        return event
    return from_dict(_scrub_value(wire))
