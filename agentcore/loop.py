"""The agent loop as a pure processor, and the conversation processor it is part of.

See docs/loop.md. ``loop_processor`` decides; ``conversation_processor`` composes it with
the core processors; ``agentcore.agent`` runs it.
"""

from ._loop.compaction import SUMMARY_INSTRUCTIONS as SUMMARY_INSTRUCTIONS
from ._loop.compaction import SUMMARY_SYSTEM_PROMPT as SUMMARY_SYSTEM_PROMPT
from ._loop.compaction import ClearToolResults as ClearToolResults
from ._loop.compaction import Compaction as Compaction
from ._loop.compaction import ContextView as ContextView
from ._loop.compaction import KeepLastTurns as KeepLastTurns
from ._loop.compaction import Summarise as Summarise
from ._loop.compaction import context_tokens as context_tokens
from ._loop.compaction import estimate_tokens as estimate_tokens
from ._loop.compaction import render_view as render_view
from ._loop.compaction import turn_starts as turn_starts
from ._loop.conversation import STREAM_INPUTS as STREAM_INPUTS
from ._loop.conversation import conversation_processor as conversation_processor
from ._loop.conversation import create_conversation as create_conversation
from ._loop.conversation import create_conversation_machine as create_conversation_machine
from ._loop.conversation import (
    create_initial_conversation_state as create_initial_conversation_state,
)
from ._loop.conversation import snapshot_of as snapshot_of
from ._loop.events import EFFECTS as EFFECTS
from ._loop.events import AgentAbort as AgentAbort
from ._loop.events import AgentConfigured as AgentConfigured
from ._loop.events import AgentContinue as AgentContinue
from ._loop.events import AgentEnd as AgentEnd
from ._loop.events import AgentFollowUp as AgentFollowUp
from ._loop.events import AgentMessageEnd as AgentMessageEnd
from ._loop.events import AgentMessageStart as AgentMessageStart
from ._loop.events import AgentOutput as AgentOutput
from ._loop.events import AgentPrompt as AgentPrompt
from ._loop.events import AgentReset as AgentReset
from ._loop.events import AgentResume as AgentResume
from ._loop.events import AgentStart as AgentStart
from ._loop.events import AgentSteer as AgentSteer
from ._loop.events import AnswerElicitation as AnswerElicitation
from ._loop.events import AwaitApproval as AwaitApproval
from ._loop.events import AwaitElicitation as AwaitElicitation
from ._loop.events import CacheBust as CacheBust
from ._loop.events import CallModel as CallModel
from ._loop.events import CancelModel as CancelModel
from ._loop.events import CancelTools as CancelTools
from ._loop.events import CheckOutput as CheckOutput
from ._loop.events import ClockTick as ClockTick
from ._loop.events import ContextCompacted as ContextCompacted
from ._loop.events import ContextSummary as ContextSummary
from ._loop.events import Effect as Effect
from ._loop.events import ElicitationAnswer as ElicitationAnswer
from ._loop.events import ElicitationRequest as ElicitationRequest
from ._loop.events import ExecuteTools as ExecuteTools
from ._loop.events import Finish as Finish
from ._loop.events import GuardrailTripped as GuardrailTripped
from ._loop.events import InputRejected as InputRejected
from ._loop.events import ModelCallRetry as ModelCallRetry
from ._loop.events import ModelUsage as ModelUsage
from ._loop.events import OutputPassed as OutputPassed
from ._loop.events import OutputRetry as OutputRetry
from ._loop.events import RunForgotten as RunForgotten
from ._loop.events import SetTimer as SetTimer
from ._loop.events import SummariseContext as SummariseContext
from ._loop.events import ToolApproval as ToolApproval
from ._loop.events import ToolApprovalRequired as ToolApprovalRequired
from ._loop.events import ToolExecutionEnd as ToolExecutionEnd
from ._loop.events import ToolExecutionStart as ToolExecutionStart
from ._loop.events import ToolExecutionUpdate as ToolExecutionUpdate
from ._loop.events import ToolProgress as ToolProgress
from ._loop.events import TurnEnd as TurnEnd
from ._loop.events import TurnStart as TurnStart
from ._loop.history_check import history_problems as history_problems
from ._loop.output import lenient_errors as lenient_errors
from ._loop.output import output_spec as output_spec
from ._loop.output import schema_errors as schema_errors
from ._loop.partial_json import PartialJson as PartialJson
from ._loop.partial_json import is_prefix as is_prefix
from ._loop.partial_json import json_in_text as json_in_text
from ._loop.partial_json import parse_partial as parse_partial
from ._loop.policy import PHASES as PHASES
from ._loop.policy import TRANSITIONS as TRANSITIONS
from ._loop.policy import loop_processor as loop_processor
from ._loop.previews import preview_processor as preview_processor
from ._loop.previews import tool_previews as tool_previews
from ._loop.state import Limits as Limits
from ._loop.state import LoopConfig as LoopConfig
from ._loop.state import LoopState as LoopState
from ._loop.state import PendingSummary as PendingSummary
from ._loop.state import QueueMode as QueueMode
from ._loop.state import SteeringPolicy as SteeringPolicy
from ._loop.state import default_convert_to_llm as default_convert_to_llm
from ._loop.state import initial_loop_state as initial_loop_state

__all__ = [
    "AgentAbort",
    "AgentConfigured",
    "AgentContinue",
    "AgentEnd",
    "AgentFollowUp",
    "AgentMessageEnd",
    "AgentMessageStart",
    "AgentOutput",
    "AgentPrompt",
    "AgentReset",
    "AgentResume",
    "AgentStart",
    "AgentSteer",
    "AnswerElicitation",
    "AwaitApproval",
    "AwaitElicitation",
    "CacheBust",
    "CallModel",
    "CancelModel",
    "CancelTools",
    "CheckOutput",
    "ClearToolResults",
    "ClockTick",
    "Compaction",
    "ContextCompacted",
    "ContextSummary",
    "ContextView",
    "EFFECTS",
    "Effect",
    "ElicitationAnswer",
    "ElicitationRequest",
    "ExecuteTools",
    "Finish",
    "GuardrailTripped",
    "InputRejected",
    "KeepLastTurns",
    "Limits",
    "LoopConfig",
    "LoopState",
    "ModelCallRetry",
    "ModelUsage",
    "OutputPassed",
    "OutputRetry",
    "PHASES",
    "PartialJson",
    "PendingSummary",
    "QueueMode",
    "RunForgotten",
    "STREAM_INPUTS",
    "SUMMARY_INSTRUCTIONS",
    "SUMMARY_SYSTEM_PROMPT",
    "SetTimer",
    "SteeringPolicy",
    "Summarise",
    "SummariseContext",
    "TRANSITIONS",
    "ToolApproval",
    "ToolApprovalRequired",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "ToolProgress",
    "TurnEnd",
    "TurnStart",
    "context_tokens",
    "conversation_processor",
    "create_conversation",
    "create_conversation_machine",
    "create_initial_conversation_state",
    "default_convert_to_llm",
    "estimate_tokens",
    "history_problems",
    "initial_loop_state",
    "is_prefix",
    "json_in_text",
    "lenient_errors",
    "loop_processor",
    "output_spec",
    "parse_partial",
    "preview_processor",
    "render_view",
    "schema_errors",
    "snapshot_of",
    "tool_previews",
    "turn_starts",
]
