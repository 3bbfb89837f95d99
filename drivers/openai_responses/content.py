"""Content parts in a Responses API request: ``input_image``, ``input_file``, ``input_audio``.

What the API takes (``MEDIA``, from OpenAI's images, file inputs and audio guides):
images (png, jpeg, gif, webp) inline as a ``data:`` URL, by URL or by file id; PDFs
inline (``file_data``, a ``data:`` URL, with a ``filename``), by URL (``file_url``) or by
file id; audio (wav, mp3) inline. A plain-text document is sent as ``input_text``. A
function call's output takes text, images and files, not audio. Limits as on Chat
Completions: at most 500 images and 50 MB of payload per request, PDFs at most 32 MB.
"""

from __future__ import annotations

from typing import Any

from agentcore.events import (
    AudioContent,
    DocumentContent,
    FileContent,
    ImageContent,
    TextContent,
)

from .._common.content import (
    IMAGE_TYPES,
    MB,
    OPENAI_AUDIO_FORMATS,
    MediaSupport,
    data_url,
    document_text,
    openai_input_audio,
)

__all__ = ["MEDIA", "input_part"]

JSON = dict[str, Any]

_PDF = frozenset({"application/pdf"})

MEDIA = MediaSupport(
    api="OpenAI Responses",
    provider="openai",
    takes={
        "image": {"bytes": IMAGE_TYPES, "url": IMAGE_TYPES, "file_id": IMAGE_TYPES},
        "document": {
            "bytes": frozenset({"application/pdf", "text/plain"}),
            "url": _PDF,
            "file_id": _PDF,
        },
        "audio": {"bytes": frozenset(OPENAI_AUDIO_FORMATS)},
    },
    tool_results=frozenset({"image", "document"}),
    max_bytes={"document": 32 * MB},
    max_parts={"image": 500},
    max_request_bytes=50 * MB,
)


def input_part(part: Any) -> JSON:
    """One input content part (``check_media`` ran first)."""
    if type(part) is TextContent:
        return {"type": "input_text", "text": part.text}
    if type(part) is ImageContent:
        return {"type": "input_image", "image_url": data_url(part), "detail": "auto"}
    if type(part) is AudioContent:
        return openai_input_audio(part)
    if type(part) is DocumentContent:
        if part.media_type == "text/plain":
            return {"type": "input_text", "text": document_text(part)}
        name = part.title or "document.pdf"
        return {"type": "input_file", "filename": name, "file_data": data_url(part)}
    assert type(part) is FileContent
    if part.kind == "image":
        where = {"image_url": part.url} if part.url is not None else {"file_id": part.file_id}
        return {"type": "input_image", **where, "detail": "auto"}
    where = {"file_url": part.url} if part.url is not None else {"file_id": part.file_id}
    return {"type": "input_file", **where}
