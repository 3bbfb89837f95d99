"""Content parts in a Chat Completions request: ``image_url``, ``input_audio`` and ``file``.

What the API takes (``MEDIA``, from OpenAI's images, PDF files and audio guides): images
(png, jpeg, gif, webp) inline as a ``data:`` URL or by URL; PDFs inline (``file_data``, a
``data:`` URL, with a ``filename``) or by file id; audio (wav, mp3) inline, on the audio
models only (``gpt-4o-audio-preview``, ``gpt-audio``...). A plain-text document is sent as
text. Tool messages take text only, so the media a tool returned go into one user message
after the run of tool messages (see ``drivers.openai.request``). Limits: at most 500
images and 50 MB of payload per request, PDFs at most 32 MB.
"""

from __future__ import annotations

from typing import Any

import attrs

from agentcore.events import (
    AudioContent,
    Content,
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

__all__ = ["MEDIA", "compatible_media", "content_part", "is_text", "user_content"]

JSON = dict[str, Any]


MEDIA = MediaSupport(
    api="OpenAI Chat Completions",
    provider="openai",
    takes={
        "image": {"bytes": IMAGE_TYPES, "url": IMAGE_TYPES},
        "document": {
            "bytes": frozenset({"application/pdf", "text/plain"}),
            "file_id": frozenset({"application/pdf"}),
        },
        "audio": {"bytes": frozenset(OPENAI_AUDIO_FORMATS)},
    },
    models={"audio": ("audio",)},
    max_bytes={"document": 32 * MB},
    max_parts={"image": 500},
    max_request_bytes=50 * MB,
)


def compatible_media(provider: str) -> MediaSupport:
    """What an OpenAI-compatible server named ``provider`` is assumed to take: the same
    parts as OpenAI, audio on any model, its own file ids, none of OpenAI's limits (each
    server has its own; it answers for itself)."""
    return attrs.evolve(
        MEDIA,
        api=f"OpenAI-compatible server {provider!r}",
        provider=provider,
        models={},
        max_bytes={},
        max_parts={},
        max_request_bytes=None,
    )


def is_text(part: Any) -> bool:
    """Whether ``part`` is sent as text (text, or a plain-text document)."""
    return type(part) is TextContent or (
        type(part) is DocumentContent and part.media_type == "text/plain"
    )


def user_content(content: Content) -> str | list[JSON]:
    """A user message's content: a string when every part is text (every compatible
    server takes that), else content parts."""
    if isinstance(content, str):
        return content
    if all(is_text(p) for p in content):
        return "\n".join(content_part(p)["text"] for p in content)
    return [content_part(p) for p in content]


def content_part(part: Any) -> JSON:
    """One content part (``check_media`` ran first)."""
    if type(part) is TextContent:
        return {"type": "text", "text": part.text}
    if type(part) is ImageContent:
        return {"type": "image_url", "image_url": {"url": data_url(part)}}
    if type(part) is AudioContent:
        return openai_input_audio(part)
    if type(part) is DocumentContent:
        if part.media_type == "text/plain":
            return {"type": "text", "text": document_text(part)}
        file = {"filename": part.title or "document.pdf", "file_data": data_url(part)}
        return {"type": "file", "file": file}
    assert type(part) is FileContent
    if part.url is not None:
        return {"type": "image_url", "image_url": {"url": part.url}}
    return {"type": "file", "file": {"file_id": part.file_id}}
