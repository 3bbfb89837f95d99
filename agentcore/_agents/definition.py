"""``AgentDefinition``: the blueprint of an agent that others may spawn, and loading it.

A definition says what an agent is (id, display name, description), what it runs on
(``"provider/model"``), what it may do (tool names, the agents it may spawn), how it is
prompted (system prompt; an instructions prompt added after each task's prompt; a step
prompt added to every model call), whether it sees its parent's history, what a spawner
must give it (``input_schema``: the prompt and JSON Schema ``params``), what it gives back
(``output_mode``: its last message, all its messages, or a structured output checked
against ``output_schema``), its own run limits, the agents it may hand the conversation
over to (``handoffs``, docs/handoffs.md), and optionally ``handle_steps``, a generator
that scripts part of its behaviour (docs/subagents.md).

Definitions are built in Python or loaded from a JSON, TOML or YAML file
(``load_definitions``); keys are the field names, or the camelCase names of the systems
agentcore descends from (``displayName``, ``spawnableAgents``, ``outputMode``...).
``handle_steps`` in a file is a ``"package.module:function"`` reference, imported when the
file is loaded.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias, get_args

import attrs
import jsonschema

from .._core.errors import ConfigurationError
from .._loop.tool_schema import StrictValidator

__all__ = [
    "AgentDefinition",
    "Handoff",
    "HistoryFilter",
    "OutputMode",
    "load_definitions",
]

OutputMode: TypeAlias = Literal["last_message", "all_messages", "structured_output"]
_OUTPUT_MODES: tuple[str, ...] = get_args(OutputMode)

_CAMEL = {
    "displayName": "display_name",
    "spawnableAgents": "spawnable_agents",
    "systemPrompt": "system_prompt",
    "instructionsPrompt": "instructions_prompt",
    "stepPrompt": "step_prompt",
    "includeMessageHistory": "include_message_history",
    "inputSchema": "input_schema",
    "outputMode": "output_mode",
    "outputSchema": "output_schema",
    "handleSteps": "handle_steps",
    "toolNames": "tools",
    "maxIterations": "max_iterations",
    "maxTokens": "max_tokens",
    "maxCost": "max_cost",
}
"""The seed's key names (buff-agents plan) -> ours."""


def _check_id(what: str, value: Any) -> None:
    if not isinstance(value, str) or not value or not all(c.isalnum() or c in "_-." for c in value):
        raise ConfigurationError(
            f"{what} must be non-empty letters, digits, '_', '-' or '.', got {value!r}"
        )


