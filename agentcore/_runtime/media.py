"""``load_media``: a file on disk as an image, document or audio content part.

The content parts live in the pure core (``agentcore._core.media``), which reads no
files; this is the one place that does, for callers holding a path.
"""

from __future__ import annotations

import os
import pathlib

from .._core.errors import InvalidEventError
from .._core.media import (
    AudioContent,
    DocumentContent,
    ImageContent,
    media_kind,
    sniff_media_type,
)

__all__ = ["load_media"]

_BY_SUFFIX = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".pdf": "application/pdf",
    ".txt": "text/plain",
    ".md": "text/plain",
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".aac": "audio/aac",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
    ".aif": "audio/aiff",
    ".aiff": "audio/aiff",
}
"""Media types by file suffix, for files whose first bytes say nothing (plain text)."""


def load_media(
    path: str | os.PathLike[str],
    media_type: str | None = None,
    *,
    title: str | None = None,
    citations: bool = False,
) -> ImageContent | DocumentContent | AudioContent:
    """The file at ``path`` as the content part its media type calls for.

    The media type is ``media_type`` when given, else what the file's first bytes say
    (``sniff_media_type``), else what its suffix says. A document's ``title`` defaults to
    the file name. Raises ``InvalidEventError`` for a file that is none of the media
    types a part takes (naming the path and those types), ``OSError`` when it cannot be
    read.
    """
    file = pathlib.Path(path)
    data = file.read_bytes()
    found = media_type or sniff_media_type(data[:16]) or _BY_SUFFIX.get(file.suffix.lower())
    kind = media_kind(found) if found is not None else "file"
    if kind == "image":
        return ImageContent.from_bytes(data, found)  # type: ignore[arg-type]
    if kind == "document":
        return DocumentContent.from_bytes(
            data,
            found,  # type: ignore[arg-type]
            title=file.name if title is None else title,
            citations=citations,
        )
    if kind == "audio":
        return AudioContent.from_bytes(data, found)  # type: ignore[arg-type]
    known = ", ".join(sorted(set(_BY_SUFFIX.values())))
    raise InvalidEventError(
        f"load_media: {str(file)!r} is {found or 'of an unrecognised type'}; "
        f"a content part takes one of {known} (a FileContent can refer to other media)"
    )
