"""Error results shared by the coding tools: one wording per kind of failure."""

from __future__ import annotations

import errno
from typing import Any

from .._loop.tools import ToolOutput
from .process import CommandError
from .workspace import OutsideWorkspaceError

__all__ = ["failure", "os_failure"]


def failure(message: str, **details: Any) -> ToolOutput:
    """An error result: ``message`` for the model, ``details`` (plus the message) for UIs."""
    return ToolOutput(message, details={"error": message, **details}, is_error=True)


def os_failure(exc: OSError, path: str, *, writing: bool = False) -> ToolOutput:
    """The error result for a failed file operation on ``path`` (as the model wrote it);
    ``writing``: the failure came from replacing the file, which was left as it was."""
    if isinstance(exc, OutsideWorkspaceError | CommandError):
        message = str(exc)
    elif isinstance(exc, FileNotFoundError):
        message = f"{path!r} does not exist"
    elif isinstance(exc, IsADirectoryError):
        message = f"{path!r} is a directory, not a file; use ls to list it"
    elif isinstance(exc, NotADirectoryError):
        message = f"{path!r} is not a directory (or a part of it is a file)"
    elif isinstance(exc, PermissionError):
        message = f"permission denied for {path!r}"
    elif writing:
        message = f"could not write {path!r}: {_reason(exc)}; the file was left as it was"
    else:
        message = f"{path!r}: {_reason(exc)}"
    return failure(message, path=path)


def _reason(exc: OSError) -> str:
    code = errno.errorcode.get(exc.errno or 0)
    return f"{exc.strerror} ({code})" if exc.strerror and code else str(exc)
