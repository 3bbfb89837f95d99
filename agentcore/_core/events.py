"""Every event the engine knows, by layer, and the registry that names them.

Events are frozen, slotted attrs classes. Each has a ``type`` class constant (its wire
name, unique across layers), a ``timestamp`` in integer milliseconds stamped by the shell
(keyword-only, default 0 for hand-built test events) and its data fields. Values inside
events are immutable too, so an event can be shared by every consumer without copying.

Every class is ``checked``: a field of the wrong type (``TextDelta(5, "x")``), a negative
block index or count, a ``details`` value JSON cannot hold, is an ``InvalidEventError``
(a ``ValueError``) at construction, naming the event, the field and what it got; so an
event that exists always has a wire form that reads back equal. The classes built per
streamed chunk or per tool call write that check out by hand, for speed (see checks.py).

Layers (see docs/events.md for who emits what):

- stream: produced by drivers, and by the runtime for user input, tool results, control;
- message: produced by the message assembler;
- state: produced by the state-event processor, on transitions only;
- turn: produced by the turn tracker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias, get_args

import attrs

from .checks import JSONValue, NonNegativeInt, check_again, check_fields, checked, is_json
from .content import (
    Content,
    Part,
    TextPart,
    ToolCallPart,
    Usage,
    content_field,
    parts_field,
    tool_call_field,
    usage_field,
)
from .provider_tools import ProviderPartEvent
from .records import builder
from .registry import EVENT_TYPES as EVENT_TYPES
from .registry import LAYERS as LAYERS
from .registry import event_type as event_type
from .registry import is_event as is_event

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = [
    "AssistantMessage",
    "ConversationClose",
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
    "InputJsonDelta",
    "Interrupt",
    "LAYERS",
    "MessageDelta",
    "MessageEvent",
    "MessageStart",
    "MessageStop",
    "RateLimited",
    "StateEvent",
    "StopReason",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallMessage",
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
    "UserMessage",
    "event_type",
    "is_event",
]

StopReason: TypeAlias = str
"""Why the model stopped. Drivers map provider values onto: ``end_turn``, ``max_tokens``,
``stop_sequence``, ``tool_use``, ``pause_turn``, ``refusal``; the engine adds ``error`` and
``interrupted`` for messages it had to close itself."""

EndReason: TypeAlias = Literal["completed", "interrupted", "error"]
_END_REASONS = frozenset(get_args(EndReason))


def _ts() -> Any:
    return attrs.field(default=0, kw_only=True)


def _check_tool_ids(self: Any) -> None:
    """The field check of the state events of a tool call (written out for speed)."""
    if not (
        type(self.tool_call_id) is str
        and type(self.tool_name) is str
        and type(self.timestamp) is int
    ):
        check_fields(self)


# -- stream layer ---------------------------------------------------------------------------


@event_type("message_start", "stream")
@frozen
@checked
class MessageStart:
    """The model began a new assistant message."""

    type: ClassVar[str] = "message_start"
    message_id: str
    model: str
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        if not (
            type(self.message_id) is str and type(self.model) is str and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("text_delta", "stream")
@frozen
@checked
class TextDelta:
    """A chunk of text for the content block at ``index``."""

    type: ClassVar[str] = "text_delta"
    text: str
    index: NonNegativeInt
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        index = self.index
        if not (
            type(self.text) is str
            and type(index) is int
            and index >= 0
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("thinking_delta", "stream")
@frozen
@checked
class ThinkingDelta:
    """A chunk of reasoning for the block at ``index``.

    A delta may carry only a ``signature`` (sent once, at the end of a signed block) or
    ``redacted_data`` (a whole encrypted block); text is appended, the others replace.
    """

    type: ClassVar[str] = "thinking_delta"
    text: str
    index: NonNegativeInt
    signature: str | None = None
    redacted_data: str | None = None
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        index = self.index
        if not (
            type(self.text) is str
            and type(index) is int
            and index >= 0
            and self.signature is None
            and self.redacted_data is None
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("tool_use_start", "stream")
@frozen
@checked
class ToolUseStart:
    """The model began a tool call in the block at ``index``."""

    type: ClassVar[str] = "tool_use_start"
    tool_call_id: str
    tool_name: str
    index: NonNegativeInt
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        index = self.index
        if not (
            type(self.tool_call_id) is str
            and type(self.tool_name) is str
            and type(index) is int
            and index >= 0
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("input_json_delta", "stream")
@frozen
@checked
class InputJsonDelta:
    """A fragment of the JSON arguments of the tool call at ``index``."""

    type: ClassVar[str] = "input_json_delta"
    partial_json: str
    index: NonNegativeInt
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        index = self.index
        if not (
            type(self.partial_json) is str
            and type(index) is int
            and index >= 0
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("tool_use_stop", "stream")
@frozen
@checked
class ToolUseStop:
    """The arguments of the tool call at ``index`` are complete."""

    type: ClassVar[str] = "tool_use_stop"
    tool_call_id: str
    index: NonNegativeInt
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        index = self.index
        if not (
            type(self.tool_call_id) is str
            and type(index) is int
            and index >= 0
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("message_delta", "stream")
@frozen
@checked
class MessageDelta:
    """Message-level update: the stop reason once known, and usage (cumulative per call)."""

    type: ClassVar[str] = "message_delta"
    stop_reason: StopReason | None = None
    usage: Usage = attrs.field(factory=Usage, converter=usage_field)
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        stop_reason = self.stop_reason
        if not (
            (stop_reason is None or type(stop_reason) is str)
            and type(self.usage) is Usage
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("message_stop", "stream")
@frozen
@checked
class MessageStop:
    """The assistant message is complete."""

    type: ClassVar[str] = "message_stop"
    stop_reason: StopReason | None = None
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        stop_reason = self.stop_reason
        if not ((stop_reason is None or type(stop_reason) is str) and type(self.timestamp) is int):
            check_fields(self)


@event_type("tool_result", "stream")
@frozen
@checked
class ToolResult:
    """The outcome of running a tool call (fed in by the runtime).

    ``result`` goes to the model; ``details`` is for user interfaces only and never does.
    """

    type: ClassVar[str] = "tool_result"
    tool_call_id: str
    result: Content = attrs.field(converter=content_field)
    is_error: bool = False
    details: JSONValue = None
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        # a text result is the common case: a tuple of blocks takes the full check
        details = self.details
        if not (
            type(self.tool_call_id) is str
            and type(self.result) is str
            and (self.is_error is False or self.is_error is True)
            and (details is None or is_json(details))
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("error_received", "stream")
@frozen
@checked
class ErrorReceived:
    """A driver or the runtime reports a failure; ``code`` is an ``ErrorCode`` value."""

    type: ClassVar[str] = "error_received"
    message: str
    code: str
    retryable: bool = False
    timestamp: int = _ts()


@event_type("user_message", "stream")
@frozen
@checked
class UserMessage:
    """A message from the user: text, or text and image blocks."""

    type: ClassVar[str] = "user_message"
    message_id: str
    content: Content = attrs.field(converter=content_field)
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        # a text message is the common case: a tuple of blocks takes the full check
        if not (
            type(self.message_id) is str
            and type(self.content) is str
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("interrupt", "stream")
@frozen
@checked
class Interrupt:
    """Stop the current model call or turn; what was streamed is kept."""

    type: ClassVar[str] = "interrupt"
    reason: str = "user"
    timestamp: int = _ts()


@event_type("conversation_close", "stream")
@frozen
@checked
class ConversationClose:
    """The agent loop ended its run: a conversation still active ends with ``reason``
    (and so does its turn). The loop emits one at the end of every run, however it
    ended (a limit, a guardrail, a final answer given by a tool); it changes nothing
    when the conversation had already ended."""

    type: ClassVar[str] = "conversation_close"
    reason: EndReason
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        # the loop builds one per run
        reason = self.reason
        if not (type(reason) is str and reason in _END_REASONS and type(self.timestamp) is int):
            check_fields(self)


@event_type("rate_limited", "stream")
@frozen
@checked
class RateLimited:
    """A notice from a driver: the call waits ``wait_ms`` before it is sent, to keep
    ``scope`` (a provider, or ``provider/model``) within its ``limit`` (``requests``,
    ``tokens``, ``input_tokens`` or ``output_tokens`` per window). Nothing else changes: the call
    goes on after the wait, and an interrupt during the wait ends it with nothing more."""

    type: ClassVar[str] = "rate_limited"
    scope: str
    limit: str
    wait_ms: int
    timestamp: int = _ts()


StreamEvent: TypeAlias = (
    MessageStart
    | TextDelta
    | ThinkingDelta
    | ToolUseStart
    | InputJsonDelta
    | ToolUseStop
    | MessageDelta
    | MessageStop
    | ToolResult
    | ErrorReceived
    | UserMessage
    | Interrupt
    | ConversationClose
    | ProviderPartEvent
    | RateLimited
)


# -- message layer --------------------------------------------------------------------------


@event_type("assistant_message", "message")
@frozen
@checked
class AssistantMessage:
    """A whole assistant message: ordered parts (text, thinking, tool calls) by block index.

    ``incomplete`` is true when the message was cut short by an error or an interrupt;
    its parts are what had been streamed, and ``stop_reason`` is ``error`` or
    ``interrupted``.
    """

    type: ClassVar[str] = "assistant_message"
    message_id: str
    model: str
    parts: tuple[Part, ...] = attrs.field(converter=parts_field)
    usage: Usage = attrs.field(factory=Usage, converter=usage_field)
    stop_reason: StopReason | None = None
    incomplete: bool = False
    timestamp: int = _ts()

    @property
    def text(self) -> str:
        """The concatenated text parts."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        """The tool-call parts, in order."""
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))


@event_type("tool_call_message", "message")
@frozen
@checked
class ToolCallMessage:
    """A tool call whose arguments are complete (emitted before the message ends)."""

    type: ClassVar[str] = "tool_call_message"
    message_id: str
    tool_call: ToolCallPart = attrs.field(converter=tool_call_field)
    timestamp: int = _ts()

    def __attrs_post_init__(self) -> None:
        if not (
            type(self.message_id) is str
            and type(self.tool_call) is ToolCallPart
            and type(self.timestamp) is int
        ):
            check_fields(self)


@event_type("tool_result_message", "message")
@frozen
@checked
class ToolResultMessage:
    """A tool's result as history: the call it answers, the tool's name and the result."""

    type: ClassVar[str] = "tool_result_message"
    tool_call_id: str
    tool_name: str
    result: Content = attrs.field(converter=content_field)
    is_error: bool = False
    details: JSONValue = None
    timestamp: int = _ts()

    @classmethod
    def answering(cls, result: ToolResult, tool_name: str) -> ToolResultMessage:
        """The history entry of ``result``, a call to ``tool_name`` (a ``str``): the one
        builder, used by the core's assembler and the loop alike. ``result`` is checked
        once more (it may have been forged past its constructor); its values are then
        taken as they are."""
        check_again(result)
        return _tool_result_message(
            result.tool_call_id,
            tool_name,
            result.result,
            result.is_error,
            result.details,
            result.timestamp,
        )


@event_type("error_message", "message")
@frozen
@checked
class ErrorMessage:
    """An error as history, so user interfaces and logs can show it in place."""

    type: ClassVar[str] = "error_message"
    message: str
    code: str
    retryable: bool = False
    timestamp: int = _ts()


_tool_result_message = builder(ToolResultMessage)

MessageEvent: TypeAlias = AssistantMessage | ToolCallMessage | ToolResultMessage | ErrorMessage


# -- state layer ----------------------------------------------------------------------------


@event_type("conversation_start", "state")
@frozen
@checked
class ConversationStart:
    """A conversation turn began (a user message arrived while idle)."""

    type: ClassVar[str] = "conversation_start"
    message_id: str
    timestamp: int = _ts()


@event_type("conversation_thinking", "state")
@frozen
@checked
class ConversationThinking:
    """The model is working and has produced no visible text yet (or is reasoning)."""

    type: ClassVar[str] = "conversation_thinking"
    timestamp: int = _ts()


@event_type("conversation_responding", "state")
@frozen
@checked
class ConversationResponding:
    """The model started streaming visible text."""

    type: ClassVar[str] = "conversation_responding"
    timestamp: int = _ts()


@event_type("tool_planned", "state")
@frozen
@checked
class ToolPlanned:
    """The model began a tool call."""

    type: ClassVar[str] = "tool_planned"
    tool_call_id: str
    tool_name: str
    timestamp: int = _ts()

    __attrs_post_init__ = _check_tool_ids


@event_type("tool_executing", "state")
@frozen
@checked
class ToolExecuting:
    """A planned tool call is now waiting for its result (the model message ended)."""

    type: ClassVar[str] = "tool_executing"
    tool_call_id: str
    tool_name: str
    timestamp: int = _ts()

    __attrs_post_init__ = _check_tool_ids


@event_type("tool_completed", "state")
@frozen
@checked
class ToolCompleted:
    """A tool call returned a result."""

    type: ClassVar[str] = "tool_completed"
    tool_call_id: str
    tool_name: str
    timestamp: int = _ts()

    __attrs_post_init__ = _check_tool_ids


@event_type("tool_failed", "state")
@frozen
@checked
class ToolFailed:
    """A tool call returned an error result."""

    type: ClassVar[str] = "tool_failed"
    tool_call_id: str
    tool_name: str
    error: str
    timestamp: int = _ts()


@event_type("conversation_interrupted", "state")
@frozen
@checked
class ConversationInterrupted:
    """The conversation was interrupted; partial output was kept."""

    type: ClassVar[str] = "conversation_interrupted"
    reason: str
    timestamp: int = _ts()


@event_type("conversation_end", "state")
@frozen
@checked
class ConversationEnd:
    """The conversation turn ended: ``completed``, ``interrupted`` or ``error``."""

    type: ClassVar[str] = "conversation_end"
    reason: EndReason
    timestamp: int = _ts()


@event_type("error_occurred", "state")
@frozen
@checked
class ErrorOccurred:
    """A failure moved the conversation to its error state."""

    type: ClassVar[str] = "error_occurred"
    message: str
    code: str
    timestamp: int = _ts()


StateEvent: TypeAlias = (
    ConversationStart
    | ConversationThinking
    | ConversationResponding
    | ToolPlanned
    | ToolExecuting
    | ToolCompleted
    | ToolFailed
    | ConversationInterrupted
    | ConversationEnd
    | ErrorOccurred
)


# -- turn layer -----------------------------------------------------------------------------


@event_type("turn_request", "turn")
@frozen
@checked
class TurnRequest:
    """A turn began with the user message ``message_id``."""

    type: ClassVar[str] = "turn_request"
    turn_id: str
    message_id: str
    timestamp: int = _ts()


@event_type("turn_response", "turn")
@frozen
@checked
class TurnResponse:
    """A turn ended.

    ``usage`` sums every model call of the turn; ``cost`` is in US dollars from the price
    table, or ``None`` when the model's price is unknown (never a made-up 0).
    """

    type: ClassVar[str] = "turn_response"
    turn_id: str
    duration_ms: int
    usage: Usage = attrs.field(factory=Usage, converter=usage_field)
    cost: float | None = None
    model: str | None = None
    stop_reason: StopReason | None = None
    timestamp: int = _ts()


TurnEvent: TypeAlias = TurnRequest | TurnResponse

Event: TypeAlias = StreamEvent | MessageEvent | StateEvent | TurnEvent
"""Any event of the four core layers. Later layers register more with ``event_type``."""
