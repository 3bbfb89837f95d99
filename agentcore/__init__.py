"""agentcore: a pure Mealy-machine event engine for AI-agent conversations.

The pure core (events, processors, combinators, machine, loop policy) does no I/O; drivers
feed it stream events and presenters consume its outputs. The most used names are
re-exported here; each public submodule (``agentcore.events``, ``.processors``,
``.combinators``, ``.machine``, ``.state_machine``, ``.engine``, ``.journal``, ``.loop``,
``.tools``, ``.agent``, ``.pricing``, ``.errors``, ``.testing``) holds the rest.
"""

from ._agent import Agent as Agent
from ._agent import AgentResult as AgentResult
from ._agent import AgentSnapshot as AgentSnapshot
from ._agent_processor import agent_processor as agent_processor
from ._agent_processor import (
    create_initial_agent_engine_state as create_initial_agent_engine_state,
)
from ._driver import THINKING_LEVELS as THINKING_LEVELS
from ._driver import Driver as Driver
from ._driver import Message as Message
from ._driver import ModelRequest as ModelRequest
from ._driver import ThinkingLevel as ThinkingLevel
from ._driver import ToolSpec as ToolSpec
from ._engine import AgentEngine as AgentEngine
from ._engine import create_agent as create_agent
from ._errors import AgentError as AgentError
from ._errors import ErrorCode as ErrorCode
from ._journal import Journal as Journal
from ._journal import JsonlJournal as JsonlJournal
from ._journal import MemoryJournal as MemoryJournal
from ._loop import loop_processor as loop_processor
from ._loop_state import Limits as Limits
from ._loop_state import LoopConfig as LoopConfig
from ._machine import MealyMachine as MealyMachine
from ._machine import create_mealy_machine as create_mealy_machine
from ._middleware import Reply as Reply
from ._presenter import Presenter as Presenter
from ._pricing import ModelPrice as ModelPrice
from ._processor import InitialState as InitialState
from ._processor import Processor as Processor
from ._replay import replay as replay
from ._replay import state_at as state_at
from ._state_machine import AgentState as AgentState
from ._state_machine import AgentStateMachine as AgentStateMachine
from ._store import MemoryStore as MemoryStore
from ._store import Store as Store
from ._tool_runner import ToolContext as ToolContext
from ._tools import Tool as Tool
from ._tools import ToolOutput as ToolOutput
from ._tools import define_tool as define_tool
from ._tools import tool as tool
from ._wire import from_dict as from_dict
from ._wire import to_dict as to_dict

__all__ = [
    "Agent",
    "AgentEngine",
    "AgentError",
    "AgentResult",
    "AgentSnapshot",
    "AgentState",
    "AgentStateMachine",
    "Driver",
    "ErrorCode",
    "InitialState",
    "Journal",
    "JsonlJournal",
    "Limits",
    "LoopConfig",
    "MealyMachine",
    "MemoryJournal",
    "MemoryStore",
    "Message",
    "ModelPrice",
    "ModelRequest",
    "Presenter",
    "Processor",
    "Reply",
    "Store",
    "THINKING_LEVELS",
    "ThinkingLevel",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "ToolSpec",
    "agent_processor",
    "create_agent",
    "create_initial_agent_engine_state",
    "create_mealy_machine",
    "define_tool",
    "from_dict",
    "loop_processor",
    "replay",
    "state_at",
    "to_dict",
    "tool",
]
