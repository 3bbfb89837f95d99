"""agentcore: a pure Mealy-machine event engine for AI-agent conversations.

The pure core (events, processors, combinators, machine) does no I/O; drivers feed it
stream events and presenters consume its outputs. See docs/ for the tour.
"""

from ._driver import THINKING_LEVELS as THINKING_LEVELS
from ._driver import Driver as Driver
from ._driver import Message as Message
from ._driver import ModelRequest as ModelRequest
from ._driver import ThinkingLevel as ThinkingLevel
from ._driver import ToolSpec as ToolSpec
from ._errors import AgentError as AgentError
from ._errors import ErrorCode as ErrorCode
from ._presenter import Presenter as Presenter
from ._processor import InitialState as InitialState
from ._processor import Processor as Processor
from ._store import MemoryStore as MemoryStore
from ._store import Store as Store
from ._wire import from_dict as from_dict
from ._wire import to_dict as to_dict

__all__ = [
    "AgentError",
    "Driver",
    "ErrorCode",
    "InitialState",
    "MemoryStore",
    "Message",
    "ModelRequest",
    "Presenter",
    "Processor",
    "Store",
    "THINKING_LEVELS",
    "ThinkingLevel",
    "ToolSpec",
    "from_dict",
    "to_dict",
]
