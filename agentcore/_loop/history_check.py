"""A provider-validity check for conversation histories.

Providers reject histories where a tool call has no result, a result answers no call,
an assistant message is empty, or two assistant messages follow each other. The loop
guarantees none of these after any run, including aborted ones; this check states the
guarantee so tests (and users' own processors) can hold code to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._core.events import AssistantMessage, ToolResultMessage
from .state import default_convert_to_llm

__all__ = ["history_problems"]


def history_problems(messages: Sequence[Any]) -> list[str]:
    """Every reason a provider would reject ``messages`` (after default conversion).

    Checks: the first message is not the assistant's; no assistant message is empty or
    follows another assistant message; every tool call is answered by exactly one result
    before the next assistant or user message; every result answers an open call.
    """
    problems: list[str] = []
    open_calls: dict[str, str] = {}
    previous = ""
    for i, m in enumerate(default_convert_to_llm(messages)):
        if isinstance(m, ToolResultMessage):
            if open_calls.pop(m.tool_call_id, None) is None:
                problems.append(f"#{i}: result for {m.tool_call_id!r} answers no open tool call")
            previous = "tool"
            continue
        if open_calls:
            problems.append(f"#{i}: tool call(s) {sorted(open_calls)} were never answered")
            open_calls = {}
        if isinstance(m, AssistantMessage):
            if not m.parts:
                problems.append(f"#{i}: empty assistant message")
            if previous in ("", "assistant"):
                problems.append(f"#{i}: assistant message follows {previous or 'nothing'}")
            open_calls = {c.tool_call_id: c.tool_name for c in m.tool_calls}
            previous = "assistant"
        else:
            previous = "user"
    if open_calls:
        problems.append(f"end: tool call(s) {sorted(open_calls)} were never answered")
    return problems
