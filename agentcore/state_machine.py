"""The agent's current activity (idle, thinking, responding, tools, error) from state events.

See docs/machine.md for the transition table.
"""

from ._core.state_machine import TRANSITIONS as TRANSITIONS
from ._core.state_machine import WHILE_TOOLS_PENDING as WHILE_TOOLS_PENDING
from ._core.state_machine import AgentState as AgentState
from ._core.state_machine import AgentStateMachine as AgentStateMachine
from ._core.state_machine import StateChange as StateChange
from ._core.state_machine import StateChangeHandler as StateChangeHandler

__all__ = [
    "AgentState",
    "AgentStateMachine",
    "StateChange",
    "StateChangeHandler",
    "TRANSITIONS",
    "WHILE_TOOLS_PENDING",
]
