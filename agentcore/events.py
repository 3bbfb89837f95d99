"""Every event type of the engine, the values inside them, and their wire form.

See docs/events.md for each type's fields and who emits it.
"""

from ._core.binary import describe_part as describe_part
from ._core.binary import inline_part as inline_part
from ._core.content import (
    AudioContent as AudioContent,
)
from ._core.content import (
    Content as Content,
)
from ._core.content import (
    ContentPart as ContentPart,
)
from ._core.content import (
    DocumentContent as DocumentContent,
)
from ._core.content import (
    FileContent as FileContent,
)
from ._core.content import (
    ImageContent as ImageContent,
)
from ._core.content import (
    JSONValue as JSONValue,
)
from ._core.content import (
    MediaContent as MediaContent,
)
from ._core.content import (
    Part as Part,
)
from ._core.content import (
    TextContent as TextContent,
)
from ._core.content import (
    TextPart as TextPart,
)
from ._core.content import (
    ThinkingPart as ThinkingPart,
)
from ._core.content import (
    ToolCallPart as ToolCallPart,
)
from ._core.content import (
    Usage as Usage,
)
from ._core.events import (
    EVENT_TYPES as EVENT_TYPES,
)
from ._core.events import (
    LAYERS as LAYERS,
)
from ._core.events import (
    AssistantMessage as AssistantMessage,
)
from ._core.events import (
    ConversationClose as ConversationClose,
)
from ._core.events import (
    ConversationEnd as ConversationEnd,
)
from ._core.events import (
    ConversationInterrupted as ConversationInterrupted,
)
from ._core.events import (
    ConversationResponding as ConversationResponding,
)
from ._core.events import (
    ConversationStart as ConversationStart,
)
from ._core.events import (
    ConversationThinking as ConversationThinking,
)
from ._core.events import (
    EndReason as EndReason,
)
from ._core.events import (
    ErrorMessage as ErrorMessage,
)
from ._core.events import (
    ErrorOccurred as ErrorOccurred,
)
from ._core.events import (
    ErrorReceived as ErrorReceived,
)
from ._core.events import (
    Event as Event,
)
from ._core.events import (
    InputJsonDelta as InputJsonDelta,
)
from ._core.events import (
    Interrupt as Interrupt,
)
from ._core.events import (
    MessageDelta as MessageDelta,
)
from ._core.events import (
    MessageEvent as MessageEvent,
)
from ._core.events import (
    MessageStart as MessageStart,
)
from ._core.events import (
    MessageStop as MessageStop,
)
from ._core.events import (
    RateLimited as RateLimited,
)
from ._core.events import (
    StateEvent as StateEvent,
)
from ._core.events import (
    StopReason as StopReason,
)
from ._core.events import (
    StreamEvent as StreamEvent,
)
from ._core.events import (
    TextDelta as TextDelta,
)
from ._core.events import (
    ThinkingDelta as ThinkingDelta,
)
from ._core.events import (
    ToolCallMessage as ToolCallMessage,
)
from ._core.events import (
    ToolCompleted as ToolCompleted,
)
from ._core.events import (
    ToolExecuting as ToolExecuting,
)
from ._core.events import (
    ToolFailed as ToolFailed,
)
from ._core.events import (
    ToolPlanned as ToolPlanned,
)
from ._core.events import (
    ToolResult as ToolResult,
)
from ._core.events import (
    ToolResultMessage as ToolResultMessage,
)
from ._core.events import (
    ToolUseStart as ToolUseStart,
)
from ._core.events import (
    ToolUseStop as ToolUseStop,
)
from ._core.events import (
    TurnEvent as TurnEvent,
)
from ._core.events import (
    TurnRequest as TurnRequest,
)
from ._core.events import (
    TurnResponse as TurnResponse,
)
from ._core.events import (
    UserMessage as UserMessage,
)
from ._core.events import (
    event_type as event_type,
)
from ._core.events import (
    is_event as is_event,
)
from ._core.wire import from_dict as from_dict
from ._core.wire import to_dict as to_dict

__all__ = [
    "AssistantMessage",
    "AudioContent",
    "Content",
    "ContentPart",
    "ConversationClose",
    "ConversationEnd",
    "ConversationInterrupted",
    "ConversationResponding",
    "ConversationStart",
    "ConversationThinking",
    "DocumentContent",
    "EVENT_TYPES",
    "EndReason",
    "ErrorMessage",
    "ErrorOccurred",
    "ErrorReceived",
    "Event",
    "FileContent",
    "ImageContent",
    "InputJsonDelta",
    "Interrupt",
    "JSONValue",
    "LAYERS",
    "MediaContent",
    "MessageDelta",
    "MessageEvent",
    "MessageStart",
    "MessageStop",
    "Part",
    "RateLimited",
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
    "describe_part",
    "event_type",
    "from_dict",
    "inline_part",
    "is_event",
    "to_dict",
]
