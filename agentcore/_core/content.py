"""Value types carried inside events: usage, content blocks and assistant-message parts.

They are frozen and slotted like the events themselves. Each tagged type has a ``type``
class constant so the wire form can tell the members of a union apart; converters accept
the wire dicts as well as instances, so ``from_dict`` and hand-written events share one path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, TypeAlias

import attrs

__all__ = [
    "Content",
    "ContentPart",
    "ImageContent",
    "JSONValue",
    "Part",
    "TextContent",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "Usage",
    "to_content",
    "to_parts",
    "to_usage",
]

JSONValue: TypeAlias = Any
"""Anything ``json.dumps`` accepts; kept as ``Any`` because JSON is recursive."""

IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


@attrs.frozen(slots=True)
class Usage:
    """Token counts of one model call (or a sum of several); missing keys mean 0."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
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


def to_usage(value: Usage | Mapping[str, int] | None) -> Usage:
    """Accept a ``Usage``, a wire dict with any subset of its keys, or ``None`` (zero)."""
    if value is None:
        return ZERO_USAGE
    if isinstance(value, Usage):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"usage must be a Usage or a mapping, got {type(value).__name__}")
    unknown = set(value) - _USAGE_KEYS
    if unknown:
        raise ValueError(
            f"usage has unknown key(s) {sorted(unknown)}; known: {sorted(_USAGE_KEYS)}"
        )
    return Usage(**{k: int(v or 0) for k, v in value.items()})


_USAGE_KEYS = frozenset(f.name for f in attrs.fields(Usage))


# -- content blocks (user messages and tool results) -------------------------------------


@attrs.frozen(slots=True)
class TextContent:
    """A block of plain text sent to the model."""

    type: ClassVar[str] = "text"
    text: str


@attrs.frozen(slots=True)
class ImageContent:
    """An inline image, base64-encoded; ``media_type`` is one of png, jpeg, gif, webp."""

    type: ClassVar[str] = "image"
    media_type: str = attrs.field()
    data: str

    @media_type.validator
    def _check_media_type(self, _: object, value: str) -> None:
        if value not in IMAGE_MEDIA_TYPES:
            raise ValueError(
                f"image media_type {value!r} is not supported; use one of "
                f"{sorted(IMAGE_MEDIA_TYPES)}"
            )


ContentPart: TypeAlias = TextContent | ImageContent
Content: TypeAlias = str | tuple[ContentPart, ...]
"""A message body: plain text, or an ordered tuple of text and image blocks."""

_CONTENT_TYPES: dict[str, type[ContentPart]] = {"text": TextContent, "image": ImageContent}


def to_content(value: Content | Iterable[ContentPart | Mapping[str, Any]]) -> Content:
    """Normalise a message body: a string stays a string, blocks become a tuple."""
    if isinstance(value, str):
        return value
    if isinstance(value, tuple) and all(isinstance(p, TextContent | ImageContent) for p in value):
        return value
    return tuple(_decode_tagged(p, _CONTENT_TYPES, "content block") for p in value)


# -- assistant message parts ---------------------------------------------------------------


@attrs.frozen(slots=True)
class TextPart:
    """Text the assistant produced."""

    type: ClassVar[str] = "text"
    text: str


@attrs.frozen(slots=True)
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


@attrs.frozen(slots=True)
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


Part: TypeAlias = TextPart | ThinkingPart | ToolCallPart

_PART_TYPES: dict[str, type[Part]] = {
    "text": TextPart,
    "thinking": ThinkingPart,
    "tool_call": ToolCallPart,
}


_PART_CLASSES = (TextPart, ThinkingPart, ToolCallPart)


def to_parts(value: Iterable[Part | Mapping[str, Any]]) -> tuple[Part, ...]:
    """Normalise assistant-message parts given as instances or wire dicts."""
    if isinstance(value, tuple) and all(
        isinstance(p, TextPart | ThinkingPart | ToolCallPart) for p in value
    ):
        return value
    return tuple(_decode_tagged(p, _PART_TYPES, "part") for p in value)


def to_tool_call(value: ToolCallPart | Mapping[str, Any]) -> ToolCallPart:
    """Accept a ``ToolCallPart`` or its wire dict."""
    if isinstance(value, ToolCallPart):
        return value
    part = _decode_tagged(value, _PART_TYPES, "tool call")
    if not isinstance(part, ToolCallPart):
        raise ValueError(f"expected a tool_call part, got type {part.type!r}")
    return part


def _decode_tagged(value: Any, types: Mapping[str, type[Any]], what: str) -> Any:
    if isinstance(value, tuple(types.values())):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} must be a mapping with a 'type' key, got {type(value).__name__}")
    tag = value.get("type")
    cls = types.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise ValueError(f"{what} has unknown type {tag!r}; expected one of {sorted(types)}")
    names = {f.name for f in attrs.fields(cls)}
    fields = {k: v for k, v in value.items() if k != "type"}
    unknown = set(fields) - names
    if unknown:
        raise ValueError(f"{what} of type {tag!r} has unknown field(s) {sorted(unknown)}")
    try:
        return cls(**fields)
    except TypeError as exc:
        raise ValueError(f"{what} of type {tag!r} is missing a field: {exc}") from None
