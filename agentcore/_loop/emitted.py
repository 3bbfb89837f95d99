"""The loop's own outputs on a run's path, built without their checks (``records.builder``).

Each takes every field in order, ``timestamp`` last, by position. Their values are the
loop's: taken from inputs that passed their checks (a prompt's messages, a reply, its
usage, a tool result) or made by the loop itself (a turn number, a sum of ``Usage``s, a
cost), so each converter would hand them back unchanged. What a builder saves is that
check: about half the cost of a small event, a dozen times per run. Outputs made of
values a caller chose go through their class.
"""

from __future__ import annotations

from .._core.events import ConversationClose
from .._core.records import builder
from .events import (
    AgentEnd,
    AgentMessageEnd,
    AgentMessageStart,
    AgentStart,
    Finish,
    ModelUsage,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnEnd,
    TurnStart,
)

__all__ = [
    "agent_end",
    "agent_message_end",
    "agent_message_start",
    "agent_start",
    "conversation_close",
    "finish",
    "model_usage",
    "tool_execution_end",
    "tool_execution_start",
    "turn_end",
    "turn_start",
]

agent_start = builder(AgentStart)
agent_end = builder(AgentEnd)
agent_message_start = builder(AgentMessageStart)
agent_message_end = builder(AgentMessageEnd)
conversation_close = builder(ConversationClose)
finish = builder(Finish)
model_usage = builder(ModelUsage)
tool_execution_start = builder(ToolExecutionStart)
tool_execution_end = builder(ToolExecutionEnd)
turn_start = builder(TurnStart)
turn_end = builder(TurnEnd)
