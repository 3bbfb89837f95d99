"""Provider-side tools: tools the provider runs inside a model call (web search, code
execution, web fetch), and the message parts their calls, results and citations become.

The tool objects are declarations, given in an agent's ``tools=`` beside function tools;
the loop never runs them: a driver maps each to its provider's field (docs/provider-tools.md)
or refuses it with ``ProviderToolError`` (naming the tool, the driver and what it
supports). A provider's stream carries what they did; a driver emits each finished piece
as one ``provider_part`` stream event, which the message assembler places in the reply
among its other parts:

- ``ServerToolCallPart``: the provider called one of its tools (``input`` as it sent it);
- ``ServerToolResultPart``: what the tool gave back (``content``: the provider's own JSON
  block, which a driver sends back unchanged when the history is replayed to the same
  provider; ``is_error`` when the tool failed);
- ``CitationPart``: a source the text before it cites (``url``, ``title``, ``cited_text``).

All are frozen, checked and plain JSON data, so the journal keeps them and replay
reproduces them. The loop treats them as content of the reply: they are never run,
answered or cleared by compaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

import attrs

from .checks import JSONValue, NonNegativeInt, check_keys, checked, deferred, shown
from .errors import ConfigurationError, InvalidEventError
from .registry import event_type

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = [
    "CitationPart",
    "CodeExecution",
    "PROVIDER_PART_TYPES",
    "ProviderPart",
    "ProviderPartEvent",
    "ProviderTool",
    "ProviderToolError",
    "ServerToolCallPart",
    "ServerToolResultPart",
    "UserLocation",
    "WebFetch",
    "WebSearch",
    "as_provider_tool",
    "is_provider_tool",
    "provider_tool_wire",
    "refuse_provider_tools",
]


class ProviderToolError(ConfigurationError):
    """A driver cannot give the model a provider-side tool (or one of its options)."""


def _domains(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigurationError(f"domains must be a list of str, got {value!r}")
    if not all(isinstance(v, str) and v for v in value):
        raise ConfigurationError(f"domains must be non-empty strs, got {value!r}")
    return tuple(value)


def _max_uses(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ConfigurationError(f"{attribute.name} must be an int >= 1 or None, got {value!r}")


def _exclusive(tool: Any) -> None:
    if tool.allowed_domains and tool.blocked_domains:
        raise ConfigurationError(
            f"{type(tool).__name__} takes allowed_domains or blocked_domains, not both"
        )


def _optional_str(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigurationError(f"{attribute.name} must be a non-empty str or None, got {value!r}")


@frozen
class UserLocation:
    """Where the user is, roughly, for localised search results (each field optional;
    ``country`` is a two-letter ISO code, ``timezone`` an IANA name)."""

    city: str | None = attrs.field(default=None, validator=_optional_str)
    region: str | None = attrs.field(default=None, validator=_optional_str)
    country: str | None = attrs.field(default=None, validator=_optional_str)
    timezone: str | None = attrs.field(default=None, validator=_optional_str)


def _location(value: Any) -> UserLocation | None:
    if value is None or isinstance(value, UserLocation):
        return value
    if isinstance(value, Mapping):
        return UserLocation(**value)
    raise ConfigurationError(f"user_location must be a UserLocation, got {value!r}")


@frozen
class WebSearch:
    """Let the model search the web, run by the provider. ``max_uses`` bounds the searches
    of one model call; ``allowed_domains`` or ``blocked_domains`` restrict the results;
    ``user_location`` localises them."""

    kind: ClassVar[str] = "web_search"
    max_uses: int | None = attrs.field(default=None, validator=_max_uses)
    allowed_domains: tuple[str, ...] = attrs.field(default=(), converter=_domains)
    blocked_domains: tuple[str, ...] = attrs.field(default=(), converter=_domains)
    user_location: UserLocation | None = attrs.field(default=None, converter=_location)

    def __attrs_post_init__(self) -> None:
        _exclusive(self)


@frozen
class CodeExecution:
    """Let the model run code in the provider's sandbox."""

    kind: ClassVar[str] = "code_execution"


@frozen
class WebFetch:
    """Let the model fetch web pages (and PDFs), run by the provider. ``max_uses``,
    ``allowed_domains``/``blocked_domains`` as for ``WebSearch``; ``citations`` asks for
    citations of what was fetched; ``max_content_tokens`` caps a fetched page."""

    kind: ClassVar[str] = "web_fetch"
    max_uses: int | None = attrs.field(default=None, validator=_max_uses)
    allowed_domains: tuple[str, ...] = attrs.field(default=(), converter=_domains)
    blocked_domains: tuple[str, ...] = attrs.field(default=(), converter=_domains)
    citations: bool = False
    max_content_tokens: int | None = attrs.field(default=None, validator=_max_uses)

    def __attrs_post_init__(self) -> None:
        _exclusive(self)


