"""Keeping secrets out of what libraries log: one filter for the HTTP stacks and the
vendor SDKs, which write request URLs (with their query and credentials) at INFO or
DEBUG. The MCP client and the provider drivers register the secrets they hold (header
and environment values, API keys, a ``base_url``'s credentials and query values); the
filter replaces them, and anything shaped like a key, by ``[REDACTED]`` in every record
of the loggers it guards."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit

from .._core.secrets import REDACTED, scrub

__all__ = ["MIN_SECRET_LENGTH", "Redactor", "guard_logs", "url_secrets"]

MIN_SECRET_LENGTH = 6
"""Exact values shorter than this are not redacted (``"1"`` or ``"true"`` would mangle
every message); short values are not secrets worth the name."""


class Redactor:
    """Removes the given secrets, and anything that looks like a key or token, from a
    text."""

    __slots__ = ("_pattern",)

    def __init__(self, secrets: Iterable[str]) -> None:
        values = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, values))) if values else None

    def __call__(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        return scrub(text)


def url_secrets(url: str | None) -> tuple[str, ...]:
    """What in ``url`` may be a secret: its user name, password and query values."""
    if not url:
        return ()
    parts = urlsplit(url)
    found = [v for _, v in parse_qsl(parts.query)]
    return (*found, *(s for s in (parts.username, parts.password) if s))


class _ScrubRecords(logging.Filter):
    """Redacts registered secrets (and key-like strings) from the records of the loggers
    it is installed on."""

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


def guard_logs(secrets: Iterable[str], loggers: Iterable[str]) -> None:
    """Keep ``secrets`` out of what ``loggers`` write, and out of what the loggers below
    them that exist now write (a filter runs only for records of its own logger, and an
    SDK's loggers exist once it is imported). Secrets are added, never removed."""
    _SCRUBBER.add(secrets)
    names = tuple(loggers)
    existing = logging.Logger.manager.loggerDict
    below = [n for n in list(existing) if any(n.startswith(f"{name}.") for name in names)]
    for name in (*names, *below):
        logger = logging.getLogger(name)
        if _SCRUBBER not in logger.filters:
            logger.addFilter(_SCRUBBER)
