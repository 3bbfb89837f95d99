"""The driver protocol: how the engine talks to a model, and what it asks for.

A driver turns a ``ModelRequest`` (the conversation so far, the tools, the options) into
an async iterator of stream events, and stops promptly when ``interrupt()`` is called.
Drivers are shell code: they may read clocks and do I/O, and they stamp each event's
``timestamp`` (ms) themselves. Implementations live in the top-level ``drivers`` package.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

import attrs

from .events import AssistantMessage, StreamEvent, ToolResultMessage, UserMessage

__all__ = ["THINKING_LEVELS", "Driver", "Message", "ModelRequest", "ThinkingLevel", "ToolSpec"]

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
    """A source of stream events for one model call at a time.

    ``receive`` yields stream events for one assistant message, starting with
    ``message_start`` and ending with ``message_stop`` (or ``error_received`` when the
    call fails: a driver reports failures as events rather than raising, though the engine
    turns a raised exception into ``error_received`` too). ``interrupt`` asks the current
    call to stop as soon as possible; it is idempotent and a no-op when idle.
    """

    name: str

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    def interrupt(self) -> None: ...