ProviderTool: TypeAlias = WebSearch | CodeExecution | WebFetch
_TOOLS: dict[str, type[ProviderTool]] = {c.kind: c for c in (WebSearch, CodeExecution, WebFetch)}


def is_provider_tool(value: object) -> bool:
    """Whether ``value`` is a provider-side tool declaration."""
    return type(value) in _TOOLS.values()


def provider_tool_wire(tool: ProviderTool) -> dict[str, Any]:
    """``tool`` as JSON values (``as_provider_tool`` reads it back)."""
    wire: dict[str, Any] = {"kind": tool.kind}
    for field in attrs.fields(type(tool)):
        value = getattr(tool, field.name)
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, UserLocation):
            value = attrs.asdict(value)
        wire[field.name] = value
    return wire


def as_provider_tool(value: Any) -> ProviderTool:
    """A provider-side tool from itself or its wire form (``ConfigurationError`` else)."""
    if is_provider_tool(value):
        return value  # type: ignore[no-any-return]
    if isinstance(value, Mapping) and value.get("kind") in _TOOLS:
        options = {k: v for k, v in value.items() if k != "kind"}
        try:
            return _TOOLS[value["kind"]](**options)
        except TypeError as exc:
            raise ConfigurationError(f"bad provider tool {dict(value)!r}: {exc}") from None
    raise ConfigurationError(
        f"not a provider tool: {value!r}; use WebSearch(), CodeExecution() or WebFetch()"
    )


def refuse_provider_tools(
    tools: Sequence[ProviderTool], driver: str, model: str, supported: str = "none"
) -> None:
    """Raise ``ProviderToolError`` for the first of ``tools``: ``driver`` serving ``model``
    supports none of them (``supported`` says what it does support)."""
    if tools:
        raise ProviderToolError(
            f"{type(tools[0]).__name__} is a provider-side tool that {driver} cannot give "
            f"model {model!r}; it supports: {supported}"
        )


# -- message parts ---------------------------------------------------------------------------


@frozen
@checked
class ServerToolCallPart:
    """The provider called its tool ``tool_name`` (``web_search``, ``code_execution``,
    ``web_fetch``...) with ``input``, inside the model call; ``provider`` names whose."""

    type: ClassVar[str] = "server_tool_call"
    tool_call_id: str
    tool_name: str
    input: JSONValue = None
    provider: str = ""


@frozen
@checked
class ServerToolResultPart:
    """What the provider's tool call ``tool_call_id`` gave back: ``content`` is the
    provider's own block (JSON), sent back unchanged to the same provider."""

    type: ClassVar[str] = "server_tool_result"
    tool_call_id: str
    tool_name: str
    content: JSONValue = None
    is_error: bool = False
    provider: str = ""


@frozen
@checked
class CitationPart:
    """A source the text before it cites: ``url``, ``title``, the ``cited_text``."""

    type: ClassVar[str] = "citation"
    url: str
    title: str = ""
    cited_text: str = ""
    provider: str = ""


ProviderPart: TypeAlias = ServerToolCallPart | ServerToolResultPart | CitationPart
PROVIDER_PART_TYPES: Mapping[str, type[ProviderPart]] = {
    c.type: c for c in (ServerToolCallPart, ServerToolResultPart, CitationPart)
}
"""The part types of this module by wire tag, for ``content``'s part union."""


def _to_part(value: Any) -> ProviderPart:
    """A provider part from itself or its wire dict (``InvalidEventError`` else)."""
    if type(value) in PROVIDER_PART_TYPES.values():
        return value  # type: ignore[no-any-return]
    tag = value.get("type") if isinstance(value, Mapping) else None
    cls = PROVIDER_PART_TYPES.get(tag) if isinstance(tag, str) else None
    if cls is None:
        expected = ", ".join(sorted(PROVIDER_PART_TYPES))
        raise InvalidEventError(f"must be a provider part ({expected}), got {shown(value)}")
    fields = {k: v for k, v in value.items() if k != "type"}
    names = tuple(a.name for a in attrs.fields(cls))
    required = tuple(a.name for a in attrs.fields(cls) if a.default is attrs.NOTHING)
    check_keys(f"provider part of type {tag!r}", fields, names, required)
    return cls(**fields)


def _part_field(value: Any) -> ProviderPart:
    return value if type(value) in PROVIDER_PART_TYPES.values() else deferred(_to_part, value)


@event_type("provider_part", "stream")
@frozen
@checked
class ProviderPartEvent:
    """A finished piece of what a provider-side tool did (a call, a result, a citation),
    for the reply's content block ``index``; a citation shares the index of the text it
    cites. The assembler places ``part`` in the reply (module docstring)."""

    type: ClassVar[str] = "provider_part"
    part: ServerToolCallPart | ServerToolResultPart | CitationPart = attrs.field(
        converter=_part_field
    )
    index: NonNegativeInt
    timestamp: int = attrs.field(default=0, kw_only=True)
