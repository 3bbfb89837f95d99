"""The one clock and id source: the runtime's millisecond clock, ids, and the stamping of
inputs and user messages. Drivers, sessions, the durable worker and the runtime read the
time and make ids here (a test or a replay passes its own ``clock``/``id_factory``)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import attrs

from .._core.content import CONTENT_CLASSES
from .._core.events import UserMessage

__all__ = ["ms_clock", "new_id", "stamp_message", "stamped"]


def ms_clock() -> int:
    """Wall-clock milliseconds: the default stamp of events that carry none."""
    return time.time_ns() // 1_000_000


def new_id() -> str:
    """A random 16-hex-digit id: the default for message and agent ids."""
    return uuid.uuid4().hex[:16]


def stamped(event: Any, now: int) -> Any:
    """``event`` with ``timestamp`` ``now`` when it has none (0): what every input gets
    before it is journaled (an evolved copy; anything else is returned unchanged)."""
    if getattr(event, "timestamp", 1) == 0:
        return attrs.evolve(event, timestamp=now)
    return event


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
