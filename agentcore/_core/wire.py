"""The wire form of events: ``{"type": ..., "timestamp": ..., "data": {...}}``.

``to_dict`` and ``from_dict`` are exact inverses for every registered event type (a
property test holds them to it). The result of ``to_dict`` contains only JSON types:
nested values (usage, parts, content blocks) become dicts, tuples become lists, and an
event nested in another (a loop event carrying a message) takes its own full wire form.

``from_dict`` is a boundary for untrusted input: whatever it is given, it returns an
event or raises ``InvalidEventError``. It converts nothing: ``"12"`` is not a count and
``1`` is not ``true``; the events' own field checks (``agentcore._core.checks``) decide
what each field accepts, so a wire dict and a hand-built event are held to one rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .checks import check_keys, shown
from .errors import InvalidEventError
from .events import EVENT_TYPES, is_event

__all__ = ["from_dict", "to_dict"]

_FIELDS: dict[type[Any], tuple[str, ...]] = {}
_REQUIRED: dict[type[Any], tuple[str, ...]] = {}


def _fields_of(cls: type[Any]) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        fields = [f for f in attrs.fields(cls) if f.name != "timestamp"]
        names = tuple(f.name for f in fields)
        _FIELDS[cls] = names
        _REQUIRED[cls] = tuple(f.name for f in fields if f.default is attrs.NOTHING)
    return names


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise InvalidEventError(f"cannot encode a mapping with non-str keys: {shown(value)}")
        return {k: _encode(v) for k, v in value.items()}
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
    raise InvalidEventError(f"cannot encode {shown(value)} in an event's wire form")


def to_dict(event: Any) -> dict[str, Any]:
    """Return the wire form of ``event``: only JSON types, snake_case keys.

    Raises ``InvalidEventError`` for an object that is not a registered event, or that
    holds a value with no wire form (possible only in a field typed ``Any``).
    """
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

    Raises ``InvalidEventError`` (a ``ValueError``) naming what is wrong, and nothing
    else, whatever ``d`` is: an unknown ``type``, a missing or unknown field, a key that
    is not a string, or a field of the wrong type or shape (see the event's field checks:
    counts are ints >= 0, JSON values nest at most ``MAX_JSON_DEPTH`` levels, ...).
    """
    if not isinstance(d, Mapping):
        raise InvalidEventError(f"an event must be a mapping, got {shown(d)}")
    kind = d.get("type")
    cls = EVENT_TYPES.get(kind) if type(kind) is str else None
    if cls is None or type(kind) is not str:
        got = repr(kind) if type(kind) is str else shown(kind)
        raise InvalidEventError(
            f"unknown event type {got}; known types: {', '.join(sorted(EVENT_TYPES))}"
        )
    data = d.get("data", {})
    if not isinstance(data, Mapping):
        raise InvalidEventError(f"{kind}: 'data' must be a mapping, got {shown(data)}")
    check_keys(kind, data, _fields_of(cls), _REQUIRED[cls])
    try:
        return cls(**data, timestamp=d.get("timestamp", 0))
    except InvalidEventError:
        raise
    except RecursionError:
        # events nested in events (a loop event carrying a message) rebuild recursively
        raise InvalidEventError(f"{kind}: events nested too deeply") from None
    except (TypeError, ValueError) as exc:
        # a converter of a class that does not check its fields (see checks.py)
        raise InvalidEventError(f"{kind}: {type(exc).__name__}: {exc}") from None