def _names(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ConfigurationError(f"expected a list of names, got {value!r}")
    return tuple(value)


def _schema(what: str, schema: Any) -> None:
    if not isinstance(schema, Mapping):
        raise ConfigurationError(f"{what} must be a JSON Schema object, got {schema!r}")
    try:
        StrictValidator.check_schema(dict(schema))
    except jsonschema.SchemaError as exc:
        raise ConfigurationError(f"{what} is not a valid JSON Schema: {exc.message}") from None


def _check_input_schema(value: Mapping[str, Any] | None) -> None:
    if value is None:
        return
    unknown = set(value) - {"prompt", "params"}
    if unknown:
        raise ConfigurationError(
            f"input_schema takes 'prompt' and 'params', got unknown key(s) {sorted(unknown)}"
        )
    prompt = value.get("prompt")
    if prompt is not None:
        _schema("input_schema['prompt']", prompt)
        if prompt.get("type", "string") != "string":
            raise ConfigurationError(
                f"input_schema['prompt'] describes the prompt, a string; got type "
                f"{prompt.get('type')!r}"
            )
    params = value.get("params")
    if params is not None:
        _schema("input_schema['params']", params)
        if params.get("type", "object") != "object":
            raise ConfigurationError(
                f"input_schema['params'] must describe an object, got type {params.get('type')!r}"
            )


HistoryFilter: TypeAlias = str | int | Callable[[tuple[Any, ...]], Sequence[Any]]
"""What a handoff's target sees of the conversation before it (docs/handoffs.md)."""
_FILTERS = ("all", "summary")
SUMMARY = "summary"


def _history(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value in _FILTERS or callable(value):
        return
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return
    raise ConfigurationError(
        f"a handoff's history must be 'all', 'summary', a number of messages > 0 or a function "
        f"(messages) -> messages, got {value!r}"
    )


@attrs.frozen(slots=True)
class Handoff:
    """A handoff to the agent ``agent`` (its id). ``tool_name`` defaults to
    ``transfer_to_<agent>``; ``description`` to one built from the target's name and
    description; ``input_schema`` is a JSON Schema object of what the model passes along
    (seen by the target in the handoff call); ``history`` is the filter of what the
    target sees (docs/handoffs.md). In a definitions file, ``history`` may be a
    ``"package.module:function"`` reference."""

    agent: str
    tool_name: str | None = None
    description: str | None = None
    input_schema: Mapping[str, Any] | None = None
    history: HistoryFilter = attrs.field(default="all", validator=_history)

    def __attrs_post_init__(self) -> None:
        _check_id("a handoff's agent (the id of its target)", self.agent)
        if self.tool_name is not None:
            _check_id("a handoff's tool_name", self.tool_name)
        if self.input_schema is not None:
            _schema(f"handoff to {self.agent!r}: input_schema", self.input_schema)
            if self.input_schema.get("type", "object") != "object":
                raise ConfigurationError(
                    f"handoff to {self.agent!r}: input_schema must describe an object"
                )

    @property
    def name(self) -> str:
        """The handoff tool's name."""
        return self.tool_name or "transfer_to_" + self.agent.replace(".", "_")

    @classmethod
    def of(cls, value: Any) -> Handoff:
        """A ``Handoff`` from an agent id, a mapping of its fields, or itself."""
        if isinstance(value, Handoff):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, Mapping):
            fields = dict(value)
            history = fields.get("history")
            if isinstance(history, str) and ":" in history:
                source = f"handoff to {fields.get('agent')!r}"
                fields["history"] = _import(history, source, "history")
            try:
                return cls(**fields)
            except TypeError as exc:
                raise ConfigurationError(f"a handoff {dict(value)!r}: {exc}") from None
        raise ConfigurationError(
            f"a handoff is an agent id, a Handoff or a mapping of its fields, got {value!r}"
        )


def _handoffs(value: Any) -> tuple[Handoff, ...]:
    """The definition's ``handoffs``; a bad one is named as the entry the caller wrote."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ConfigurationError(
            f"handoffs: expected a list of agent ids or Handoffs, got {value!r}"
        )
    return tuple(_entry(v) for v in value)


def _entry(value: Any) -> Handoff:
    try:
        return Handoff.of(value)
    except ConfigurationError as exc:
        raise ConfigurationError(f"handoffs entry {value!r}: {exc.message}") from None


def _positive(name: str, value: Any, kinds: tuple[type, ...] = (int,)) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > 0:  # type: ignore[operator]
        raise ConfigurationError(f"{name} must be a number > 0 or None, got {value!r}")


@attrs.frozen(slots=True, eq=False)
class AgentDefinition:
    """The blueprint of a spawnable agent (see the module docstring).

    Raises ``ConfigurationError`` naming the field for a bad id, model, output mode or
    schema, an agent spawning itself... A definition refers to tools and agents by name;
    an ``AgentRegistry`` resolves them (and says which are missing).
    """

    id: str
    model: str
    display_name: str = ""
    description: str = ""
    tools: tuple[str, ...] = attrs.field(default=(), converter=_names)
    spawnable_agents: tuple[str, ...] = attrs.field(default=(), converter=_names)
    handoffs: tuple[Handoff, ...] = attrs.field(default=(), converter=_handoffs)
    system_prompt: str | None = None
    instructions_prompt: str | None = None
    step_prompt: str | None = None
    include_message_history: bool = False
    input_schema: Mapping[str, Any] | None = None
    output_mode: OutputMode = "last_message"
    output_schema: Mapping[str, Any] | None = None
    handle_steps: Callable[..., Any] | None = None
    max_iterations: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None
    timeout: float | None = None

    def __attrs_post_init__(self) -> None:
        _check_id("AgentDefinition.id", self.id)
        if not isinstance(self.model, str) or not self.model:
            raise ConfigurationError(
                f"agent {self.id!r}: model must be a 'provider/model' string, got {self.model!r}"
            )
        for name in self.spawnable_agents:
            _check_id(f"agent {self.id!r}: spawnable agent", name)
        for name in self.tools:
            _check_id(f"agent {self.id!r}: tool name", name)
        for handoff in self.handoffs:
            if handoff.agent == self.id:
                raise ConfigurationError(f"agent {self.id!r} cannot hand off to itself")
        names = [h.name for h in self.handoffs]
        if len(set(names)) != len(names):
            raise ConfigurationError(
                f"agent {self.id!r}: two handoffs share a tool name in {names}"
            )
        for field in ("display_name", "description"):
            if not isinstance(getattr(self, field), str):
                raise ConfigurationError(f"agent {self.id!r}: {field} must be a str")
        for field in ("system_prompt", "instructions_prompt", "step_prompt"):
            value = getattr(self, field)
            if value is not None and not isinstance(value, str):
                raise ConfigurationError(f"agent {self.id!r}: {field} must be a str or None")
        if not isinstance(self.include_message_history, bool):
            raise ConfigurationError(f"agent {self.id!r}: include_message_history must be a bool")
        if self.output_mode not in _OUTPUT_MODES:
            raise ConfigurationError(
                f"agent {self.id!r}: output_mode must be one of {_OUTPUT_MODES}, "
                f"got {self.output_mode!r}"
            )
        if self.output_schema is not None:
            if self.output_mode != "structured_output":
                raise ConfigurationError(
                    f"agent {self.id!r}: output_schema needs output_mode='structured_output'"
                )
            _schema(f"agent {self.id!r}: output_schema", self.output_schema)
        _check_input_schema(self.input_schema)
        if self.handle_steps is not None and not callable(self.handle_steps):
            raise ConfigurationError(
                f"agent {self.id!r}: handle_steps must be a generator function, "
                f"got {self.handle_steps!r}"
            )
        _positive("max_iterations", self.max_iterations)
        _positive("max_tokens", self.max_tokens)
        _positive("max_cost", self.max_cost, (int, float))
        _positive("timeout", self.timeout, (int, float))

    @property
    def name(self) -> str:
        """The display name, or the id when there is none."""
        return self.display_name or self.id

    def limits(self) -> dict[str, Any]:
        """The run limits this definition sets, as ``Agent`` options."""
        values = {
            "max_iterations": self.max_iterations,
            "max_tokens": self.max_tokens,
            "max_cost": self.max_cost,
            "timeout": self.timeout,
        }
        return {k: v for k, v in values.items() if v is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "a mapping") -> AgentDefinition:
        """A definition from its data (snake_case or camelCase keys). Raises
        ``ConfigurationError`` naming ``source`` for an unknown key or a bad value."""
        if not isinstance(data, Mapping):
            raise ConfigurationError(f"{source}: an agent definition is a mapping, got {data!r}")
        values: dict[str, Any] = {}
        for key, value in data.items():
            values[_CAMEL.get(key, key)] = value
        known = {f.name for f in attrs.fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ConfigurationError(
                f"{source}: unknown key(s) {sorted(unknown)} in an agent definition; "
                f"known: {sorted(known)}"
            )
        steps = values.get("handle_steps")
        if isinstance(steps, str):
            values["handle_steps"] = _import(steps, source)
        try:
            return cls(**values)
        except TypeError as exc:
            raise ConfigurationError(f"{source}: {exc}") from None
        except ConfigurationError as exc:
            raise ConfigurationError(f"{source}: {exc.message}") from None


def _import(reference: str, source: str, what: str = "handle_steps") -> Callable[..., Any]:
    """The function ``"package.module:function"`` names."""
    module, sep, name = reference.partition(":")
    if not sep or not module or not name:
        raise ConfigurationError(
            f"{source}: {what} must be a 'package.module:function' reference, got {reference!r}"
        )
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ConfigurationError(f"{source}: cannot import {what} {reference!r}: {exc}") from None
    if not callable(found):
        raise ConfigurationError(f"{source}: {what} {reference!r} is not a function")
    result: Callable[..., Any] = found
    return result


def _read(path: pathlib.Path) -> Any:
    suffix = path.suffix.lower()
    text = path.read_text(encoding="utf-8")
    if suffix == ".json":
        return json.loads(text)
    if suffix == ".toml":
        return tomllib.loads(text)
    if suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise ConfigurationError(
                f"{path}: reading YAML needs PyYAML; install it with: "
                "pip install 'agentcore-engine[yaml]'"
            ) from None
        return yaml.safe_load(text)
    raise ConfigurationError(
        f"{path}: agent definitions are read from .json, .toml, .yaml or .yml files"
    )


def load_definitions(path: str | pathlib.Path) -> list[AgentDefinition]:
    """The definitions in a JSON, TOML or YAML file: one definition (a mapping with an
    ``id``), a list of them, or a mapping whose ``agents`` key holds the list (TOML:
    ``[[agents]]`` tables). Raises ``ConfigurationError`` naming the file and what is
    wrong in it."""
    path = pathlib.Path(path)
    try:
        data = _read(path)
    except ConfigurationError:
        raise
    except OSError as exc:
        raise ConfigurationError(f"cannot read agent definitions from {path}: {exc}") from None
    except ValueError as exc:  # JSON, TOML and YAML parse errors are all ValueErrors
        raise ConfigurationError(f"{path} is not valid: {exc}") from None
    except Exception as exc:  # yaml.YAMLError is not a ValueError
        if type(exc).__module__.startswith("yaml"):
            raise ConfigurationError(f"{path} is not valid YAML: {exc}") from None
        raise
    items: Sequence[Any]
    if isinstance(data, Mapping) and "id" not in data:
        agents = data.get("agents")
        if not isinstance(agents, list):
            raise ConfigurationError(
                f"{path}: expected one definition (with an 'id'), a list of them, or an "
                "'agents' list"
            )
        items = agents
    elif isinstance(data, list):
        items = data
    else:
        items = [data]
    return [
        AgentDefinition.from_dict(item, source=f"{path}, agent #{i + 1}")
        for i, item in enumerate(items)
    ]
