"""Content parts in a Gemini request: ``inlineData`` and ``fileData`` parts.

What the API takes (``MEDIA``, from Google's image, document, audio and file input
method pages): images (png, jpeg, gif, webp), documents (PDF, plain text) and audio (wav,
mp3, aac, ogg, flac, aiff) inline as ``inlineData``, or by URI as ``fileData`` (a Files
API URI, a ``gs://`` object, an HTTPS or signed URL), where any other media (a video) may
come too. Gemini has no file ids apart from those URIs: give the file's URI as a URL.
A ``functionResponse`` holds text, so the media a tool returned follow the run of results
(see ``drivers.google.request``). Limits: inline data at most 100 MB base64-encoded per
request (75 MB decoded), a PDF at most 50 MB, at most 3,600 images per request.
"""

from __future__ import annotations

from typing import Any

from agentcore.events import FileContent, TextContent

from .._common.content import IMAGE_TYPES, MB, MediaSupport

__all__ = ["MEDIA", "content_part"]

JSON = dict[str, Any]

_DOCUMENTS = frozenset({"application/pdf", "text/plain"})
_AUDIO = frozenset(
    {"audio/wav", "audio/mpeg", "audio/aac", "audio/ogg", "audio/flac", "audio/aiff"}
)
_MIME_TYPES = {"audio/mpeg": "audio/mp3"}
"""Media types Google names otherwise (its audio page lists ``audio/mp3``)."""

MEDIA = MediaSupport(
    api="Gemini",
    provider="google",
    takes={
        "image": {"bytes": IMAGE_TYPES, "url": IMAGE_TYPES},
        "document": {"bytes": _DOCUMENTS, "url": _DOCUMENTS},
        "audio": {"bytes": _AUDIO, "url": _AUDIO},
        "file": {"url": None},
    },
    max_bytes={"document": 50 * MB},
    max_parts={"image": 3600},
    max_request_bytes=100 * MB * 3 // 4,
)


def content_part(block: Any) -> JSON:
    """One part of a ``user`` content (``check_media`` ran first)."""
    if type(block) is TextContent:
        return {"text": block.text}
    mime_type = _MIME_TYPES.get(block.media_type, block.media_type)
    if type(block) is FileContent:
        return {"fileData": {"mimeType": mime_type, "fileUri": block.url}}
    return {"inlineData": {"mimeType": mime_type, "data": block.data}}
