"""The driver protocol: how the engine talks to a model, and what it asks for.

A driver turns a ``ModelRequest`` (the conversation so far, the tools, the options) into
an async iterator of stream events, and stops promptly when ``interrupt()`` is called.
Drivers are shell code: they may read clocks and do I/O, and they stamp each event's
``timestamp`` (ms) themselves (the runtime stamps any event left at 0). Implementations
live in the top-level ``drivers`` package.

Only ``receive`` is required. ``BaseDriver`` gives the optional parts their no-op
defaults (``name``, ``interrupt``, ``aclose``, ``async with``); ``as_driver`` adapts any
object with a ``receive`` method once, so callers never probe with ``getattr``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal, Protocol, Self, TypeAlias, runtime_checkable

import attrs

from .events import AssistantMessage, StreamEvent, ToolResultMessage, UserMessage

__all__ = [
    "THINKING_LEVELS",
    "BaseDriver",
    "Driver",
    "Message",
    "ModelRequest",
    "ThinkingLevel",
    "ToolSpec",
    "as_driver",
]

Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage
"""A conversation entry a provider understands."""

ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")


@attrs.frozen(slots=True)
class ToolSpec:
    """What the model is told about a tool: its name, purpose and JSON Schema parameters."""

    name: str
    description: str
    parameters: Mapping[str, Any] = attrs.field(
        factory=lambda: {"type": "object", "properties": {}}
    )


@attrs.frozen(slots=True)
class ModelRequest:
    """One model call: history, system prompt, tools and options.

    ``model`` and ``thinking_level`` override the driver's defaults when set; ``options``
    carries provider-specific extras the driver documents.
    """

    messages: tuple[Message, ...]
    system_prompt: str | None = None
    tools: tuple[ToolSpec, ...] = ()
    model: str | None = None
    thinking_level: ThinkingLevel | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    options: Mapping[str, Any] = attrs.field(factory=dict)


@runtime_checkable
class Driver(Protocol):
    """A source of stream events for one model call at a time, with its lifecycle.

    ``receive`` yields stream events for one assistant message, starting with
    ``message_start`` and ending with ``message_stop`` (or ``error_received`` when the
    call fails: a driver reports failures as events rather than raising, though the
    runtime turns a raised exception, or a stream that ends without either, into
    ``error_received`` too). ``interrupt`` asks the current call to stop as soon as
    possible; it is idempotent, a no-op when idle, and may be called from any thread.
    ``aclose`` releases what the driver owns (an HTTP client it built); it is idempotent.
    """

    @property
    def name(self) -> str: ...

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    def interrupt(self) -> None: ...

    async def aclose(self) -> None: ...


class BaseDriver:
    """No-op defaults for a driver's optional parts; subclass it and write ``receive``.

    ``name`` defaults to the class name; ``interrupt`` and ``aclose`` do nothing;
    ``async with driver:`` closes it on exit.
    """

    @property
    def name(self) -> str:
        return type(self).__name__

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError(f"{type(self).__name__} must implement receive(request)")

    def interrupt(self) -> None:
        """Nothing to stop by default."""

    async def aclose(self) -> None:
        """Nothing to release by default."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _Adapted(BaseDriver):
    """An object with only ``receive`` (and maybe ``name``), given the missing parts."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def name(self) -> str:
        name = getattr(self._inner, "name", None)
        return name if isinstance(name, str) else type(self._inner).__name__

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        stream: AsyncIterator[StreamEvent] = self._inner.receive(request)
        return stream

    def interrupt(self) -> None:
        interrupt = getattr(self._inner, "interrupt", None)
        if interrupt is not None:
            interrupt()

    async def aclose(self) -> None:
        aclose = getattr(self._inner, "aclose", None)
        if aclose is not None:
            await aclose()

    def __repr__(self) -> str:
        return repr(self._inner)


def as_driver(obj: Any) -> Driver:
    """``obj`` itself when it implements the whole ``Driver`` protocol, else an adapter
    giving it the optional parts' defaults. Raises ``TypeError`` naming what is missing
    when ``obj`` has no callable ``receive``."""
    if not callable(getattr(obj, "receive", None)):
        raise TypeError(
            f"a driver needs a receive(request) method returning an async iterator of stream "
            f"events; got {obj!r}"
        )
    if isinstance(obj, Driver) and isinstance(getattr(obj, "name", None), str):
        return obj
    return _Adapted(obj)
