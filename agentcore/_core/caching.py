"""Prompt caching: what a user asks for (``Cache``), what a request carries (``CachePlan``),
and the pure functions that place breakpoints and tell when a request broke the prefix.

Providers cache the longest prefix of a request they saw before (tools, then the system
prompt, then the messages). Anthropic caches only up to the breakpoints a request marks
(``cache_control``, at most ``ANTHROPIC_BREAKPOINTS``, each with a TTL of ``"5m"`` or
``"1h"``); OpenAI caches every long prefix by itself and takes a routing key
(``prompt_cache_key``) and a retention (``prompt_cache_retention``); Gemini reads a
cache made beforehand (``cached_content``, a ``cachedContents/...`` name).

With ``Cache(automatic=True)`` the loop marks the tools, the system prompt, the end of
the previous request's messages (so this request reads what that one wrote) and the end
of this request's messages (so the next one reads it): four breakpoints, the longest
prefix a provider can reuse. Explicit breakpoints (``system``, ``tools``, message ids)
are placed as given. ``plan_cache`` makes the ``CachePlan``; ``prefix_break`` says
where two successive requests part, which the loop reports as ``cache_bust``.

All pure; the drivers map a plan to their provider's fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

import attrs

from .errors import ConfigurationError

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = [
    "ANTHROPIC_BREAKPOINTS",
    "CACHE_TTLS",
    "Cache",
    "CachePlan",
    "CacheRetention",
    "CacheTTL",
    "as_cache",
    "cache_wire",
    "plan_cache",
    "prefix_break",
]

CacheTTL: TypeAlias = Literal["5m", "1h"]
CACHE_TTLS: tuple[CacheTTL, ...] = ("5m", "1h")
CacheRetention: TypeAlias = Literal["in_memory", "24h"]
_RETENTIONS = ("in_memory", "24h")

ANTHROPIC_BREAKPOINTS = 4
"""How many ``cache_control`` breakpoints one Anthropic request may carry."""


def _ttl(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and value not in CACHE_TTLS:
        raise ConfigurationError(f"cache ttl must be one of {list(CACHE_TTLS)}, got {value!r}")


def _retention(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and value not in _RETENTIONS:
        raise ConfigurationError(
            f"cache retention must be one of {list(_RETENTIONS)}, got {value!r}"
        )


def _optional_text(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigurationError(
            f"cache {attribute.name} must be a non-empty str or None, got {value!r}"
        )


def _flag(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigurationError(f"cache {attribute.name} must be a bool, got {value!r}")


def _ids(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigurationError(f"cache messages must be a list of message ids, got {value!r}")
    if not all(isinstance(v, str) and v for v in value):
        raise ConfigurationError(f"cache messages must be non-empty strs, got {value!r}")
    return tuple(value)


@frozen
class Cache:
    """Prompt caching for an agent (``Agent(cache=...)``) or one run (``run(cache=...)``).

    ``automatic``: the loop places breakpoints on the tools, the system prompt and the
    growing conversation prefix (module docstring). ``system``, ``tools`` and
    ``messages`` (ids of messages, user or assistant, or tool-call ids of tool results)
    are explicit breakpoints, placed as well. ``ttl`` is Anthropic's cache lifetime
    (``None``: the provider's default, five minutes). ``key`` and ``retention`` are
    OpenAI's ``prompt_cache_key`` and ``prompt_cache_retention``; ``cached_content`` is a
    Gemini ``cachedContents/...`` name made beforehand, holding the system prompt and the
    tools. Each driver uses what its provider offers and ignores the rest.

    Plain JSON data, so a journaled prompt holds it. Raises ``ConfigurationError`` for a
    value a provider would refuse.
    """

    automatic: bool = attrs.field(default=True, validator=_flag)
    ttl: CacheTTL | None = attrs.field(default=None, validator=_ttl)
    system: bool = attrs.field(default=False, validator=_flag)
    tools: bool = attrs.field(default=False, validator=_flag)
    messages: tuple[str, ...] = attrs.field(default=(), converter=_ids)
    key: str | None = attrs.field(default=None, validator=_optional_text)
    retention: CacheRetention | None = attrs.field(default=None, validator=_retention)
    cached_content: str | None = attrs.field(default=None, validator=_optional_text)


def as_cache(value: Any) -> Cache | None:
    """A ``Cache`` from itself, ``True`` (automatic), ``False``/``None`` (off) or its wire
    form (a mapping); anything else is a ``ConfigurationError``."""
    if value is None or value is False:
        return None
    if value is True:
        return Cache()
    if isinstance(value, Cache):
        return value
    if isinstance(value, Mapping):
        try:
            return Cache(**value)
        except TypeError as exc:
            raise ConfigurationError(f"bad cache option {dict(value)!r}: {exc}") from None
    raise ConfigurationError(
        f"cache must be a Cache, True or None, got {value!r}; write cache=Cache(...)"
    )


def cache_wire(cache: Cache) -> dict[str, Any]:
    """``cache`` as JSON values (``as_cache`` reads it back)."""
    wire = attrs.asdict(cache)
    wire["messages"] = list(cache.messages)
    return wire


@frozen
class CachePlan:
    """The cache controls of one request, for its driver to map.

    ``system``/``tools``: a breakpoint after the system prompt / the tool definitions;
    ``messages``: indices into ``ModelRequest.messages`` of the messages a breakpoint
    follows, ascending (a driver with fewer breakpoints keeps the last ones, the longest
    prefixes). ``ttl``, ``key``, ``retention``, ``cached_content`` as in ``Cache``.
    """

    system: bool = False
    tools: bool = False
    messages: tuple[int, ...] = ()
    ttl: CacheTTL | None = None
    key: str | None = None
    retention: CacheRetention | None = None
    cached_content: str | None = None


class Request(Protocol):
    """What placement and comparison read of a ``ModelRequest`` (which holds a
    ``CachePlan``, so this module cannot import it)."""

    @property
    def messages(self) -> tuple[Any, ...]: ...
    @property
    def system_prompt(self) -> str | None: ...
    @property
    def tools(self) -> tuple[Any, ...]: ...
    @property
    def provider_tools(self) -> tuple[Any, ...]: ...
    @property
    def model(self) -> str | None: ...
    @property
    def thinking_level(self) -> str | None: ...


def _message_id(message: Any) -> str | None:
    value = getattr(message, "message_id", None) or getattr(message, "tool_call_id", None)
    return value if isinstance(value, str) else None


def plan_cache(cache: Cache, request: Request, previous: Request | None) -> CachePlan:
    """Where ``request`` marks breakpoints under ``cache``.

    Automatic placement marks the system prompt and tools when there are any, the last
    message, and the end of ``previous``'s messages, so what ``previous`` wrote is read
    back: pass ``previous`` only when ``request`` starts with it (``prefix_break`` is
    ``None``).
    """
    marks: set[int] = set()
    count = len(request.messages)
    if cache.messages:
        wanted = set(cache.messages)
        marks.update(i for i, m in enumerate(request.messages) if _message_id(m) in wanted)
    if cache.automatic and count:
        marks.add(count - 1)
        if previous is not None and previous.messages:
            marks.add(len(previous.messages) - 1)
    return CachePlan(
        system=bool(request.system_prompt) and (cache.automatic or cache.system),
        tools=bool(request.tools or request.provider_tools) and (cache.automatic or cache.tools),
        messages=tuple(sorted(marks)),
        ttl=cache.ttl,
        key=cache.key,
        retention=cache.retention,
        cached_content=cache.cached_content,
    )


def prefix_break(previous: Request, current: Request) -> tuple[str, int] | None:
    """Where ``current`` stops repeating ``previous`` (so a provider's cache of it cannot
    be read): ``None`` when ``current`` starts with all of it, else ``(what, index)``.

    ``what`` is ``"model"``, ``"thinking"`` (Anthropic drops the cached messages when
    the thinking settings change), ``"tools"`` or ``"system_prompt"`` (index 0) when those
    differ, else ``"messages"`` with the index of the first message that differs (or is
    missing). Tuples compare item by item, identical objects first, so a history that
    only grew costs a pointer comparison per message.
    """
    if previous.model != current.model:
        return "model", 0
    if previous.thinking_level != current.thinking_level:
        return "thinking", 0
    if previous.tools != current.tools or previous.provider_tools != current.provider_tools:
        return "tools", 0
    if previous.system_prompt != current.system_prompt:
        return "system_prompt", 0
    before, now = previous.messages, current.messages
    if len(before) <= len(now) and before == now[: len(before)]:
        return None
    for i, (a, b) in enumerate(zip(before, now, strict=False)):
        if a != b:
            return "messages", i
    return "messages", len(now)
