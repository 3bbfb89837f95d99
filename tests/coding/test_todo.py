"""todo_read and todo_write share a TodoStore; the schema keeps statuses and priorities."""

from __future__ import annotations

from typing import Any

from agentcore.coding import TodoItem, TodoStore, create_todo_read_tool, create_todo_write_tool


def test_write_replaces_the_list_and_read_shows_it(call: Any) -> None:
    store = TodoStore()
    write, read = create_todo_write_tool(store), create_todo_read_tool(store)
    todos = [
        {"content": "write tests", "status": "completed", "priority": "high"},
        {"content": "fix bug", "status": "in_progress", "priority": "high"},
        {"content": "docs", "status": "pending", "priority": "low"},
        {"content": "old idea", "status": "cancelled", "priority": "medium"},
    ]
    out = call(write, todos=todos)
    assert out.details == {"todos": todos, "incomplete_count": 2}
    assert store.items[1] == TodoItem("fix bug", "in_progress", "high")
    assert call(read).content == out.content
    call(write, todos=todos[:1])
    assert store.incomplete == 0 and len(store.items) == 1


def test_bad_items_are_rejected_by_the_schema() -> None:
    write = create_todo_write_tool(TodoStore())
    assert write.validation_errors(
        {"todos": [{"content": "x", "status": "doing", "priority": "high"}]}
    )
    assert write.validation_errors({"todos": [{"content": "x", "status": "pending"}]})
    assert not write.validation_errors({"todos": []})
