"""Value types carried inside events: usage, content blocks and assistant-message parts.

They are frozen and slotted like the events themselves, and ``checked`` like them: a
wrong field type is an ``InvalidEventError`` at construction. Each tagged type has a
``type`` class constant so the wire form can tell the members of a union apart.

The ``to_*`` functions accept the wire dicts (and lists) as well as instances, so
``from_dict`` and hand-written events share one path; they raise ``InvalidEventError``.
The events' fields use them through the ``*_field`` converters, which defer that error to
the event's field check so that the message names the event and the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias, TypeGuard, get_args

import attrs

from .checks import (
    JSONValue,
    NonNegativeInt,
    check_fields,
    check_keys,
    checked,
    deferred,
    is_json,
    shown,
)
from .errors import InvalidEventError
from .media import (
    AudioContent,
    AudioMediaType,
    DocumentContent,
    DocumentMediaType,
    FileContent,
    ImageContent,
    ImageMediaType,
    MediaKind,
    media_kind,
    sniff_media_type,
)
from .provider_tools import PROVIDER_PART_TYPES, ProviderPart
from .records import builder

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = [
    "AudioContent",
    "AudioMediaType",
    "CONTENT_CLASSES",
    "Content",
    "ContentPart",
    "DocumentContent",
    "DocumentMediaType",
    "FileContent",
    "ImageContent",
    "ImageMediaType",
    "JSONValue",
    "MediaContent",
    "MediaKind",
    "Part",
    "TextContent",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "Usage",
    "content_field",
    "is_image_media_type",
    "media_kind",
    "parts_field",
    "sniff_media_type",
    "to_content",
    "to_parts",
    "to_tool_call",
    "to_usage",
    "tool_call_field",
    "usage_field",
]


@frozen
@checked
class Usage:
    """Token counts of one model call (or a sum of several): ints >= 0; missing keys of a
    wire dict mean 0.

    ``image_tokens``, ``audio_tokens`` and ``document_tokens`` say how many of the input
    tokens (``input_tokens`` plus the cache reads and writes) the provider counted for
    images, audio and documents, where it reports them (OpenAI's
    ``prompt_tokens_details``, Gemini's ``promptTokensDetails`` by modality); they are a
    breakdown, never added to the totals, and 0 where the provider says nothing.
    ``cache_write_1h_tokens`` is the part of ``cache_write_tokens`` written with a
    one-hour TTL (Anthropic); the rest was written for five minutes.
    """

    input_tokens: NonNegativeInt = 0
    output_tokens: NonNegativeInt = 0
    cache_read_tokens: NonNegativeInt = 0
    cache_write_tokens: NonNegativeInt = 0
    reasoning_tokens: NonNegativeInt = 0
    image_tokens: NonNegativeInt = 0
    audio_tokens: NonNegativeInt = 0
    document_tokens: NonNegativeInt = 0
    cache_write_1h_tokens: NonNegativeInt = 0

    def __attrs_post_init__(self) -> None:
        # built for every reported usage: exact-type tests first (see checks.py)
        if not (
            type(self.input_tokens) is int
            and self.input_tokens >= 0
            and type(self.output_tokens) is int
            and self.output_tokens >= 0
            and type(self.cache_read_tokens) is int
            and self.cache_read_tokens >= 0
            and type(self.cache_write_tokens) is int
            and self.cache_write_tokens >= 0
            and type(self.reasoning_tokens) is int
            and self.reasoning_tokens >= 0
            and type(self.image_tokens) is int
            and self.image_tokens >= 0
            and type(self.audio_tokens) is int
            and self.audio_tokens >= 0
            and type(self.document_tokens) is int
            and self.document_tokens >= 0
            and type(self.cache_write_1h_tokens) is int
            and self.cache_write_1h_tokens >= 0
        ):
            check_fields(self)

    def __add__(self, other: Usage) -> Usage:
        # two checked counts sum to a count: nothing to check again
        return _build_usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.image_tokens + other.image_tokens,
            self.audio_tokens + other.audio_tokens,
            self.document_tokens + other.document_tokens,
            self.cache_write_1h_tokens + other.cache_write_1h_tokens,
        )

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens (cache reads and writes are part of the input side)."""
        return (
            self.input_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
            + self.output_tokens
        )


ZERO_USAGE = Usage()
_build_usage = builder(Usage)

_USAGE_KEYS = tuple(f.name for f in attrs.fields(Usage))


def to_usage(value: Usage | Mapping[str, int] | None) -> Usage:
    """Accept a ``Usage``, a wire dict with any subset of its keys, or ``None`` (zero).

    Counts are ints >= 0, never converted: ``"12"``, ``12.0``, ``True`` and ``None`` are
    ``InvalidEventError``, as are unknown keys.
    """
    if value is None:
        return ZERO_USAGE
    if type(value) is Usage:
        return value
    if not isinstance(value, Mapping):
        raise InvalidEventError(f"must be a Usage or a mapping of token counts, got {shown(value)}")
    check_keys("usage", value, _USAGE_KEYS, ())
    return Usage(**value)


def usage_field(value: Usage | Mapping[str, int] | None) -> Usage:
    """``to_usage`` as an attrs converter: its error is raised by the owner's field check."""
    return value if type(value) is Usage else deferred(to_usage, value)


# -- content blocks (user messages and tool results) -------------------------------------


def is_image_media_type(value: object) -> TypeGuard[ImageMediaType]:
    """Whether ``value`` is a media type an ``ImageContent`` accepts."""
    return value in _IMAGE_MEDIA_TYPES


_IMAGE_MEDIA_TYPES = frozenset(get_args(ImageMediaType))


@frozen
@checked
class TextContent:
    """A block of plain text sent to the model."""

    type: ClassVar[str] = "text"
    text: str


ContentPart: TypeAlias = TextContent | ImageContent | DocumentContent | AudioContent | FileContent
MediaContent: TypeAlias = ImageContent | DocumentContent | AudioContent | FileContent
"""A content part that is not text (see ``agentcore._core.media``)."""
Content: TypeAlias = str | tuple[ContentPart, ...]
"""A message body: plain text, or an ordered tuple of text and media blocks."""

_CONTENT_TYPES: dict[str, type[ContentPart]] = {
    cls.type: cls for cls in (TextContent, ImageContent, DocumentContent, AudioContent, FileContent)
}
CONTENT_CLASSES = frozenset(_CONTENT_TYPES.values())
"""Every content part class (user messages and tool results take any of them)."""


def to_content(value: Content | Sequence[ContentPart | Mapping[str, Any]]) -> Content:
    """Normalise a message body: a string stays a string, a sequence of blocks (instances
    or wire dicts) becomes a tuple; anything else is an ``InvalidEventError``."""
    if isinstance(value, str):
        return value
    if type(value) is tuple and all(type(p) in CONTENT_CLASSES for p in value):
        return value
    expected = "a str or a sequence of content blocks"
    return _decode_all(value, _CONTENT_TYPES, "content block", expected)


def content_field(value: Content | Sequence[ContentPart | Mapping[str, Any]]) -> Content:
    """``to_content`` as an attrs converter: its error is raised by the owner's field check."""
    return value if type(value) is str else deferred(to_content, value)


# -- assistant message parts ---------------------------------------------------------------


@frozen
@checked
class TextPart:
    """Text the assistant produced."""

    type: ClassVar[str] = "text"
    text: str


@frozen
@checked
class ThinkingPart:
    """Reasoning the assistant produced.

    ``signature`` (Anthropic) must be sent back unchanged for the provider to accept the
    block in a later request; ``redacted_data`` holds an encrypted block whose text the
    provider withheld. A part from another provider (no signature) is replayed as text.
    """

    type: ClassVar[str] = "thinking"
    text: str
    signature: str | None = None
    redacted_data: str | None = None


@frozen
@checked
class ToolCallPart:
    """A tool call the assistant requested.

    ``input`` is the parsed JSON object; when the streamed JSON was not a valid object,
    ``input`` is empty and ``input_error`` says why, so the loop can report it to the
    model instead of running the tool with made-up arguments. ``raw_input`` keeps what
    the model actually sent.
    """

    type: ClassVar[str] = "tool_call"
    tool_call_id: str
    tool_name: str
    input: Mapping[str, JSONValue] = attrs.field(factory=dict)
    raw_input: str = ""
    input_error: str | None = None

    def __attrs_post_init__(self) -> None:
        # built for every tool call: exact-type tests first (see checks.py)
        if not (
            type(self.tool_call_id) is str
            and type(self.tool_name) is str
            and type(self.input) is dict
            and type(self.raw_input) is str
            and (self.input_error is None or type(self.input_error) is str)
            and is_json(self.input)
        ):
            check_fields(self)


Part: TypeAlias = TextPart | ThinkingPart | ToolCallPart | ProviderPart

_PART_TYPES: dict[str, type[Part]] = {
    "text": TextPart,
    "thinking": ThinkingPart,
    "tool_call": ToolCallPart,
    **PROVIDER_PART_TYPES,  # provider-side tools' calls, results, citations
}
_PART_CLASSES = frozenset(_PART_TYPES.values())


def to_parts(value: Sequence[Part | Mapping[str, Any]]) -> tuple[Part, ...]:
    """Normalise assistant-message parts given as instances or wire dicts, in a sequence;
    anything else is an ``InvalidEventError``."""
    if type(value) is tuple and all(type(p) in _PART_CLASSES for p in value):
        return value
    return _decode_all(value, _PART_TYPES, "part", "a sequence of parts")


def parts_field(value: Sequence[Part | Mapping[str, Any]]) -> tuple[Part, ...]:
    """``to_parts`` as an attrs converter: its error is raised by the owner's field check."""
    return deferred(to_parts, value)


_TOOL_CALL_TYPES: dict[str, type[Part]] = {"tool_call": ToolCallPart}


def to_tool_call(value: ToolCallPart | Mapping[str, Any]) -> ToolCallPart:
    """Accept a ``ToolCallPart`` or its wire dict; anything else is an
    ``InvalidEventError``."""
    if type(value) is ToolCallPart:
        return value
    return _decode(value, _TOOL_CALL_TYPES, "tool call")  # type: ignore[no-any-return]


def tool_call_field(value: ToolCallPart | Mapping[str, Any]) -> ToolCallPart:
    """``to_tool_call`` as an attrs converter: its error is raised by the owner's check."""
    return value if type(value) is ToolCallPart else deferred(to_tool_call, value)


def _decode_all(
    value: Any, types: Mapping[str, type[Any]], what: str, expected: str
) -> tuple[Any, ...]:
    if isinstance(value, str | bytes | bytearray | Mapping) or not isinstance(value, Sequence):
        raise InvalidEventError(f"must be {expected}, got {shown(value)}")
    decoded = []
    for i, item in enumerate(value):
        try:
            decoded.append(_decode(item, types, what))
        except InvalidEventError as exc:
            raise InvalidEventError(f"has a bad {what} {i}: {exc.message}") from None
    return tuple(decoded)


def _decode(value: Any, types: Mapping[str, type[Any]], what: str) -> Any:
    """An instance of one of ``types``, or one built from its wire dict."""
    if type(value) in types.values():
        return value
    if not isinstance(value, Mapping):
        expected = " or ".join(c.__name__ for c in types.values())
        raise InvalidEventError(f"must be a {expected} or its wire dict, got {shown(value)}")
    tag = value.get("type")
    expected = ", ".join(sorted(types))
    if type(tag) is not str:
        raise InvalidEventError(f"needs a 'type' string ({expected}), got {shown(tag)}")
    cls = types.get(tag)
    if cls is None:
        raise InvalidEventError(f"has unknown type {tag!r}; expected one of {expected}")
    fields = {k: v for k, v in value.items() if k != "type"}
    attributes = attrs.fields(cls)
    check_keys(
        f"{what} of type {tag!r}",
        fields,
        tuple(a.name for a in attributes),
        tuple(a.name for a in attributes if a.default is attrs.NOTHING),
    )
    return cls(**fields)
