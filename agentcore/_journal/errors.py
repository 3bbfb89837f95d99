"""The journal's errors, apart so that every journal module (the reader, the blob store)
can raise them without importing each other."""

from __future__ import annotations

from .._core.errors import AgentError, ErrorCode

__all__ = ["JournalError", "MissingBlobError"]


class JournalError(AgentError, ValueError):
    """A journal line is malformed, an event cannot be written, or a journal or snapshot
    store is used after ``close()``."""

    default_code = ErrorCode.INVALID_EVENT


class MissingBlobError(JournalError, LookupError):
    """A journal entry refers to a blob (media stored beside the journal) that its store
    does not hold; the message names the blob's digest."""
