"""Tool-argument previews: a tool call's arguments as the model streams them.

``tool_previews()`` is a processor to add to an agent (``Agent(...,
processors={"previews": tool_previews()})``): it watches the stream, parses each tool
call's arguments so far with ``PartialJson`` and emits a ``tool_execution_update`` with
``args`` set (``progress`` is ``None``) each time they show more, the last with the
whole arguments, before the call's ``tool_execution_start``. A UI can draw a file being
written or a command being typed.

It is opt-in because it costs time on every event (a watcher sees them all, and the
arguments are parsed again as they grow: see ``partial_json`` for the bound), and most
consumers only need the complete call. Being a processor, it runs inside the fold: a
replay with the same processors delivers the same previews.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from .._core.events import InputJsonDelta, MessageStart, ToolUseStart, ToolUseStop
from .events import ToolExecutionUpdate
from .partial_json import PartialJson

__all__ = ["PreviewState", "preview_processor", "tool_previews"]

PreviewState: TypeAlias = Mapping[int, tuple[str, str, PartialJson]]
"""Block index -> ``(tool_call_id, tool_name, arguments so far)`` of the open calls."""

_EMPTY: PreviewState = {}


def preview_processor(state: PreviewState, event: Any) -> tuple[PreviewState, tuple[Any, ...]]:
    """Fold one event; emits ``tool_execution_update`` (with ``args``) when a streaming
    call's arguments show more than before."""
    cls = type(event)
    if cls is InputJsonDelta:
        open_call = state.get(event.index)
        if open_call is None or type(event.partial_json) is not str:
            return state, ()
        call_id, name, before = open_call
        after = before.extend(event.partial_json)
        new = {**state, event.index: (call_id, name, after)}
        if after.value is None or after.value == before.value:
            return new, ()
        update = ToolExecutionUpdate(call_id, name, args=after.value, timestamp=event.timestamp)
        return new, (update,)
    if cls is ToolUseStart:
        return {**state, event.index: (event.tool_call_id, event.tool_name, PartialJson())}, ()
    if cls is ToolUseStop:
        closed = state.get(event.index)
        rest = {k: v for k, v in state.items() if k != event.index}
        if closed is None:
            return rest, ()
        call_id, name, before = closed
        last = before.settled().value  # a long text's last chunks may not be parsed yet
        if last is None or last == before.value:
            return rest, ()
        return rest, (ToolExecutionUpdate(call_id, name, args=last, timestamp=event.timestamp),)
    if cls is MessageStart and state:
        return _EMPTY, ()
    return state, ()


def tool_previews() -> tuple[Callable[..., Any], Callable[[], PreviewState]]:
    """``(processor, initial_state)`` for ``Agent(processors={"previews": ...})``."""
    return preview_processor, lambda: _EMPTY
