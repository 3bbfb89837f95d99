"""The pure processors of the engine core and their initial-state factories.

Each processor is ``(state, event) -> (state, outputs)``; see docs/processors.md.
"""

from ._core.agent_processor import activity_of as activity_of
from ._core.agent_processor import agent_processor as agent_processor
from ._core.agent_processor import appended_chunk as appended_chunk
from ._core.agent_processor import appending as appending
from ._core.agent_processor import (
    create_initial_agent_engine_state as create_initial_agent_engine_state,
)
from ._core.agent_processor import layers_of as layers_of
from ._core.agent_processor import with_appended as with_appended
from ._core.assembler import (
    create_initial_message_assembler_state as create_initial_message_assembler_state,
)
from ._core.assembler import message_assembler_processor as message_assembler_processor
from ._core.state_events import (
    create_initial_state_event_processor_context as create_initial_state_event_processor_context,
)
from ._core.state_events import state_event_processor as state_event_processor
from ._core.turns import create_initial_turn_tracker_state as create_initial_turn_tracker_state
from ._core.turns import turn_tracker_processor as turn_tracker_processor

__all__ = [
    "activity_of",
    "agent_processor",
    "appended_chunk",
    "appending",
    "create_initial_agent_engine_state",
    "create_initial_message_assembler_state",
    "create_initial_state_event_processor_context",
    "create_initial_turn_tracker_state",
    "layers_of",
    "message_assembler_processor",
    "state_event_processor",
    "turn_tracker_processor",
    "with_appended",
]
