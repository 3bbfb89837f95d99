"""The wire form of events: ``{"type": ..., "timestamp": ..., "data": {...}}``.

``to_dict`` and ``from_dict`` are exact inverses for every registered event type (a
property test holds them to it). The result of ``to_dict`` contains only JSON types:
nested values (usage, parts, content blocks) become dicts, tuples become lists, and an
event nested in another (a loop event carrying a message) takes its own full wire form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .errors import InvalidEventError
from .events import EVENT_TYPES, is_event

__all__ = ["from_dict", "to_dict"]

_FIELDS: dict[type[Any], tuple[str, ...]] = {}
_REQUIRED: dict[type[Any], frozenset[str]] = {}
_PRIMITIVES: dict[type[Any], dict[str, tuple[type[Any], ...]]] = {}
_SIMPLE = {"str": (str,), "int": (int,), "bool": (bool,), "float": (float, int)}


def _fields_of(cls: type[Any]) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        fields = [f for f in attrs.fields(cls) if f.name != "timestamp"]
        names = tuple(f.name for f in fields)
        _FIELDS[cls] = names
        _REQUIRED[cls] = frozenset(f.name for f in fields if f.default is attrs.NOTHING)
        _PRIMITIVES[cls] = {
            f.name: allowed for f in fields if (allowed := _allowed_types(f.type)) is not None
        }
    return names


def _allowed_types(annotation: Any) -> tuple[type[Any], ...] | None:
    """Python types a primitive field accepts, or None when the field is not primitive."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    allowed: tuple[type[Any], ...] = ()
    for member in (m.strip() for m in text.split("|")):
        if member == "None":
            allowed += (type(None),)
        elif member in _SIMPLE:
            allowed += _SIMPLE[member]
        elif member not in ("StopReason",):
            return None
        else:
            allowed += (str,)
    return allowed or None


def _check_primitives(kind: str, cls: type[Any], data: Mapping[str, Any]) -> None:
    for name, allowed in _PRIMITIVES[cls].items():
        if name in data:
            value = data[name]
            wrong_bool = isinstance(value, bool) and bool not in allowed
            if wrong_bool or not isinstance(value, allowed):
                expected = " or ".join(t.__name__ for t in allowed)
                raise InvalidEventError(
                    f"{kind}: field {name!r} must be {expected}, got {type(value).__name__}"
                )


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _encode(v) for k, v in value.items()}
    if is_event(value):
        return to_dict(value)  # a nested event keeps its own timestamp
    if attrs.has(type(value)):
        out: dict[str, Any] = {}
        tag = getattr(type(value), "type", None)
        if isinstance(tag, str):
            out["type"] = tag
        for name in _fields_of(type(value)):
            out[name] = _encode(getattr(value, name))
        return out
    raise TypeError(f"cannot encode {type(value).__name__} in an event's wire form")


def to_dict(event: Any) -> dict[str, Any]:
    """Return the wire form of ``event``: only JSON types, snake_case keys."""
    cls = type(event)
    if not is_event(event):
        raise InvalidEventError(f"{cls.__name__} is not a registered event type")
    return {
        "type": cls.type,
        "timestamp": event.timestamp,
        "data": {name: _encode(getattr(event, name)) for name in _fields_of(cls)},
    }


def from_dict(d: Mapping[str, Any]) -> Any:
    """Rebuild an event from its wire form.

    Raises ``InvalidEventError`` (a ``ValueError``) naming what is wrong: an unknown
    ``type``, a missing or unknown field, or a field of the wrong shape.
    """
    if not isinstance(d, Mapping):
        raise InvalidEventError(f"an event must be a mapping, got {type(d).__name__}")
    kind = d.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None or not isinstance(kind, str):
        raise InvalidEventError(
            f"unknown event type {kind!r}; known types: {', '.join(sorted(EVENT_TYPES))}"
        )
    timestamp = d.get("timestamp", 0)
    if not isinstance(timestamp, int) or isinstance(timestamp, bool):
        raise InvalidEventError(f"{kind}: 'timestamp' must be an integer (ms), got {timestamp!r}")
    data = d.get("data", {})
    if not isinstance(data, Mapping):
        raise InvalidEventError(f"{kind}: 'data' must be a mapping, got {type(data).__name__}")
    names = _fields_of(cls)
    missing = _REQUIRED[cls] - data.keys()
    if missing:
        raise InvalidEventError(f"{kind}: missing field(s) {', '.join(sorted(missing))}")
    unknown = data.keys() - set(names)
    if unknown:
        raise InvalidEventError(
            f"{kind}: unknown field(s) {', '.join(sorted(unknown))}; fields are {', '.join(names)}"
        )
    _check_primitives(kind, cls, data)
    try:
        return cls(**data, timestamp=timestamp)
    except (TypeError, ValueError) as exc:
        raise InvalidEventError(f"{kind}: {exc}") from None
