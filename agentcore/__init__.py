"""agentcore: a pure Mealy-machine event engine for AI-agent conversations.

The pure core (events, processors, combinators, machine, loop policy) does no I/O; drivers
feed it stream events and presenters consume its outputs. The most used names are
re-exported here; each public submodule (``agentcore.events``, ``.processors``,
``.combinators``, ``.machine``, ``.state_machine``, ``.engine``, ``.journal``, ``.loop``,
``.tools``, ``.agent``, ``.middleware``, ``.extensions``, ``.guardrails``, ``.pricing``,
``.errors``, ``.testing``) holds the rest. The drivers and presenters are
``agentcore.drivers`` and ``agentcore.presenters``.

The re-exported names are imported on first use (PEP 562): ``import agentcore`` and the
pure core's submodules (``agentcore.events``, ``agentcore.machine``) do not load the
runtime, the journals or ``jsonschema`` until a name that needs them is asked for.
"""

from __future__ import annotations

import importlib
import warnings

from . import _aliases

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: 3 ms of `import agentcore`
if TYPE_CHECKING:
    from typing import Any

    from ._core.agent_processor import agent_processor as agent_processor
    from ._core.agent_processor import (
        create_initial_agent_engine_state as create_initial_agent_engine_state,
    )
    from ._core.caching import Cache as Cache
    from ._core.content import TextContent as TextContent
    from ._core.driver import OUTPUT_MODES as OUTPUT_MODES
    from ._core.driver import THINKING_LEVELS as THINKING_LEVELS
    from ._core.driver import Message as Message
    from ._core.driver import ModelRequest as ModelRequest
    from ._core.driver import OutputMode as OutputMode
    from ._core.driver import OutputSpec as OutputSpec
    from ._core.driver import ThinkingLevel as ThinkingLevel
    from ._core.driver import ToolSpec as ToolSpec
    from ._core.errors import AgentError as AgentError
    from ._core.errors import ErrorCode as ErrorCode
    from ._core.machine import MealyMachine as MealyMachine
    from ._core.machine import create_mealy_machine as create_mealy_machine
    from ._core.media import AudioContent as AudioContent
    from ._core.media import DocumentContent as DocumentContent
    from ._core.media import FileContent as FileContent
    from ._core.media import ImageContent as ImageContent
    from ._core.pricing import ModelPrice as ModelPrice
    from ._core.processor import InitialState as InitialState
    from ._core.processor import Processor as Processor
    from ._core.provider_tools import CodeExecution as CodeExecution
    from ._core.provider_tools import WebFetch as WebFetch
    from ._core.provider_tools import WebSearch as WebSearch
    from ._core.state_machine import AgentState as AgentState
    from ._core.state_machine import AgentStateMachine as AgentStateMachine
    from ._core.store import MemoryStore as MemoryStore
    from ._core.store import Store as Store
    from ._core.wire import from_dict as from_dict
    from ._core.wire import to_dict as to_dict
    from ._edges.clock import ms_clock as ms_clock
    from ._edges.clock import stamped as stamped
    from ._edges.driver import BaseDriver as BaseDriver
    from ._edges.driver import Driver as Driver
    from ._edges.driver import as_driver as as_driver
    from ._edges.presenter import Presenter as Presenter
    from ._journal.journal import Journal as Journal
    from ._journal.journal import JsonlJournal as JsonlJournal
    from ._journal.journal import MemoryJournal as MemoryJournal
    from ._journal.replay import replay as replay
    from ._journal.replay import state_at as state_at
    from ._loop.compaction import ClearToolResults as ClearToolResults
    from ._loop.compaction import Compaction as Compaction
    from ._loop.compaction import KeepLastTurns as KeepLastTurns
    from ._loop.compaction import Summarise as Summarise
    from ._loop.conversation import AgentSnapshot as AgentSnapshot
    from ._loop.lineage import SubagentEvent as SubagentEvent
    from ._loop.policy import loop_processor as loop_processor
    from ._loop.state import Limits as Limits
    from ._loop.state import LoopConfig as LoopConfig
    from ._loop.tools import Tool as Tool
    from ._loop.tools import ToolOutput as ToolOutput
    from ._loop.tools import define_tool as define_tool
    from ._loop.tools import tool as tool
    from ._runtime.agent import Agent as Agent
    from ._runtime.agent import AgentResult as AgentResult
    from ._runtime.agent import create_agent as create_agent
    from ._runtime.fallback import FallbackDriver as FallbackDriver
    from ._runtime.fallback import ProviderLimits as ProviderLimits
    from ._runtime.fallback import falls_back as falls_back
    from ._runtime.media import load_media as load_media
    from ._runtime.middleware import Reply as Reply
    from ._runtime.tool_runner import ToolContext as ToolContext

