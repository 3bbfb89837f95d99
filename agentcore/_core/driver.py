"""What the engine asks a model for: ``ModelRequest`` (the conversation so far, the
tools, the options), its messages, tool specs and output specs (pure data). The driver
protocol that answers one lives in ``agentcore/_edges/driver.py``.

A request may ask for structured output (``ModelRequest.output``, an ``OutputSpec``): the
loop validates the answer; a driver only maps a ``native`` request to its provider's own
field (OpenAI's ``response_format``, Anthropic's ``output_config``). ``tool`` and
``prompted`` requests are already shaped by the loop (an extra tool, a system prompt).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import attrs

from .caching import CachePlan
from .errors import ConfigurationError
from .events import AssistantMessage, ToolResultMessage, UserMessage
from .provider_tools import ProviderTool

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = [
    "OUTPUT_MODES",
    "THINKING_LEVELS",
    "Message",
    "ModelRequest",
    "OutputMode",
    "OutputSpec",
    "ThinkingLevel",
    "ToolSpec",
    "as_output_spec",
]

Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage
"""A conversation entry a provider understands."""

ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")


@frozen
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


@frozen
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


@frozen
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
