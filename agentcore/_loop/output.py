"""Structured output: the schema a run's answer must match, and the checks the loop makes.

``output_spec`` turns what a caller passes as ``output_type`` (a JSON Schema dict, a
dataclass, an attrs class, a ``TypedDict`` or a pydantic model) into an ``OutputSpec``,
the plain data a journaled prompt carries, and a builder of the typed value. The loop
policy (``policy``) decides with the functions below, all pure:

- ``shaped_request``: what a model call asks for. ``native``: the spec rides on the
  request for the driver to map; ``tool``: a final-answer tool joins the tools;
  ``prompted``: the system prompt asks for JSON matching the schema;
- ``check_text`` / ``check_call``: the answer (a reply's text, or the arguments of a
  call to the final-answer tool) parsed and validated strictly against the schema;
- ``retry_message``, ``invalid_call_text``, ``failure_message``: what the model (or the
  caller) is told when an answer fails.

``lenient_errors`` is the check a partial answer gets while it streams: only the errors a
complete answer could still fix (a missing required key, a string too short so far) are
forgiven.

Validation uses the tools' ``StrictValidator`` (Draft 2020-12, ``integer`` means no
fraction). Pure: no I/O.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .._core.content import JSONValue, ToolCallPart
from .._core.driver import OUTPUT_MODES, ModelRequest, OutputMode, OutputSpec, ToolSpec
from .._core.errors import ConfigurationError
from .partial_json import json_in_text
from .tool_json import json_path
from .tool_schema import class_arguments, strict_validator

if TYPE_CHECKING:
    import jsonschema

__all__ = [
    "LENIENT",
    "check_call",
    "check_text",
    "failure_message",
    "invalid_call_text",
    "lenient_errors",
    "output_spec",
    "retry_message",
    "schema_errors",
    "shaped_request",
]

DEFAULT_NAME = "final_result"

LENIENT = frozenset(
    {
        "required",
        "minProperties",
        "minItems",
        "minContains",
        "minLength",
        "pattern",
        "format",
        "enum",
        "const",
        "dependentRequired",
        "contains",
    }
)
"""Schema keywords a partial answer may still fail: more of it may yet make them hold."""


def output_spec(
    output_type: Any,
    *,
    mode: OutputMode | str = "auto",
    retries: int = 1,
    modes: tuple[OutputMode, ...] = OUTPUT_MODES,
    tool_names: Collection[str] = (),
) -> tuple[OutputSpec, Callable[[JSONValue], Any]]:
    """The spec of ``output_type`` and the builder of its typed value from a valid answer.

    ``modes`` are the driver's (best first): ``auto`` picks the first, and ``native``
    must be one of them (``tool`` and ``prompted`` work with any model that calls tools).
    A JSON Schema dict gives the answer as a dict. Raises ``ConfigurationError`` for a
    type no schema can be derived from, a schema ``jsonschema`` rejects, an unknown or
    unsupported mode, or a final-answer tool named like one of ``tool_names``.
    """
    build: Callable[[JSONValue], Any]
    if isinstance(output_type, Mapping):
        schema, build = dict(output_type), _as_is
        name = schema.get("title") if isinstance(schema.get("title"), str) else None
    else:
        schema, build = _derived(output_type)
        name = getattr(output_type, "__name__", None)
    if mode == "auto":
        mode = modes[0]
    if mode not in OUTPUT_MODES:
        raise ConfigurationError(
            f"output_mode must be 'auto' or one of {OUTPUT_MODES}, got {mode!r}"
        )
    if mode == "native" and "native" not in modes:
        raise ConfigurationError(
            f"this driver has no native structured output (its modes: {modes}); use "
            "output_mode='tool', 'prompted' or 'auto', or, if its server has it (a recent "
            "llama.cpp, vLLM or Ollama), build the driver with "
            "output_modes=('native', 'tool', 'prompted')"
        )
    description = schema.get("description")
    spec = OutputSpec(
        schema,
        _tool_name(name),
        description if isinstance(description, str) else "",
        mode,
        retries,
    )
    if spec.mode == "tool" and spec.name in tool_names:
        raise ConfigurationError(
            f"the final-answer tool would be named {spec.name!r} like one of the agent's "
            "tools; give the output type another name (a schema's title)"
        )
    return spec, build


@functools.lru_cache(maxsize=128)
def _derived(cls: type[Any]) -> tuple[dict[str, Any], Callable[[Any], Any]]:
    """``class_arguments(cls)``, derived once per class (reading annotations is slow)."""
    return class_arguments(cls)


def _as_is(value: JSONValue) -> JSONValue:
    return value


def _tool_name(name: str | None) -> str:
    """A tool name providers accept (``[A-Za-z0-9_-]{1,64}``) from a class name or title."""
    if not name:
        return DEFAULT_NAME
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in name)
    return cleaned[:64] or DEFAULT_NAME


# -- requests -------------------------------------------------------------------------------


def shaped_request(request: ModelRequest, spec: OutputSpec) -> ModelRequest:
    """``request`` asking for ``spec`` the way its mode says (module docstring)."""
    if spec.mode == "tool":
        tool = ToolSpec(spec.name, _tool_description(spec), spec.schema)
        return attrs.evolve(request, tools=(*request.tools, tool), output=spec)
    if spec.mode == "prompted":
        system = _prompt(spec)
        if request.system_prompt:
            system = f"{request.system_prompt}\n\n{system}"
        return attrs.evolve(request, system_prompt=system, output=spec)
    return attrs.evolve(request, output=spec)


def _tool_description(spec: OutputSpec) -> str:
    what = f" {spec.description}" if spec.description else ""
    return f"Give your final answer by calling this tool with it.{what}"


def _prompt(spec: OutputSpec) -> str:
    schema = json.dumps(spec.schema, sort_keys=True, ensure_ascii=False)
    what = f" ({spec.description})" if spec.description else ""
    return (
        f"Give your final answer{what} as one JSON object matching this JSON Schema, and "
        f"nothing else (no prose, no code fence):\n{schema}"
    )


# -- checks ---------------------------------------------------------------------------------


def check_text(spec: OutputSpec, text: str) -> tuple[JSONValue, list[str]]:
    """The answer in a reply's text and what is wrong with it (nothing: it is valid)."""
    try:
        value = json_in_text(text)
    except ValueError as exc:
        return None, [str(exc)]
    return value, schema_errors(spec, value)


