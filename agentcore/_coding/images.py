"""Images and PDFs read by the coding tools: recognised by their magic bytes; images
shrunk to fit, PDFs handed to the model as documents.

Pillow (the ``coding`` extra) does the resizing; without it images are passed through at
their size and the result says so.
"""

from __future__ import annotations

import asyncio
import base64
import io
from typing import Any

from .._core.content import DocumentContent, ImageContent, ImageMediaType

__all__ = ["MAX_IMAGE_SIDE", "image_media_type", "is_pdf", "to_image_content", "to_pdf_content"]

MAX_IMAGE_SIDE = 2000

_FORMATS: dict[ImageMediaType, str] = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WEBP",
}


def image_media_type(data: bytes) -> ImageMediaType | None:
    """``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp`` by the file's first
    bytes, or None for anything else (whatever its name says)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


async def to_image_content(
    data: bytes, media_type: ImageMediaType, *, resize: bool = True, max_side: int = MAX_IMAGE_SIDE
) -> tuple[ImageContent, dict[str, Any]]:
    """The image as content, scaled down (aspect kept) to fit ``max_side`` square when
    ``resize``; and details: original and sent size, whether it was resized."""
    details: dict[str, Any] = {"media_type": media_type, "bytes": len(data), "resized": False}
    if resize:
        try:
            data, details = await asyncio.to_thread(_fit, data, media_type, max_side, details)
        except ImportError:
            details["note"] = "not resized: Pillow is not installed (agentcore[coding])"
    return ImageContent(media_type, base64.b64encode(data).decode("ascii")), details


def _fit(
    data: bytes, media_type: ImageMediaType, max_side: int, details: dict[str, Any]
) -> tuple[bytes, dict[str, Any]]:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        width, height = image.size
        details = {**details, "width": width, "height": height}
        if max(width, height) <= max_side:
            return data, details
        scale = max_side / max(width, height)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        resized = image.resize(size, Image.Resampling.LANCZOS)
        fmt = _FORMATS[media_type]
        if fmt == "JPEG" and resized.mode not in ("RGB", "L"):
            resized = resized.convert("RGB")
        out = io.BytesIO()
        resized.save(out, format=fmt)
    sent = out.getvalue()
    return sent, {**details, "resized": True, "sent_width": size[0], "sent_height": size[1]}


def is_pdf(data: bytes) -> bool:
    """Whether the file's first bytes are a PDF's (``%PDF-``), whatever its name says."""
    return data.startswith(b"%PDF-")


def to_pdf_content(data: bytes, title: str) -> tuple[DocumentContent, dict[str, Any]]:
    """The PDF as a document named ``title`` (the model reads its pages: text and images,
    where the provider takes PDFs); and details: its media type and size."""
    document = DocumentContent.from_bytes(data, "application/pdf", title=title)
    return document, {"media_type": "application/pdf", "bytes": len(data)}
