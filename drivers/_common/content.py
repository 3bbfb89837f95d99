"""What a provider takes of the media content parts, as data, and the check every driver runs.

Each vendor's ``content`` module holds one ``MediaSupport``: which kinds of part its API
takes (image, document, audio, or another ``file`` by reference), given how (inline
bytes, a URL, a provider file id), in which media types, how large and how many, and
which models take a kind at all. ``check_media`` holds a request to it before the driver
builds a body, so a part the provider would reject is an ``UnsupportedContentError`` that
names the part, the model and what the API takes, and nothing is sent. Mapping the parts
to the vendor's blocks stays in the vendor's module; the helpers here are what every
mapping needs (a ``data:`` URL, a plain-text document as text).

Sizes are the decoded bytes of inline parts (``size``); a URL or file id is fetched by
the provider and not measured here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, TypeAlias

import attrs

from agentcore.errors import UnsupportedContentError
from agentcore.events import (
    AudioContent,
    ContentPart,
    DocumentContent,
    FileContent,
    ImageContent,
    MediaContent,
    TextContent,
    ToolResultMessage,
    UserMessage,
)

__all__ = [
    "IMAGE_TYPES",
    "MB",
    "OPENAI_AUDIO_FORMATS",
    "MediaSupport",
    "Source",
    "check_media",
    "data_url",
    "document_text",
    "media_parts",
    "openai_input_audio",
    "source_of",
]

Source: TypeAlias = Literal["bytes", "url", "file_id"]
_SOURCE_NAMES: Mapping[Source, str] = {"bytes": "inline", "url": "URL", "file_id": "file id"}
_KIND_NAMES = {"image": "images", "document": "documents", "audio": "audio", "file": "other files"}
MB = 1024 * 1024


@attrs.frozen
class MediaSupport:
    """What one provider API takes, from its documentation (each driver's ``MEDIA``).

    ``takes`` maps a kind (``image``, ``document``, ``audio``, ``file``) to the sources it
    may come from and, per source, the media types accepted (``None``: any). Kinds and
    sources not listed are refused. ``tool_results`` lists the kinds a tool result may
    hold (``None``: as in user messages). ``models`` maps a kind to substrings one of
    which the model id must contain (OpenAI's audio input is for its audio models).
    ``max_bytes`` bounds one inline part by kind; ``max_parts`` the parts of a kind in one
    request; ``max_request_bytes`` all inline media of one request. ``provider`` is the
    name a ``FileContent.provider`` must have for its ``file_id`` to be sent.
    """

    api: str
    provider: str
    takes: Mapping[str, Mapping[Source, frozenset[str] | None]]
    tool_results: frozenset[str] | None = None
    models: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    max_bytes: Mapping[str, int] = attrs.field(factory=dict)
    max_parts: Mapping[str, int] = attrs.field(factory=dict)
    max_request_bytes: int | None = None

    def describe(self) -> str:
        """What the API takes, for error messages: kinds, media types and sources."""
        out = []
        for kind, sources in self.takes.items():
            by_types: dict[str, list[str]] = {}
            for source, types in sources.items():
                label = "any type" if types is None else ", ".join(sorted(types))
                by_types.setdefault(label, []).append(_SOURCE_NAMES[source])
            ways = "; ".join(f"{t}: {', '.join(s)}" for t, s in by_types.items())
            out.append(f"{_KIND_NAMES[kind]} ({ways})")
        return ", ".join(out) if out else "text only"


def source_of(part: ImageContent | DocumentContent | AudioContent | FileContent) -> Source:
    """How a media part is given: inline bytes, a URL or a provider file id."""
    if type(part) is FileContent:
        return "url" if part.url is not None else "file_id"
    return "bytes"


IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""The image media types every provider here takes."""

OPENAI_AUDIO_FORMATS = {"audio/wav": "wav", "audio/mpeg": "mp3"}
"""The ``input_audio.format`` of each audio media type OpenAI's two APIs take."""


def openai_input_audio(part: AudioContent) -> dict[str, Any]:
    """An ``input_audio`` part, the same in Chat Completions and Responses."""
    audio = {"data": part.data, "format": OPENAI_AUDIO_FORMATS[part.media_type]}
    return {"type": "input_audio", "input_audio": audio}


def data_url(part: ImageContent | DocumentContent | AudioContent) -> str:
    """``data:<media type>;base64,<data>``, the inline form OpenAI's APIs take."""
    return f"data:{part.media_type};base64,{part.data}"


def document_text(part: DocumentContent) -> str:
    """A plain-text document as text, for APIs without plain-text documents: its title
    on a first line, then the text."""
    return part.text if part.title is None else f"[Document: {part.title}]\n{part.text}"


def _kind(part: ContentPart) -> str:
    if type(part) is FileContent:
        return part.kind
    return part.type


def _described(part: MediaContent) -> str:
    kind = _kind(part)
    if isinstance(part, FileContent):
        where = f"URL {part.url}" if part.url is not None else f"file id {part.file_id!r}"
        return f"{kind} ({part.media_type}, {where})"
    return f"{kind} ({part.media_type}, {_size(part.size)} inline)"


def _size(size: int) -> str:
    if size >= MB:
        return f"{size / MB:.1f} MB"
    if size >= 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size} bytes"


def media_parts(messages: Iterable[Any]) -> Iterator[tuple[str, bool, int, MediaContent]]:
    """``(where, in a tool result, index, part)`` for every media part of the history."""
    for position, message in enumerate(messages, 1):
        if type(message) is UserMessage:
            where, content, in_tool = f"message {position} (user)", message.content, False
        elif type(message) is ToolResultMessage:
            where = f"message {position} (result of tool {message.tool_name!r})"
            content, in_tool = message.result, True
        else:
            continue
        if isinstance(content, str):
            continue
        for index, part in enumerate(content, 1):
            if not isinstance(part, TextContent):
                yield where, in_tool, index, part


def check_media(messages: Sequence[Any], support: MediaSupport, model: str) -> None:
    """Raise ``UnsupportedContentError`` for the first media part of ``messages`` that
    ``support`` does not allow for ``model``, or when the request exceeds a count or size;
    the message names the part, the model and what the API takes."""
    counts: dict[str, int] = {}
    total = 0
    for where, in_tool, index, part in media_parts(messages):
        kind = _kind(part)
        source = source_of(part)
        name = f"{where}, part {index}: {_described(part)}"
        problem = _problem(support, model, kind, source, part, in_tool)
        if problem is not None:
            raise UnsupportedContentError(
                f"{support.api} (model {model!r}) does not take {name}: {problem}; "
                f"it takes {support.describe()}"
            )
        counts[kind] = counts.get(kind, 0) + 1
        limit = support.max_parts.get(kind)
        if limit is not None and counts[kind] > limit:
            raise UnsupportedContentError(
                f"{support.api} (model {model!r}) takes at most {limit} {_KIND_NAMES[kind]} "
                f"per request; {name} is number {counts[kind]}"
            )
        if not isinstance(part, FileContent):
            total += part.size
    if support.max_request_bytes is not None and total > support.max_request_bytes:
        raise UnsupportedContentError(
            f"{support.api} (model {model!r}) takes at most "
            f"{_size(support.max_request_bytes)} of inline media per request; this request "
            f"has {_size(total)} (send large media by URL or file id)"
        )


def _problem(
    support: MediaSupport, model: str, kind: str, source: Source, part: Any, in_tool: bool
) -> str | None:
    sources = support.takes.get(kind)
    if sources is None:
        return f"it takes no {_KIND_NAMES[kind]}"
    if in_tool and support.tool_results is not None and kind not in support.tool_results:
        return f"a tool result cannot hold {_KIND_NAMES[kind]}"
    markers = support.models.get(kind)
    if markers is not None and not any(m in model for m in markers):
        return f"only models named with {' or '.join(map(repr, markers))} take {kind}"
    if source not in sources:
        given = ", ".join(_SOURCE_NAMES[s] for s in sources)
        return f"{_KIND_NAMES[kind]} are taken {given}, not by {_SOURCE_NAMES[source]}"
    types = sources[source]
    if types is not None and part.media_type not in types:
        return f"{_KIND_NAMES[kind]} by {_SOURCE_NAMES[source]} must be {', '.join(sorted(types))}"
    if source == "file_id" and part.provider not in (None, support.provider):
        return f"the file id belongs to {part.provider!r}, not {support.provider!r}"
    limit = support.max_bytes.get(kind)
    if limit is not None and source == "bytes" and part.size > limit:
        return f"{_KIND_NAMES[kind]} may be at most {_size(limit)} each"
    return None
