"""Which content parts carry binary data: the fact the journal's blob store and the
secrets scrubber share (one owner; the parts themselves are in ``media``), and the
one-line placeholder every text view shows for a part instead of its bytes.

A content part whose class has a ``data`` field holds base64-encoded bytes in it (an
image today; documents and audio too). Those bytes are never scrubbed (a base64 run can
look like an API key: ``AIza`` and 35 more letters) and are stored beside a journal,
once, instead of in its lines.
"""

from __future__ import annotations

from typing import Any

from .content import (
    CONTENT_CLASSES,
    AudioContent,
    ContentPart,
    DocumentContent,
    FileContent,
    ImageContent,
    TextContent,
    media_kind,
)
from .records import field_names

__all__ = [
    "MEDIA_CLASSES",
    "MEDIA_TAGS",
    "describe_part",
    "format_bytes",
    "inline_part",
    "is_media_wire",
]

MEDIA_CLASSES: frozenset[type[Any]] = frozenset(
    cls for cls in CONTENT_CLASSES if "data" in field_names(cls)
)
"""Content-part classes whose ``data`` field holds base64 bytes."""

MEDIA_TAGS: frozenset[str] = frozenset(cls.type for cls in MEDIA_CLASSES)
"""Their wire tags (``"image"``, ...)."""


def is_media_wire(value: dict[str, Any]) -> bool:
    """Whether the wire dict ``value`` is a content part of one of ``MEDIA_TAGS``."""
    return value.get("type") in MEDIA_TAGS


def format_bytes(size: int) -> str:
    """``size`` bytes as the project's notices show sizes: ``512 B``, ``33.3 KB``,
    ``1.1 MB`` (powers of 1024, as ``agentcore.coding``'s notices and the drivers'
    refusals)."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def describe_part(part: Any) -> str:
    """A content part in one line, never its bytes: ``[image image/png, 1.0 MB]``,
    ``[document "report.pdf" application/pdf, 33.3 KB]``, ``[audio audio/wav, 86.1 KB]``,
    ``[file application/pdf https://...]``; a text part is its text."""
    if isinstance(part, TextContent):
        return part.text
    kind = type(part).type
    title = getattr(part, "title", None)
    named = f' "{title}"' if title else ""
    if isinstance(part, FileContent):
        where = part.url if part.url is not None else f"file id {part.file_id}"
        return f"[{kind}{named} {part.media_type} {where}]"
    return f"[{kind}{named} {part.media_type}, {format_bytes(part.size)}]"


def inline_part(media_type: str, data: str, title: str | None = None) -> ContentPart | None:
    """The part base64 ``data`` of ``media_type`` makes (an image, a document titled
    ``title``, audio), or None for a media type no part takes inline: what a protocol's
    file or binary part (AG-UI, Vercel, MCP) becomes."""
    kind = media_kind(media_type)
    if kind == "image":
        return ImageContent(media_type, data)  # type: ignore[arg-type]
    if kind == "audio":
        return AudioContent(media_type, data)  # type: ignore[arg-type]
    if kind == "document":
        return DocumentContent(media_type, data, title)  # type: ignore[arg-type]
    return None
