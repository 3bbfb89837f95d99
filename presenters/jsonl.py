"""A presenter that writes every output as one JSON line: ``{"agent_id", "event"}``.

``event`` is the wire form (``agentcore.events.to_dict``), so each line reads back with
``decode_line`` (or ``from_dict`` on its ``event``) into the output that was presented.

Media are not written into the lines: the bytes of each image, document or audio part
go once to a blob store (``<file>.blobs/`` beside a file given by path, as the JSONL
journal does; any ``BlobStore`` given as ``blobs=``), and the line refers to them by
sha256 (``"blob": "sha256:..."``); ``decode_line(line, blobs)`` puts them back. A file
given open, without ``blobs=``, gets the media inline.

Flush policy: lines are buffered in memory and written, then flushed to the OS, at the end
of each turn (a ``turn_response`` or ``conversation_end`` output), when ``max_buffered``
lines are waiting, on ``flush()`` and on ``close()``. With ``fsync=True`` each flush also
asks the OS to put the bytes on disk. A crash of the process therefore loses at most the
outputs of the turn in progress (a power loss without ``fsync``: whatever the OS had not yet
written); lines already flushed are complete. A crash in the middle of a write can leave a
truncated last line, which ``decode_line`` reports as an error: readers should skip it.

Events hold no credentials (drivers never put API keys or headers in them), so nothing
secret reaches the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from types import TracebackType
from typing import IO, Any

from agentcore import from_dict, to_dict
from agentcore.errors import EngineClosedError, InvalidEventError
from agentcore.events import ConversationEnd, TurnResponse
from agentcore.journal import BlobStore, FolderBlobs, blob_folder, extract_blobs, resolve_blobs

__all__ = ["JsonlPresenter", "decode_line", "encode_line"]

_TURN_END = (TurnResponse, ConversationEnd)


def encode_line(agent_id: str, output: Any, blobs: BlobStore | None = None) -> str:
    """The JSON line for one output, without the newline; the bytes of its media put in
    ``blobs`` and referred to by hash (inline when ``blobs`` is None).

    Non-ASCII characters are escaped, so no character inside a line (such as U+2028 or
    U+0085) can be mistaken for a line break by ``str.splitlines`` or other readers.

    Raises ``InvalidEventError`` when ``output`` is not a registered event (an output no
    reader could rebuild); events of later layers are registered, so they are written.
    """
    event = to_dict(output)
    if blobs is not None:
        event = extract_blobs(event, blobs.put)
    return json.dumps({"agent_id": agent_id, "event": event}, separators=(",", ":"))


def decode_line(line: str, blobs: BlobStore | None = None) -> tuple[str, Any]:
    """Rebuild ``(agent_id, output)`` from a line written by ``encode_line``, its media
    read from ``blobs``.

    Raises ``InvalidEventError`` (a ``ValueError``) naming what is wrong with the line,
    ``MissingBlobError`` naming the hash of a blob ``blobs`` lacks.
    """
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidEventError(f"not a JSON line ({exc}); a truncated last line?") from None
    if not isinstance(record, Mapping) or not isinstance(record.get("agent_id"), str):
        raise InvalidEventError("a JSONL record must be an object with a string 'agent_id'")
    event = record.get("event")
    if not isinstance(event, Mapping):
        raise InvalidEventError("a JSONL record must have an 'event' object (the wire form)")
    if blobs is not None:
        event = resolve_blobs(event, blobs.get)
    return record["agent_id"], from_dict(event)


class JsonlPresenter:
    """Appends outputs to a JSON Lines file, flushed per turn (see the module docstring).

    ``path_or_file`` is a path (opened for appending, UTF-8, and closed by ``close()``) or
    an open text file (flushed but left open by ``close()``: the caller owns it).
    ``blobs`` holds the media (default: ``<path>.blobs/`` for a path, inline for a file).
    ``close()`` is idempotent; ``present`` after ``close`` raises ``EngineClosedError``.
    Also a context manager that closes on exit.
    """

    def __init__(
        self,
        path_or_file: str | os.PathLike[str] | IO[str],
        *,
        max_buffered: int = 10_000,
        fsync: bool = False,
        blobs: BlobStore | None = None,
    ) -> None:
        if max_buffered < 1:
            raise ValueError(f"max_buffered must be at least 1, got {max_buffered}")
        if isinstance(path_or_file, str | os.PathLike):
            self._file: IO[str] = open(path_or_file, "a", encoding="utf-8")  # noqa: SIM115
            self._owned = True
            if blobs is None:
                blobs = FolderBlobs(blob_folder(path_or_file), fsync=fsync)
        else:
            self._file = path_or_file
            self._owned = False
        self.blobs = blobs
        self._name = str(getattr(self._file, "name", "<file>"))
        self._buffer: list[str] = []
        self._max_buffered = max_buffered
        self._fsync = fsync
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def present(self, agent_id: str, output: Any) -> None:
        """Buffer one line; write the buffer when a turn ends or it is full."""
        if self._closed:
            raise EngineClosedError(
                f"JsonlPresenter for {self._name} is closed; create a new presenter"
            )
        self._buffer.append(encode_line(agent_id, output, self.blobs))
        if isinstance(output, _TURN_END) or len(self._buffer) >= self._max_buffered:
            self.flush()

    def flush(self) -> None:
        """Write the buffered lines and flush the file (and fsync it if asked).

        A no-op after ``close()``, which flushed everything.
        """
        if self._closed:
            return
        if self._buffer:
            self._file.write("\n".join(self._buffer) + "\n")
            self._buffer.clear()  # only once written: a failed write is retried next flush
        self._file.flush()
        if self._fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        """Flush what is buffered, then close the file if this presenter opened it."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            if self._owned:
                self._file.close()

    def __enter__(self) -> JsonlPresenter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
