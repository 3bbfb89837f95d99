"""Content parts in an Anthropic Messages request: ``image`` and ``document`` blocks.

What the API takes (``MEDIA``, from Anthropic's vision, PDF support, citations and Files
API pages): images (png, jpeg, gif, webp) inline, by URL or by file id; documents: PDFs
inline, by URL or by file id, plain text inline (a ``text`` source) or by file id; no
audio. A document carries its ``title``, and ``citations: {"enabled": true}`` when it asks
for citations. Tool results take the same blocks. A file id needs the Files API beta
header (``FILES_BETA``). Limits: an image's base64 at most 5 MB, at most 100 images per
request, the whole request at most 32 MB (so inline media at most 24 MB decoded).
"""

from __future__ import annotations

from typing import Any

from agentcore.events import (
    Content,
    DocumentContent,
    FileContent,
    ImageContent,
    TextContent,
)

from .._common.content import IMAGE_TYPES, MB, MediaSupport, media_parts

__all__ = ["FILES_BETA", "MEDIA", "content_blocks", "uses_file_ids"]

JSON = dict[str, Any]

FILES_BETA = "files-api-2025-04-14"
"""The ``anthropic-beta`` value a request that refers to an uploaded file needs."""

_PDF = frozenset({"application/pdf"})
_DOCUMENTS = frozenset({"application/pdf", "text/plain"})

MEDIA = MediaSupport(
    api="Anthropic Messages",
    provider="anthropic",
    takes={
        "image": {"bytes": IMAGE_TYPES, "url": IMAGE_TYPES, "file_id": IMAGE_TYPES},
        "document": {"bytes": _DOCUMENTS, "url": _PDF, "file_id": _DOCUMENTS},
    },
    max_bytes={"image": 5 * MB * 3 // 4},
    max_parts={"image": 100},
    max_request_bytes=32 * MB * 3 // 4,
)


def content_blocks(content: Content) -> str | list[JSON]:
    """A user message's or tool result's content: a string stays one; parts become
    ``text``, ``image`` and ``document`` blocks (``check_media`` ran first)."""
    if isinstance(content, str):
        return content
    return [_block(part) for part in content]


def uses_file_ids(messages: Any) -> bool:
    """Whether any content part of ``messages`` refers to a file by id."""
    return any(
        type(part) is FileContent and part.file_id is not None for *_, part in media_parts(messages)
    )


def _block(part: Any) -> JSON:
    source: JSON
    if type(part) is TextContent:
        return {"type": "text", "text": part.text}
    if type(part) is ImageContent:
        source = {"type": "base64", "media_type": part.media_type, "data": part.data}
        return {"type": "image", "source": source}
    if type(part) is DocumentContent:
        if part.media_type == "text/plain":
            source = {"type": "text", "media_type": "text/plain", "data": part.text}
        else:
            source = {"type": "base64", "media_type": part.media_type, "data": part.data}
        return _document(source, part.title, part.citations)
    assert type(part) is FileContent  # check_media refused audio
    if part.url is not None:
        source = {"type": "url", "url": part.url}
    else:
        source = {"type": "file", "file_id": part.file_id}
    if part.kind == "image":
        return {"type": "image", "source": source}
    return _document(source, part.title, part.citations)


def _document(source: JSON, title: str | None, citations: bool) -> JSON:
    block: JSON = {"type": "document", "source": source}
    if title is not None:
        block["title"] = title
    if citations:
        block["citations"] = {"enabled": True}
    return block
