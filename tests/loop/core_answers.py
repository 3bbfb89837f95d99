"""The core's side of a tool answer, for tests that drive ``loop_processor`` alone."""

from __future__ import annotations

from typing import Any

from agentcore.events import ToolResult, ToolResultMessage


def as_core_answers(state: Any, outputs: Any) -> list[Any]:
    """The ``tool_result_message`` the core makes of each ``tool_result`` the loop let in
    or made itself, as the conversation processor feeds it back to the loop."""
    batch = state.batch
    return [
        ToolResultMessage.answering(
            o, batch.name_of(o.tool_call_id) if batch and o.tool_call_id in batch.positions else ""
        )
        for o in outputs
        if isinstance(o, ToolResult)
    ]
