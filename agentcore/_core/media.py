"""Media content parts: images, documents and audio given inline, and files by reference.

Each part is frozen, slotted and ``checked`` like the other content blocks, and has a
wire form (``{"type": "image" | "document" | "audio" | "file", ...}``). Inline media keep
their bytes base64-encoded in ``data`` (the wire form is JSON); ``from_bytes`` builds one
from raw bytes, recognising the media type by the first bytes when it is not given
(``sniff_media_type``). A ``FileContent`` points at media the provider fetches itself: a
URL, or the id of a file uploaded to one provider's file store.

The core checks only what is true for every provider: the media type belongs to the
part's kind, a file reference has exactly one of ``url`` and ``file_id``, citations are
asked for on documents only. What a provider accepts (kinds, sources, sizes, counts) is
data in its driver (``drivers._common.content``), which refuses a part before sending.
Reading a file from a path is I/O and lives outside the core: ``agentcore.load_media``.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias, get_args

import attrs

from .checks import checked, shown
from .errors import InvalidEventError

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = [
    "AudioContent",
    "AudioMediaType",
    "DocumentContent",
    "DocumentMediaType",
    "FileContent",
    "ImageContent",
    "ImageMediaType",
    "MediaKind",
    "media_kind",
    "sniff_media_type",
]

ImageMediaType: TypeAlias = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
DocumentMediaType: TypeAlias = Literal["application/pdf", "text/plain"]
AudioMediaType: TypeAlias = Literal[
    "audio/wav", "audio/mpeg", "audio/aac", "audio/ogg", "audio/flac", "audio/aiff"
]
MediaKind: TypeAlias = Literal["image", "document", "audio", "file"]
"""What a part is to a provider; ``file`` is any other media type (a file reference)."""

_KINDS: dict[str, MediaKind] = {
    **dict.fromkeys(get_args(ImageMediaType), "image"),
    **dict.fromkeys(get_args(DocumentMediaType), "document"),
    **dict.fromkeys(get_args(AudioMediaType), "audio"),
}


def media_kind(media_type: str) -> MediaKind:
    """``image``, ``document`` or ``audio`` for a media type an inline part takes, else
    ``file``."""
    return _KINDS.get(media_type, "file")


_MAGIC: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (8, b"WEBP", "image/webp"),
    (0, b"%PDF-", "application/pdf"),
    (8, b"WAVE", "audio/wav"),
    (8, b"AIFF", "audio/aiff"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"\xff\xfb", "audio/mpeg"),
    (0, b"\xff\xf3", "audio/mpeg"),
    (0, b"\xff\xf2", "audio/mpeg"),
    (0, b"fLaC", "audio/flac"),
    (0, b"OggS", "audio/ogg"),
    (0, b"\xff\xf1", "audio/aac"),
    (0, b"\xff\xf9", "audio/aac"),
)


def sniff_media_type(data: bytes) -> str | None:
    """The media type ``data`` starts like (png, jpeg, gif, webp, pdf, wav, aiff, mp3, flac,
    ogg, aac), or None. RIFF and FORM containers are told apart by their form type."""
    for offset, magic, media_type in _MAGIC:
        if data[offset : offset + len(magic)] == magic:
            if offset == 8 and data[:4] not in (b"RIFF", b"FORM"):
                continue
            return media_type
    return None


def _encoded(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _media_type_for(data: bytes, media_type: str | None, cls: type[Any], kind: str) -> str:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InvalidEventError(f"{cls.__name__}.from_bytes: data must be bytes, got {shown(data)}")
    if media_type is not None:
        return media_type
    found = sniff_media_type(bytes(data[:16]))
    if found is None or media_kind(found) != kind:
        raise InvalidEventError(
            f"{cls.__name__}.from_bytes: cannot tell the media type of these bytes "
            f"({'unrecognised' if found is None else found}); pass media_type= (one of "
            f"{', '.join(k for k, v in _KINDS.items() if v == kind)})"
        )
    return found


class _Inline:
    """What inline parts share: the decoded bytes and their size, without decoding."""

    __slots__ = ()
    data: str

    @property
    def size(self) -> int:
        """The number of bytes ``data`` encodes (computed from its length)."""
        data = self.data
        return len(data) * 3 // 4 - (data[-2:].count("=") if data else 0)

    def to_bytes(self) -> bytes:
        """The decoded bytes; ``InvalidEventError`` when ``data`` is not base64."""
        try:
            return base64.b64decode(self.data, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidEventError(
                f"{type(self).__name__}: field 'data' is not valid base64"
            ) from None


@frozen
@checked
class ImageContent(_Inline):
    """An inline image, base64-encoded; ``media_type`` is one of png, jpeg, gif, webp."""

    type: ClassVar[str] = "image"
    media_type: ImageMediaType
    data: str

    @classmethod
    def from_bytes(cls, data: bytes, media_type: ImageMediaType | None = None) -> ImageContent:
        """The image ``data``; its media type is recognised when not given."""
        kind = _media_type_for(data, media_type, cls, "image")
        return cls(kind, _encoded(data))  # type: ignore[arg-type]


@frozen
@checked
class DocumentContent(_Inline):
    """An inline document, base64-encoded: a PDF or plain text (UTF-8).

    ``title`` names it to the model (and is its file name where a provider wants one);
    ``citations`` asks providers that can (Anthropic) to cite passages of it.
    """

    type: ClassVar[str] = "document"
    media_type: DocumentMediaType
    data: str
    title: str | None = None
    citations: bool = False

    @classmethod
    def from_bytes(
        cls,
        data: bytes,
        media_type: DocumentMediaType | None = None,
        *,
        title: str | None = None,
        citations: bool = False,
    ) -> DocumentContent:
        """The document ``data``; a PDF is recognised when ``media_type`` is not given."""
        kind = _media_type_for(data, media_type, cls, "document")
        return cls(kind, _encoded(data), title, citations)  # type: ignore[arg-type]

    @classmethod
    def from_text(
        cls, text: str, *, title: str | None = None, citations: bool = False
    ) -> DocumentContent:
        """A plain-text document holding ``text``."""
        if not isinstance(text, str):
            raise InvalidEventError(f"DocumentContent.from_text: text must be a str, got {text!r}")
        return cls("text/plain", _encoded(text.encode()), title, citations)

    @property
    def text(self) -> str:
        """The text of a ``text/plain`` document; ``InvalidEventError`` for a PDF."""
        if self.media_type != "text/plain":
            raise InvalidEventError(f"DocumentContent: a {self.media_type} document has no text")
        return self.to_bytes().decode("utf-8", errors="replace")


@frozen
@checked
class AudioContent(_Inline):
    """An inline audio clip, base64-encoded (wav, mp3, aac, ogg, flac or aiff)."""

    type: ClassVar[str] = "audio"
    media_type: AudioMediaType
    data: str

    @classmethod
    def from_bytes(cls, data: bytes, media_type: AudioMediaType | None = None) -> AudioContent:
        """The clip ``data``; its media type is recognised when not given."""
        kind = _media_type_for(data, media_type, cls, "audio")
        return cls(kind, _encoded(data))  # type: ignore[arg-type]


def _check_reference(instance: FileContent, attribute: Any, value: Any) -> None:
    """The cross-field rules of a file reference (the field types are checked after)."""
    if (instance.url is None) == (instance.file_id is None):
        raise InvalidEventError("FileContent (file): give exactly one of url and file_id")
    media_type = instance.media_type
    if isinstance(media_type, str) and "/" not in media_type.strip("/"):
        raise InvalidEventError(
            f"FileContent (file): field 'media_type' must look like 'type/subtype', got "
            f"{media_type!r}"
        )
    if (
        instance.citations is True
        and type(media_type) is str
        and media_kind(media_type) != "document"
    ):
        raise InvalidEventError(
            f"FileContent (file): citations are for documents (application/pdf, text/plain), "
            f"not {media_type!r}"
        )


@frozen
@checked
class FileContent:
    """Media the provider fetches itself: by ``url`` or by ``file_id`` (exactly one).

    ``media_type`` says what it is (``image/png``, ``application/pdf``, ``audio/wav``...):
    providers send images, documents and audio as different blocks. ``provider`` names
    whose file store a ``file_id`` belongs to (``anthropic``, ``openai``, ``google``);
    another provider's driver refuses it instead of sending an id it cannot resolve.
    ``title`` and ``citations`` are as on ``DocumentContent``.
    """

    type: ClassVar[str] = "file"
    media_type: str
    url: str | None = None
    file_id: str | None = None
    provider: str | None = None
    title: str | None = None
    citations: bool = attrs.field(default=False, validator=_check_reference)

    @property
    def kind(self) -> MediaKind:
        """``image``, ``document``, ``audio`` or ``file`` by the media type."""
        return media_kind(self.media_type)

    @classmethod
    def from_url(
        cls,
        url: str,
        media_type: str,
        *,
        title: str | None = None,
        citations: bool = False,
    ) -> FileContent:
        """Media at ``url`` (``https://``, or a provider's own URI such as ``gs://``)."""
        return cls(media_type, url=url, title=title, citations=citations)

    @classmethod
    def from_file_id(
        cls,
        file_id: str,
        media_type: str,
        *,
        provider: str | None = None,
        title: str | None = None,
        citations: bool = False,
    ) -> FileContent:
        """A file uploaded to ``provider``'s file store, by the id it returned."""
        return cls(media_type, file_id=file_id, provider=provider, title=title, citations=citations)
