"""The agent loop as a pure processor: its state, config, events and effect requests.

See docs/loop.md. ``loop_processor`` decides; ``agentcore.agent`` runs it.
"""

from ._history_check import history_problems as history_problems
from ._loop import loop_processor as loop_processor
from ._loop_events import AgentAbort as AgentAbort
from ._loop_events import AgentContinue as AgentContinue
from ._loop_events import AgentEnd as AgentEnd
from ._loop_events import AgentFollowUp as AgentFollowUp
from ._loop_events import AgentMessageEnd as AgentMessageEnd
from ._loop_events import AgentMessageStart as AgentMessageStart
from ._loop_events import AgentMessageUpdate as AgentMessageUpdate
from ._loop_events import AgentPrompt as AgentPrompt
from ._loop_events import AgentStart as AgentStart
from ._loop_events import AgentSteer as AgentSteer
from ._loop_events import AwaitApproval as AwaitApproval
from ._loop_events import CallModel as CallModel
from ._loop_events import CancelModel as CancelModel
from ._loop_events import CancelTools as CancelTools
from ._loop_events import ClockTick as ClockTick
from ._loop_events import Effect as Effect
from ._loop_events import ExecuteTools as ExecuteTools
from ._loop_events import Finish as Finish
from ._loop_events import SetDeadline as SetDeadline
from ._loop_events import ToolApproval as ToolApproval
from ._loop_events import ToolApprovalRequired as ToolApprovalRequired
from ._loop_events import ToolExecutionEnd as ToolExecutionEnd
from ._loop_events import ToolExecutionStart as ToolExecutionStart
from ._loop_events import ToolExecutionUpdate as ToolExecutionUpdate
from ._loop_events import ToolProgress as ToolProgress
from ._loop_events import TurnEnd as TurnEnd
from ._loop_events import TurnStart as TurnStart
from ._loop_state import Limits as Limits
from ._loop_state import LoopConfig as LoopConfig
from ._loop_state import LoopState as LoopState
from ._loop_state import QueueMode as QueueMode
from ._loop_state import SteeringPolicy as SteeringPolicy
from ._loop_state import default_convert_to_llm as default_convert_to_llm
from ._loop_state import initial_loop_state as initial_loop_state

__all__ = [
    "AgentAbort",
    "AgentContinue",
    "AgentEnd",
    "AgentFollowUp",
    "AgentMessageEnd",
    "AgentMessageStart",
    "AgentMessageUpdate",
    "AgentPrompt",
    "AgentStart",
    "AgentSteer",
    "AwaitApproval",
    "CallModel",
    "CancelModel",
    "CancelTools",
    "ClockTick",
    "Effect",
    "ExecuteTools",
    "Finish",
    "Limits",
    "LoopConfig",
    "LoopState",
    "QueueMode",
    "SetDeadline",
    "SteeringPolicy",
    "ToolApproval",
    "ToolApprovalRequired",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "ToolProgress",
    "TurnEnd",
    "TurnStart",
    "default_convert_to_llm",
    "history_problems",
    "initial_loop_state",
    "loop_processor",
]