_SOURCES = {
    "Agent": "._runtime.agent",
    "AgentError": "._core.errors",
    "AgentResult": "._runtime.agent",
    "AgentSnapshot": "._loop.conversation",
    "AgentState": "._core.state_machine",
    "AgentStateMachine": "._core.state_machine",
    "AudioContent": "._core.media",
    "BaseDriver": "._edges.driver",
    "Cache": "._core.caching",
    "ClearToolResults": "._loop.compaction",
    "CodeExecution": "._core.provider_tools",
    "Compaction": "._loop.compaction",
    "DocumentContent": "._core.media",
    "Driver": "._edges.driver",
    "ErrorCode": "._core.errors",
    "FallbackDriver": "._runtime.fallback",
    "FileContent": "._core.media",
    "ImageContent": "._core.media",
    "InitialState": "._core.processor",
    "Journal": "._journal.journal",
    "JsonlJournal": "._journal.journal",
    "KeepLastTurns": "._loop.compaction",
    "Limits": "._loop.state",
    "LoopConfig": "._loop.state",
    "MealyMachine": "._core.machine",
    "MemoryJournal": "._journal.journal",
    "MemoryStore": "._core.store",
    "Message": "._core.driver",
    "ModelPrice": "._core.pricing",
    "ModelRequest": "._core.driver",
    "OUTPUT_MODES": "._core.driver",
    "OutputMode": "._core.driver",
    "OutputSpec": "._core.driver",
    "Presenter": "._edges.presenter",
    "Processor": "._core.processor",
    "ProviderLimits": "._runtime.fallback",
    "Reply": "._runtime.middleware",
    "Store": "._core.store",
    "SubagentEvent": "._loop.lineage",
    "Summarise": "._loop.compaction",
    "THINKING_LEVELS": "._core.driver",
    "TextContent": "._core.content",
    "ThinkingLevel": "._core.driver",
    "Tool": "._loop.tools",
    "ToolContext": "._runtime.tool_runner",
    "ToolOutput": "._loop.tools",
    "ToolSpec": "._core.driver",
    "WebFetch": "._core.provider_tools",
    "WebSearch": "._core.provider_tools",
    "agent_processor": "._core.agent_processor",
    "as_driver": "._edges.driver",
    "create_agent": "._runtime.agent",
    "create_initial_agent_engine_state": "._core.agent_processor",
    "create_mealy_machine": "._core.machine",
    "define_tool": "._loop.tools",
    "falls_back": "._runtime.fallback",
    "from_dict": "._core.wire",
    "load_media": "._runtime.media",
    "loop_processor": "._loop.policy",
    "ms_clock": "._edges.clock",
    "replay": "._journal.replay",
    "stamped": "._edges.clock",
    "state_at": "._journal.replay",
    "to_dict": "._core.wire",
    "tool": "._loop.tools",
}
"""Where each re-exported name is defined (relative to this package)."""


_ALIASES = {"AgentEngine": ".engine"}
"""Second names of a public object: they live in ``agentcore.engine`` only; reached from
here, they still work, with a ``DeprecationWarning``."""


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None and name in _ALIASES:
        value = getattr(importlib.import_module(_ALIASES[name], __name__), name)
        warnings.warn(
            f"agentcore.{name} is an alias: import it from agentcore.engine, or use "
            f"agentcore.{value.__name__}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(source, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Agent",
    "AgentError",
    "AgentResult",
    "AgentSnapshot",
    "AgentState",
    "AgentStateMachine",
    "AudioContent",
    "BaseDriver",
    "Cache",
    "ClearToolResults",
    "CodeExecution",
    "Compaction",
    "DocumentContent",
    "Driver",
    "ErrorCode",
    "FallbackDriver",
    "FileContent",
    "ImageContent",
    "InitialState",
    "Journal",
    "JsonlJournal",
    "KeepLastTurns",
    "Limits",
    "LoopConfig",
    "MealyMachine",
    "MemoryJournal",
    "MemoryStore",
    "Message",
    "ModelPrice",
    "ModelRequest",
    "OUTPUT_MODES",
    "OutputMode",
    "OutputSpec",
    "Presenter",
    "Processor",
    "ProviderLimits",
    "Reply",
    "Store",
    "SubagentEvent",
    "Summarise",
    "THINKING_LEVELS",
    "TextContent",
    "ThinkingLevel",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "ToolSpec",
    "WebFetch",
    "WebSearch",
    "agent_processor",
    "as_driver",
    "create_agent",
    "create_initial_agent_engine_state",
    "create_mealy_machine",
    "define_tool",
    "falls_back",
    "from_dict",
    "load_media",
    "loop_processor",
    "ms_clock",
    "replay",
    "stamped",
    "state_at",
    "to_dict",
    "tool",
]

# the old spellings `drivers`/`presenters` for one release (see agentcore/_aliases.py)
_aliases.install()
