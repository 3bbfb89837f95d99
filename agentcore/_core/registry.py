"""The registry of event types: wire name -> class, and wire name -> layer.

Every layer registers its event classes here with ``event_type``, so that ``from_dict``,
the docs and the journal know all of them; ``is_event`` tells a registered event from any
other object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["EVENT_TYPES", "LAYERS", "event_type", "is_event"]

EVENT_TYPES: dict[str, type[Any]] = {}
"""Wire name -> event class, for every registered event of every layer."""

LAYERS: dict[str, str] = {}
"""Wire name -> layer name (``stream``, ``message``, ``state``, ``turn``, ``loop``...)."""

_CLASSES: set[type[Any]] = set()
"""Every registered class (``is_event`` asks it in one lookup)."""

_E = TypeVar("_E")


def event_type(name: str, layer: str) -> Callable[[type[_E]], type[_E]]:
    """Register an event class under its wire ``name`` in ``layer``.

    Used by ``agentcore._core.events`` and later layers (the agent loop) so that ``from_dict``
    and the docs know every event. Names must be unique across layers. Apply it above
    ``attrs.frozen(slots=True)`` and ``checked`` (see ``agentcore._core.checks``), so that
    the registered class checks its fields at construction.
    """

    def register(cls: type[_E]) -> type[_E]:
        if name in EVENT_TYPES:
            raise ValueError(f"event type {name!r} is already registered by {EVENT_TYPES[name]}")
        if getattr(cls, "type", None) != name:
            raise ValueError(f"{cls.__name__}.type must be {name!r}")
        EVENT_TYPES[name] = cls
        LAYERS[name] = layer
        _CLASSES.add(cls)
        return cls

    return register


def is_event(value: object) -> bool:
    """Whether ``value`` is an instance of the event class registered under its ``type``
    (a subclass's instance is not: ``type(value)`` itself must be registered)."""
    return type(value) in _CLASSES
