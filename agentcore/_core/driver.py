"""The driver protocol: how the engine talks to a model, and what it asks for.

A driver turns a ``ModelRequest`` (the conversation so far, the tools, the options) into
an async iterator of stream events, and stops promptly when ``interrupt()`` is called.
Drivers are shell code: they may read clocks and do I/O, and they stamp each event's
``timestamp`` (ms) themselves (the runtime stamps any event left at 0). Implementations
live in the top-level ``drivers`` package.

Only ``receive`` is required. ``BaseDriver`` gives the optional parts their no-op
defaults (``name``, ``output_modes``, ``receive_batches``, ``interrupt``, ``aclose``,
``async with``);
``as_driver`` adapts any object with a ``receive`` method once, so callers never probe
with ``getattr``.

A request may ask for structured output (``ModelRequest.output``, an ``OutputSpec``): the
loop validates the answer; a driver only maps a ``native`` request to its provider's own
field (OpenAI's ``response_format``, Anthropic's ``output_config``). ``tool`` and
``prompted`` requests are already shaped by the loop (an extra tool, a system prompt).
"""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Literal, Protocol, Self, TypeAlias, runtime_checkable

import attrs

from .caching import CachePlan
from .errors import ConfigurationError
from .events import AssistantMessage, StreamEvent, ToolResultMessage, UserMessage
from .provider_tools import ProviderTool

