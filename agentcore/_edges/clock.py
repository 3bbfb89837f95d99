"""The one clock and id source: the runtime's millisecond clock, ids, and the stamping of
inputs and user messages. Drivers, sessions, the durable worker and the runtime read the
time and make ids here (a test or a replay passes its own ``clock``/``id_factory``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from os import urandom
from typing import Any

import attrs

from .._core.content import CONTENT_CLASSES
from .._core.events import UserMessage

__all__ = ["ms_clock", "new_id", "stamp_message", "stamped"]


def ms_clock() -> int:
    """Wall-clock milliseconds: the default stamp of events that carry none."""
    return time.time_ns() // 1_000_000


def new_id() -> str:
    """A random 16-hex-digit id: the default for message and agent ids (64 random bits,
    read at a third of the cost of a ``uuid4``)."""
    return urandom(8).hex()


def stamped(event: Any, now: int) -> Any:
    """``event`` with ``timestamp`` ``now`` when it has none (0): what every input gets
    before it is journaled (a copy; anything else is returned unchanged).

    The copy is made slot by slot, without running the class's converters and checks
    again (they passed when ``event`` was built, and only an ``int`` stamp is copied
    in): a third of ``attrs.evolve``'s cost. Any other stamp, or a class that is not a
    frozen, slotted attrs class, goes through ``attrs.evolve``."""
    if getattr(event, "timestamp", 1) != 0:
        return event
    cls = type(event)
    names = _SLOTS.get(cls)
    if names is None:
        names = _SLOTS[cls] = _copied(cls)
    if not names or type(now) is not int:
        return attrs.evolve(event, timestamp=now)
    copy = object.__new__(cls)
    for name in names:
        _set(copy, name, getattr(event, name))
    _set(copy, "timestamp", now)
    return copy


_set = object.__setattr__
_SLOTS: dict[type[Any], tuple[str, ...]] = {}
"""A class -> the fields ``stamped`` copies (empty: it evolves instead)."""


def _copied(cls: type[Any]) -> tuple[str, ...]:
    """The fields of ``cls`` but ``timestamp``, when a slot copy of an instance is the
    instance ``attrs.evolve`` would build (nothing derived from the stamp, no cached
    hash); ``()`` otherwise."""
    if not attrs.has(cls) or "__slots__" not in vars(cls) or "__dict__" in dir(cls):
        return ()
    names = tuple(a.name for a in attrs.fields(cls))
    if "timestamp" not in names or "__attrs_cached_hash__" in vars(cls)["__slots__"]:
        return ()
    return tuple(n for n in names if n != "timestamp")


_CONTENT_PARTS = tuple(CONTENT_CLASSES)


def stamp_message(message: Any, clock: Callable[[], int], id_factory: Callable[[], str]) -> Any:
    """A ``str`` or a content part (an image, a document...) becomes a ``UserMessage``; a
    ``UserMessage`` gets a ``message_id`` and a timestamp when it has none (an evolved
    copy); anything else is returned unchanged."""
    if isinstance(message, str):
        return UserMessage(message_id=id_factory(), content=message, timestamp=clock())
    if isinstance(message, _CONTENT_PARTS):
        return UserMessage(message_id=id_factory(), content=(message,), timestamp=clock())
    if not isinstance(message, UserMessage):
        return message
    changes: dict[str, Any] = {}
    if not message.message_id:
        changes["message_id"] = id_factory()
    if message.timestamp == 0:
        changes["timestamp"] = clock()
    return attrs.evolve(message, **changes) if changes else message
