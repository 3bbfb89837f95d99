"""Media out of the journal's lines: each image, document or audio clip stored once, by
its content's sha256, beside the journal; the lines refer to it by hash.

A content part that carries base64 ``data`` (``{"type": "image", "media_type": ...,
"data": "iVBOR..."}`` in an event's wire form) is journaled as the same dict with
``"blob": "sha256:<hex of the decoded bytes>"`` in place of ``data``; the bytes go to the
journal's blob store first (a folder beside a JSONL file, a table in SQLite/PostgreSQL,
memory), so a line never refers to a blob that was not written. Reading puts ``data``
back, so an entry read is equal to the event appended and replay is exact. Only data
that is canonical base64 (what ``base64.b64encode`` writes) moves; anything else stays in
the line, so the round trip is exact for every string.

A blob is immutable and shared: the same bytes referred to by twenty messages, or by a
session and its fork, are stored once. Secrets scrubbing runs on the lines after the
blobs left them, so it never touches binary data. A reference whose blob is missing is a
``JournalError`` naming the hash (``MissingBlobError``).
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any, Protocol

import attrs

from .._core.binary import is_media_wire
from .._core.events import EVENT_TYPES
from .._core.wire import from_dict, to_dict
from .errors import JournalError, MissingBlobError

__all__ = [
    "BLOB_MARKER",
    "BlobStore",
    "FolderBlobs",
    "MemoryBlobs",
    "MissingBlobError",
    "blob_folder",
    "carries_media",
    "digest_of",
    "extract_blobs",
    "intern_blobs",
    "resolve_blobs",
]

_PREFIX = "sha256:"
BLOB_MARKER = '"blob":"sha256:'
"""What a serialised line holds when it refers to a blob: readers look for it before
they walk the event (compact JSON, as the journals write it)."""
BLOB_MARKER_BYTES = BLOB_MARKER.encode()


class BlobStore(Protocol):
    """Content-addressed bytes: ``digest`` is ``"sha256:<hex>"`` of ``data``."""

    def put(self, digest: str, data: bytes) -> None:
        """Store ``data`` under ``digest``; idempotent (a blob already there is kept)."""
        ...

    def get(self, digest: str) -> bytes | None:
        """The bytes stored under ``digest``, None when there are none."""
        ...

    def __iter__(self) -> Iterator[str]:
        """The digests stored."""
        ...


def digest_of(data: bytes) -> str:
    """The name of ``data`` in a blob store: ``"sha256:"`` and its hex digest."""
    import hashlib  # on the first blob: a run without media never needs it

    return _PREFIX + hashlib.sha256(data).hexdigest()


@attrs.define
class MemoryBlobs:
    """Blobs in a dict (``MemoryJournal``'s), kept as the base64 text the events hold,
    so every event that refers to a blob shares its one string (``intern_blobs``)."""

    texts: dict[str, str] = attrs.field(factory=dict)

    def put(self, digest: str, data: bytes) -> None:
        if digest not in self.texts:
            self.texts[digest] = base64.b64encode(data).decode("ascii")

    def get(self, digest: str) -> bytes | None:
        text = self.texts.get(digest)
        return None if text is None else base64.b64decode(text)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.texts))

    def __len__(self) -> int:
        return len(self.texts)


def blob_folder(path: str | os.PathLike[str]) -> Path:
    """Where the blobs of the JSONL journal at ``path`` live: ``<path>.blobs/``."""
    path = Path(path)
    return path.with_name(path.name + ".blobs")


@attrs.define
class FolderBlobs:
    """Blobs as files named by their hex digest in ``folder`` (created on the first
    ``put``). Each is written to a temporary name and renamed, so a crash leaves no half
    blob under a real name; ``fsync`` also flushes the file and the folder before the
    rename is relied on (the journal's ``"turn"`` and ``"always"`` policies)."""

    folder: Path
    fsync: bool = False

    def _file(self, digest: str) -> Path:
        if not digest.startswith(_PREFIX) or len(digest) != len(_PREFIX) + 64:
            raise JournalError(f"{digest!r} is not a blob digest (sha256:<64 hex digits>)")
        return self.folder / digest[len(_PREFIX) :]

    def put(self, digest: str, data: bytes) -> None:
        target = self._file(digest)
        if target.exists():
            return
        self.folder.mkdir(mode=0o700, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
        if self.fsync:
            directory = os.open(self.folder, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)

    def get(self, digest: str) -> bytes | None:
        try:
            return self._file(digest).read_bytes()
        except FileNotFoundError:
            return None

    def __iter__(self) -> Iterator[str]:
        if not self.folder.is_dir():
            return iter(())
        return iter(
            sorted(_PREFIX + p.name for p in self.folder.iterdir() if not p.name.startswith("."))
        )

    def __len__(self) -> int:
        return sum(1 for _ in self)


# -- which wire dicts are media -------------------------------------------------------------

_CARRIES: dict[str, bool] = {}


def carries_media(kind: str) -> bool:
    """Whether events of wire type ``kind`` may hold content parts: a field that takes
    content, messages or any value (cached per type; False for the deltas)."""
    carries = _CARRIES.get(kind)
    if carries is None:
        cls = EVENT_TYPES.get(kind)
        carries = _CARRIES[kind] = cls is None or any(
            f.converter is not None or "Any" in str(f.type) or "Content" in str(f.type)
            for f in attrs.fields(cls)
        )
    return carries


def _canonical_bytes(data: str) -> bytes | None:
    """The bytes ``data`` encodes when it is canonical base64 (non-empty), else None."""
    if not data:
        return None
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return decoded if base64.b64encode(decoded).decode("ascii") == data else None


def extract_blobs(
    wire: dict[str, Any],
    put: Callable[[str, bytes], None],
    cache: MutableMapping[str, str] | None = None,
) -> dict[str, Any]:
    """``wire`` (an event's wire form) with the base64 ``data`` of each media part moved
    to ``put(digest, bytes)`` and replaced by its digest; ``wire`` itself when it holds
    none (it is never changed in place). ``cache`` maps data already seen to its digest,
    so data met again is neither decoded nor hashed again."""
    if not carries_media(wire.get("type", "")):
        return wire
    data = wire.get("data")
    moved = _extract(data, put, cache if cache is not None else {})
    return wire if moved is data else {**wire, "data": moved}


def _extract(value: Any, put: Callable[[str, bytes], None], cache: MutableMapping[str, str]) -> Any:
    if isinstance(value, list):
        items = [_extract(item, put, cache) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if not isinstance(value, dict):
        return value
    data = value.get("data")
    if is_media_wire(value) and type(data) is str:
        digest = cache.get(data)
        if digest is None:
            decoded = _canonical_bytes(data)
            if decoded is None:
                return value
            digest = digest_of(decoded)
            put(digest, decoded)
            cache[data] = digest
        return {
            ("blob" if k == "data" else k): (digest if k == "data" else v) for k, v in value.items()
        }
    moved = {k: _extract(v, put, cache) for k, v in value.items()}
    return value if all(moved[k] is value[k] for k in value) else moved


def resolve_blobs(
    wire: Any, get: Callable[[str], bytes | None], cache: MutableMapping[str, str] | None = None
) -> Any:
    """The inverse of ``extract_blobs``: ``wire`` with every blob reference replaced by
    the base64 of its bytes (``cache``: digest -> base64 already read, shared so equal
    parts share one string). Raises ``MissingBlobError`` naming the digest of a blob
    ``get`` does not have."""
    return _resolve(wire, get, cache if cache is not None else {})


def _resolve(
    value: Any, get: Callable[[str], bytes | None], cache: MutableMapping[str, str]
) -> Any:
    if isinstance(value, list):
        return [_resolve(item, get, cache) for item in value]
    if not isinstance(value, dict):
        return value
    digest = value.get("blob")
    if is_media_wire(value) and type(digest) is str and "data" not in value:
        data = cache.get(digest)
        if data is None:
            blob = get(digest)
            if blob is None:
                raise MissingBlobError(
                    f"blob {digest} is missing: the entry refers to media stored beside the "
                    "journal (a blob folder or table) that is not there; restore it from "
                    "the journal's copy or backup"
                )
            data = cache[digest] = base64.b64encode(blob).decode("ascii")
        return {
            ("data" if k == "blob" else k): (data if k == "blob" else v) for k, v in value.items()
        }
    return {k: _resolve(v, get, cache) for k, v in value.items()}


def intern_blobs(event: Any, blobs: MemoryBlobs) -> Any:
    """``event`` with the data of its media parts stored in ``blobs`` and replaced by the
    one string ``blobs`` holds for it (equal to it): a blob held once in memory, however
    many events refer to it. ``event`` itself when it holds no media."""
    if not carries_media(event.type):
        return event
    wire = to_dict(event)
    moved = extract_blobs(wire, blobs.put)
    if moved is wire:
        return event
    return from_dict(resolve_blobs(moved, blobs.get, blobs.texts))
