"""Native structured output: an ``OutputSpec``'s schema in the shape each provider takes.

Only ``mode="native"`` requests reach the providers' own fields; the loop shapes
``tool`` and ``prompted`` requests itself, and validates every answer whatever the mode,
so what is sent here only has to help the model, never to guarantee the answer:

- OpenAI (Chat Completions ``response_format``, Responses ``text.format``): a
  ``json_schema`` with the spec's name and description. ``strict`` is on when the
  schema already meets strict mode's rules (every object closed with
  ``additionalProperties: false`` and every property required), since OpenAI rejects a
  strict schema that does not; off otherwise (the model is then guided, not bound).
- Anthropic (``output_config.format``): a ``json_schema``; the API wants every object
  closed, so objects get ``additionalProperties: false`` (what the Anthropic SDK's own
  ``transform_schema`` does too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentcore import OutputSpec

from .base import plain

__all__ = ["anthropic_output_config", "closed_schema", "is_strict_schema", "openai_json_schema"]


def openai_json_schema(spec: OutputSpec) -> dict[str, Any]:
    """The ``json_schema`` object of OpenAI's structured output (name, schema, strict)."""
    schema = plain(spec.schema)
    out: dict[str, Any] = {"name": spec.name, "schema": schema, "strict": is_strict_schema(schema)}
    if spec.description:
        out["description"] = spec.description
    return out


def anthropic_output_config(spec: OutputSpec) -> dict[str, Any]:
    """The ``output_config`` of an Anthropic Messages request asking for ``spec``."""
    return {"format": {"type": "json_schema", "schema": closed_schema(spec.schema)}}


_NAMED = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})
"""Keywords whose value maps names to schemas."""
_DATA = frozenset({"default", "const", "enum", "examples", "required"})
"""Keywords whose value is data, not a schema."""


def _is_object(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object" or isinstance(schema.get("properties"), Mapping)


def is_strict_schema(schema: Any) -> bool:
    """Whether every object in ``schema`` is closed and requires all its properties."""
    if not isinstance(schema, Mapping):
        return True
    if _is_object(schema):
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False or not isinstance(properties, Mapping):
            return False
        if set(properties) != set(schema.get("required", ())):
            return False
    return all(is_strict_schema(sub) for sub in _subschemas(schema))


def _subschemas(schema: Mapping[str, Any]) -> list[Any]:
    found: list[Any] = []
    for key, value in schema.items():
        if key in _DATA:
            continue
        if key in _NAMED and isinstance(value, Mapping):
            found.extend(value.values())
        elif isinstance(value, Mapping):
            found.append(value)
        elif isinstance(value, list):
            found.extend(value)
    return found


def closed_schema(schema: Any) -> Any:
    """``schema`` as plain JSON with every object schema given ``additionalProperties:
    false`` (a schema of a mapping with free keys becomes a closed object)."""
    if not isinstance(schema, Mapping):
        return plain(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DATA:
            out[key] = plain(value)
        elif key in _NAMED and isinstance(value, Mapping):
            out[key] = {str(n): closed_schema(v) for n, v in value.items()}
        elif isinstance(value, Mapping | list):
            out[key] = (
                closed_schema(value)
                if isinstance(value, Mapping)
                else [closed_schema(v) for v in value]
            )
        else:
            out[key] = value
    if _is_object(out):
        out["additionalProperties"] = False
    return out