def check_call(spec: OutputSpec, call: ToolCallPart) -> tuple[JSONValue, list[str]]:
    """The answer in a call to the final-answer tool and what is wrong with it."""
    if call.input_error is not None:
        return None, [f"the arguments are not a valid JSON object ({call.input_error})"]
    value: JSONValue = dict(call.input)
    return value, schema_errors(spec, value)


def schema_errors(spec: OutputSpec, value: JSONValue) -> list[str]:
    """One line per schema violation (``at $.path: message``), sorted; empty if valid.

    A schema ``jsonschema`` cannot apply (a ``$ref`` to nothing) gives one line saying so.
    """
    return _errors(spec, value, lenient=False)


def lenient_errors(spec: OutputSpec, value: JSONValue) -> list[str]:
    """``schema_errors`` of a partial answer, without those more of it could fix."""
    return _errors(spec, value, lenient=True)


def _errors(spec: OutputSpec, value: JSONValue, *, lenient: bool) -> list[str]:
    validator = _validator(spec.schema)
    try:
        if validator.is_valid(value):
            return []
        return _lines(e for e in validator.iter_errors(value) if not (lenient and _forgiven(e)))
    except Exception as exc:  # referencing's Unresolvable and kin: the schema is at fault
        return [f"the output schema cannot be applied: {type(exc).__name__}: {exc}"]


def _forgiven(error: jsonschema.ValidationError) -> bool:
    """A partial answer's error that a longer answer could fix: a lenient keyword, or an
    ``anyOf``/``oneOf`` with one branch failing only in such ways."""
    if error.validator in LENIENT:
        return True
    if error.validator in ("anyOf", "oneOf"):
        branches: dict[Any, list[jsonschema.ValidationError]] = {}
        for sub in error.context or ():
            branches.setdefault(sub.schema_path[0] if sub.schema_path else None, []).append(sub)
        count = len(error.validator_value) if isinstance(error.validator_value, list) else 0
        if len(branches) < count:
            return True  # a branch had no error at all
        return any(all(_forgiven(e) for e in subs) for subs in branches.values())
    return False


def _lines(errors: Any) -> list[str]:
    ordered = sorted(errors, key=lambda e: [str(p) for p in e.absolute_path])
    return [f"at {json_path(e.absolute_path)}: {e.message}" for e in ordered]


@functools.lru_cache(maxsize=64)
def _compiled(schema_text: str) -> Any:
    return strict_validator()(json.loads(schema_text))


def _validator(schema: Mapping[str, Any]) -> Any:
    """The validator of ``schema``, compiled once per distinct schema."""
    return _compiled(json.dumps(schema, sort_keys=True))


# -- what the model and the caller are told --------------------------------------------------


def _listed(errors: list[str]) -> str:
    return "\n".join(f"  - {e}" for e in errors[:20])


def retry_message(spec: OutputSpec, errors: list[str], attempt: int) -> str:
    """The user message sent back after a reply whose text is not a valid answer."""
    if spec.mode == "tool":
        return (
            f"Your reply did not give the final answer. Call the {spec.name!r} tool with it "
            f"(retry {attempt} of {spec.retries})."
        )
    return (
        f"Your answer does not match the required JSON Schema (retry {attempt} of "
        f"{spec.retries}):\n{_listed(errors)}\nReply again with only the corrected JSON object."
    )


def invalid_call_text(spec: OutputSpec, errors: list[str], attempt: int) -> str:
    """The error result of a call to the final-answer tool with an invalid answer."""
    return (
        f"Invalid final answer (retry {attempt} of {spec.retries}); fix it and call "
        f"{spec.name!r} again:\n{_listed(errors)}"
    )


def failure_message(spec: OutputSpec, errors: list[str]) -> str:
    """Why a run ended with ``OUTPUT_PARSE_ERROR``."""
    tries = "the answer" if spec.retries == 0 else f"{spec.retries + 1} answers"
    return f"{tries} did not match the output schema; the last one: " + "; ".join(errors[:5])
