"""The ``todo_read`` and ``todo_write`` tools over a ``TodoStore``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import attrs

from .._loop.tools import Tool, ToolOutput, define_tool

__all__ = ["TodoItem", "TodoStore", "create_todo_read_tool", "create_todo_write_tool"]

Status = Literal["pending", "in_progress", "completed", "cancelled"]
Priority = Literal["high", "medium", "low"]
STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed", "cancelled")
PRIORITIES: tuple[Priority, ...] = ("high", "medium", "low")


@attrs.frozen(slots=True)
class TodoItem:
    """One task of the list."""

    content: str
    status: Status = "pending"
    priority: Priority = "medium"

    @property
    def done(self) -> bool:
        return self.status in ("completed", "cancelled")


class TodoStore:
    """The agent's todo list; ``todo_write`` replaces it whole, ``todo_read`` shows it.

    One store per agent (tools created with the same store share it). ``items`` is an
    immutable snapshot, so a UI may keep it while the list changes.
    """

    def __init__(self, items: Iterable[TodoItem] = ()) -> None:
        self.items: tuple[TodoItem, ...] = tuple(items)

    def __repr__(self) -> str:
        return f"TodoStore({len(self.items)} items, {self.incomplete} incomplete)"

    @property
    def incomplete(self) -> int:
        return sum(not item.done for item in self.items)

    def replace(self, items: Iterable[TodoItem]) -> None:
        self.items = tuple(items)

    def as_json(self) -> list[dict[str, str]]:
        return [attrs.asdict(item) for item in self.items]


def _output(store: TodoStore) -> ToolOutput:
    todos = store.as_json()
    return ToolOutput(
        {"todos": todos, "incomplete": store.incomplete},
        details={"todos": todos, "incomplete_count": store.incomplete},
    )


def create_todo_read_tool(store: TodoStore) -> Tool:
    """``todo_read()``: the list as JSON with the number of incomplete items. Details:
    ``todos``, ``incomplete_count``."""

    async def todo_read(args: dict[str, Any], ctx: Any) -> ToolOutput:
        return _output(store)

    return define_tool(
        "todo_read",
        "Read your todo list: each item's content, status and priority.",
        {"type": "object", "properties": {}, "additionalProperties": False},
        todo_read,
        idempotent=True,
    )


def create_todo_write_tool(store: TodoStore) -> Tool:
    """``todo_write(todos)``: replace the list (send it whole each time). Details as
    ``todo_read``."""

    async def todo_write(args: dict[str, Any], ctx: Any) -> ToolOutput:
        store.replace(TodoItem(**todo) for todo in args["todos"])
        return _output(store)

    item = {
        "type": "object",
        "properties": {
            "content": {"type": "string", "minLength": 1},
            "status": {"enum": list(STATUSES)},
            "priority": {"enum": list(PRIORITIES)},
        },
        "required": ["content", "status", "priority"],
        "additionalProperties": False,
    }
    return define_tool(
        "todo_write",
        "Replace your todo list with `todos` (the whole list, every time). Use it to plan "
        "multi-step work and mark progress: one item in_progress at a time.",
        {
            "type": "object",
            "properties": {"todos": {"type": "array", "items": item}},
            "required": ["todos"],
            "additionalProperties": False,
        },
        todo_write,
    )
