"""Which content parts carry binary data: the fact the journal's blob store and the
secrets scrubber share (one owner; the parts themselves are in ``media``).

A content part whose class has a ``data`` field holds base64-encoded bytes in it (an
image today; documents and audio too). Those bytes are never scrubbed (a base64 run can
look like an API key: ``AIza`` and 35 more letters) and are stored beside a journal,
once, instead of in its lines.
"""

from __future__ import annotations

from typing import Any

import attrs

from .content import CONTENT_CLASSES

__all__ = ["MEDIA_CLASSES", "MEDIA_TAGS", "is_media_wire"]

MEDIA_CLASSES: frozenset[type[Any]] = frozenset(
    cls for cls in CONTENT_CLASSES if "data" in {f.name for f in attrs.fields(cls)}
)
"""Content-part classes whose ``data`` field holds base64 bytes."""

MEDIA_TAGS: frozenset[str] = frozenset(cls.type for cls in MEDIA_CLASSES)
"""Their wire tags (``"image"``, ...)."""


def is_media_wire(value: dict[str, Any]) -> bool:
    """Whether the wire dict ``value`` is a content part of one of ``MEDIA_TAGS``."""
    return value.get("type") in MEDIA_TAGS
