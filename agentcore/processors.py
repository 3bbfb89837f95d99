"""The pure processors of the engine core and their initial-state factories.

Each processor is ``(state, event) -> (state, outputs)``; see docs/processors.md.
"""

from ._assembler import (
    create_initial_message_assembler_state as create_initial_message_assembler_state,
)
from ._assembler import message_assembler_processor as message_assembler_processor

__all__ = [
    "create_initial_message_assembler_state",
    "message_assembler_processor",
]
