"""Tool calls awaiting their result: the one table and its rules.

A call is *awaited* once its input is complete (``tool_use_stop``, or the message's end
for a call that never got one) and until a ``tool_result`` answers it. The message
assembler (which accepts a result only for an awaited call) and the state-event processor
(which announces ``tool_completed``/``tool_failed`` for one) keep this table by these
rules and no other; the state-event processor also forgets it when an interrupt or an
error ends the conversation (its calls are no longer shown as running), while the
assembler still accepts their results (the loop answers cancelled calls). A property
test holds the two tables equal while a conversation runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

__all__ = ["Awaiting", "NOTHING_AWAITED", "answered", "awaited"]

Awaiting: TypeAlias = Mapping[str, str]
"""Call id -> tool name, for every call whose result is awaited: a ``dict`` that is never
changed once built (a message has few calls, so a copy costs less than a persistent map's
update)."""

NOTHING_AWAITED: Awaiting = {}


def awaited(table: Awaiting, call_id: str, tool_name: str) -> Awaiting:
    """``table`` once ``call_id``'s input is complete."""
    return {**table, call_id: tool_name}


def answered(table: Awaiting, call_id: object) -> tuple[Awaiting, str | None]:
    """``table`` once ``call_id``'s result came, and the tool's name; ``(table, None)``
    when no awaited call has that id (a result to ignore or reject)."""
    if not isinstance(call_id, str):
        return table, None
    name = table.get(call_id)
    if name is None:
        return table, None
    return {key: value for key, value in table.items() if key != call_id}, name
