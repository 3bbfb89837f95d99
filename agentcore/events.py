"""Every event type of the engine, the values inside them, and their wire form.

See docs/events.md for each type's fields and who emits it.
"""

from ._content import (
    Content as Content,
)
from ._content import (
    ContentPart as ContentPart,
)
from ._content import (
    ImageContent as ImageContent,
)
from ._content import (
    JSONValue as JSONValue,
)
from ._content import (
    Part as Part,
)
from ._content import (
    TextContent as TextContent,
)
from ._content import (
    TextPart as TextPart,
)
from ._content import (
    ThinkingPart as ThinkingPart,
)
from ._content import (
    ToolCallPart as ToolCallPart,
)
from ._content import (
    Usage as Usage,
)
from ._events import (
    EVENT_TYPES as EVENT_TYPES,
)
from ._events import (
    LAYERS as LAYERS,
)
from ._events import (
    AssistantMessage as AssistantMessage,
)
from ._events import (
    ConversationEnd as ConversationEnd,
)
from ._events import (
    ConversationInterrupted as ConversationInterrupted,
)
from ._events import (
    ConversationResponding as ConversationResponding,
)
from ._events import (
    ConversationStart as ConversationStart,
)
from ._events import (
    ConversationThinking as ConversationThinking,
)
from ._events import (
    EndReason as EndReason,
)
from ._events import (
    ErrorMessage as ErrorMessage,
)
from ._events import (
    ErrorOccurred as ErrorOccurred,
)
from ._events import (
    ErrorReceived as ErrorReceived,
)
from ._events import (
    Event as Event,
)
from ._events import (
    InputJsonDelta as InputJsonDelta,
)
from ._events import (
    Interrupt as Interrupt,
)
from ._events import (
    MessageDelta as MessageDelta,
)
from ._events import (
    MessageEvent as MessageEvent,
)
from ._events import (
    MessageStart as MessageStart,
)
from ._events import (
    MessageStop as MessageStop,
)
from ._events import (
    StateEvent as StateEvent,
)
from ._events import (
    StopReason as StopReason,
)
from ._events import (
    StreamEvent as StreamEvent,
)
from ._events import (
    TextDelta as TextDelta,
)
from ._events import (
    ThinkingDelta as ThinkingDelta,
)
from ._events import (
    ToolCallMessage as ToolCallMessage,
)
from ._events import (
    ToolCompleted as ToolCompleted,
)
from ._events import (
    ToolExecuting as ToolExecuting,
)
from ._events import (
    ToolFailed as ToolFailed,
)
from ._events import (
    ToolPlanned as ToolPlanned,
)
from ._events import (
    ToolResult as ToolResult,
)
from ._events import (
    ToolResultMessage as ToolResultMessage,
)
from ._events import (
    ToolUseStart as ToolUseStart,
)
from ._events import (
    ToolUseStop as ToolUseStop,
)
from ._events import (
    TurnEvent as TurnEvent,
)
from ._events import (
    TurnRequest as TurnRequest,
)
from ._events import (
    TurnResponse as TurnResponse,
)
from ._events import (
    UserMessage as UserMessage,
)
from ._events import (
    event_type as event_type,
)
from ._events import (
    is_event as is_event,
)
from ._wire import from_dict as from_dict
from ._wire import to_dict as to_dict

__all__ = [
    "AssistantMessage",
    "Content",
    "ContentPart",
    "ConversationEnd",
    "ConversationInterrupted",
    "ConversationResponding",
    "ConversationStart",
    "ConversationThinking",
    "EVENT_TYPES",
    "EndReason",
    "ErrorMessage",
    "ErrorOccurred",
    "ErrorReceived",
    "Event",
    "ImageContent",
    "InputJsonDelta",
    "Interrupt",
    "JSONValue",
    "LAYERS",
    "MessageDelta",
    "MessageEvent",
    "MessageStart",
    "MessageStop",
    "Part",
    "StateEvent",
    "StopReason",
    "StreamEvent",
    "TextContent",
    "TextDelta",
    "TextPart",
    "ThinkingDelta",
    "ThinkingPart",
    "ToolCallMessage",
    "ToolCallPart",
    "ToolCompleted",
    "ToolExecuting",
    "ToolFailed",
    "ToolPlanned",
    "ToolResult",
    "ToolResultMessage",
    "ToolUseStart",
    "ToolUseStop",
    "TurnEvent",
    "TurnRequest",
    "TurnResponse",
    "Usage",
    "UserMessage",
    "event_type",
    "from_dict",
    "is_event",
    "to_dict",
]