__all__ = [
    "OUTPUT_MODES",
    "THINKING_LEVELS",
    "BaseDriver",
    "Driver",
    "Message",
    "ModelRequest",
    "OutputMode",
    "OutputSpec",
    "ThinkingLevel",
    "ToolSpec",
    "as_driver",
    "as_output_spec",
    "close_stream",
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


OutputMode: TypeAlias = Literal["native", "tool", "prompted"]
"""How structured output is asked for: the provider's own JSON-schema output
(``native``), a final-answer tool the model calls (``tool``), or JSON asked for in the
system prompt (``prompted``)."""

OUTPUT_MODES: tuple[OutputMode, ...] = ("native", "tool", "prompted")


def _output_mode(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value not in OUTPUT_MODES:
        raise ConfigurationError(f"output mode must be one of {OUTPUT_MODES}, got {value!r}")


def _object_schema(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, Mapping) or value.get("type") != "object":
        raise ConfigurationError(
            'an output schema must describe a JSON object ({"type": "object", ...}); wrap '
            f"another value in an object with one property, got {_short(value)}"
        )
    problem = _schema_problem(json.dumps(value, sort_keys=True, default=repr))
    if problem is not None:
        raise ConfigurationError(f"the output schema is not a valid JSON Schema: {problem}")


@functools.lru_cache(maxsize=128)
def _schema_problem(schema_text: str) -> str | None:
    """Why the schema (as JSON text) is not a valid JSON Schema, ``None`` when it is.
    Checking against the metaschema takes milliseconds: once per distinct schema."""
    import jsonschema  # on first use: most agents never check an output schema

    try:
        jsonschema.Draft202012Validator.check_schema(json.loads(schema_text))
    except jsonschema.SchemaError as exc:
        return exc.message
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, default=repr)
    return text if len(text) <= 80 else text[:77] + "..."


def _retries(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"output retries must be an int >= 0, got {value!r}")


def _text(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or (attribute.name == "name" and not value):
        raise ConfigurationError(
            f"output {attribute.name} must be a non-empty string, got {value!r}"
        )


@attrs.frozen(slots=True)
class OutputSpec:
    """What the final answer of a run must be: a JSON object matching ``schema``.

    ``name`` and ``description`` name it to the model (the final-answer tool's name, the
    schema's name in OpenAI's ``response_format``); ``mode`` says how it is asked for;
    ``retries`` bounds how many times an answer that fails validation is sent back to
    the model before the run ends with ``OUTPUT_PARSE_ERROR``. Plain JSON data, so a
    journaled prompt holds it. Raises ``ConfigurationError`` for a schema that is not an object
    schema (or not a valid JSON Schema), an unknown mode or a negative ``retries``.
    """

    schema: Mapping[str, Any] = attrs.field(validator=_object_schema)
    name: str = attrs.field(default="final_result", validator=_text)
    description: str = attrs.field(default="", validator=_text)
    mode: OutputMode = attrs.field(default="native", validator=_output_mode)
    retries: int = attrs.field(default=1, validator=_retries)


def as_output_spec(value: Any) -> OutputSpec | None:
    """An ``OutputSpec`` from itself or its wire form (a mapping); ``None`` stays ``None``."""
    if value is None or isinstance(value, OutputSpec):
        return value
    if isinstance(value, Mapping):
        return OutputSpec(**value)
    raise TypeError(f"output must be an OutputSpec or its wire form, got {_short(value)}")


@attrs.frozen(slots=True)
class ModelRequest:
    """One model call: history, system prompt, tools and options.

    ``model`` and ``thinking_level`` override the driver's defaults when set; ``options``
    carries provider-specific extras the driver documents; ``output`` asks for a
    structured final answer (see ``OutputSpec``; a driver maps only ``mode="native"``);
    ``cache`` says where to place prompt-cache breakpoints and with which options (see
    ``CachePlan``; ``None``: no cache controls are sent).
    """

    messages: tuple[Message, ...]
    system_prompt: str | None = None
    tools: tuple[ToolSpec, ...] = ()
    model: str | None = None
    thinking_level: ThinkingLevel | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    options: Mapping[str, Any] = attrs.field(factory=dict)
    output: OutputSpec | None = None
    cache: CachePlan | None = None
    provider_tools: tuple[ProviderTool, ...] = ()
    """Tools the provider runs itself (``WebSearch``...): a driver maps them, or refuses
    them with ``ProviderToolError``."""


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
    ``output_modes`` lists the structured-output modes it supports, best first: what
    ``output_mode="auto"`` picks from.

    ``receive_batches`` is the same stream in batches: what the runtime reads. A driver
    that has several events at hand at once (a scripted call, one network chunk that
    decoded into several events) yields them as one sequence, which the runtime folds in
    one pass instead of one async step per event; ``BaseDriver``'s default yields each
    event of ``receive`` alone. A batch once yielded is folded whole unless the runtime
    cancels the call, so a driver batches only what it would have yielded back to back.
    """

    @property
    def name(self) -> str: ...

    @property
    def output_modes(self) -> tuple[OutputMode, ...]: ...

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]: ...

    def interrupt(self) -> None: ...

    async def aclose(self) -> None: ...


class BaseDriver:
    """No-op defaults for a driver's optional parts; subclass it and write ``receive``.

    ``name`` defaults to the class name; ``output_modes`` to ``("tool", "prompted")``
    (what any model that calls tools can do); ``receive_batches`` to each event of
    ``receive`` alone; ``interrupt`` and ``aclose`` do nothing; ``async with driver:``
    closes it on exit.
    """

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        return ("tool", "prompted")

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError(f"{type(self).__name__} must implement receive(request)")

    async def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        stream = self.receive(request)
        try:
            async for event in stream:
                yield (event,)
        finally:
            await close_stream(stream)

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

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        modes = getattr(self._inner, "output_modes", None)
        if isinstance(modes, tuple) and modes and all(m in OUTPUT_MODES for m in modes):
            return modes
        return super().output_modes

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        stream: AsyncIterator[StreamEvent] = self._inner.receive(request)
        return stream

    def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        batches = getattr(self._inner, "receive_batches", None)
        if batches is None:
            return super().receive_batches(request)
        stream: AsyncIterator[Sequence[StreamEvent]] = batches(request)
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


async def close_stream(stream: Any) -> None:
    """Close a driver's stream (an async generator) so its ``finally`` runs now."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
