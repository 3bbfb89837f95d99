"""The message assembler: stream events in, whole messages out.

Content blocks are kept by the provider's block ``index``, so interleaved thinking, text
and several concurrent tool calls come out in order. Text is appended chunk by chunk to a
``pvector`` and joined once, at ``message_stop``: a delta costs O(1) whatever the length of
the message so far, and returns no outputs.

State is a flat plain tuple, because it is rebuilt on every delta::

    (message, index, kind, chunks, extra, base)

``message`` is the open message (``None`` between messages) with every block except the
one being streamed; ``index``, ``kind``, ``chunks`` and ``extra`` are that "hot" block, so
consecutive deltas for one block never touch the block map and allocate only the new
state; ``base`` holds what outlives a message (tool calls awaiting their result) and the
``strict`` flag.

Bad input (a delta with no open message, an index reused for another kind of block, a stop
for an unknown tool call, a second ``message_start``, an object that is not an event)
never raises and never changes accepted state: it is ignored and reported as an
``ErrorMessage`` with code ``PROTOCOL_ERROR``. With ``strict=True`` the processor raises
``ProtocolError`` instead. Events of the other layers are ignored without output.

Every other input it accepts (all but the deltas) has its fields checked once more
(``check_again``: an event may have been forged past its constructor), so what it builds
from them, and what the state-event processor and turn tracker build after it in
``agent_processor``, is made without checking the same values again
(``records.builder``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from .vectors import pvector

if TYPE_CHECKING:
    from pyrsistent import PVector

from .checks import check_again, json_problem
from .content import ZERO_USAGE, Part, TextPart, ThinkingPart, ToolCallPart, Usage
from .errors import ErrorCode, InvalidEventError, ProtocolError
from .events import (
    AssistantMessage,
    ConversationClose,
    ErrorMessage,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolCallMessage,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    UserMessage,
    is_event,
)
from .pending import NOTHING_AWAITED, Awaiting, answered, awaited
from .provider_tools import CitationPart, ProviderPartEvent
from .records import builder, tuple_of

if TYPE_CHECKING:
    from typing import NamedTuple
else:  # the class typing makes, at a fifth of its cost (records.py)
    from .records import NamedTuple

__all__ = [
    "AssemblerState",
    "create_initial_message_assembler_state",
    "hot_block",
    "message_assembler_processor",
    "summary",
    "with_chunks",
]

# A block is ``(kind, chunks, extra)``; kinds are compared with ``is``. ``extra`` is None
# for text, or the ``CitationPart``s citing it; ``(signature, redacted_data)`` for
# thinking, ``(tool_call_id, tool_name, part)`` for tool calls, where ``part`` is the
# finished ToolCallPart once the call is DONE; the parts, in order, for provider parts.
TEXT = "text"
THINKING = "thinking"
TOOL = "tool call"
DONE = "finished tool call"
PROVIDER = "provider part"
Block: TypeAlias = tuple[Any, Any, Any]
_EMPTY: PVector[str] = pvector()
_NO_BLOCKS: PVector[Block | None] = pvector()
_PROTOCOL_ERROR = ErrorCode.PROTOCOL_ERROR.value

# Outputs made of checked values (see the module docstring), in field order.
_assistant_message = builder(AssistantMessage)
_tool_call_message = builder(ToolCallMessage)
_error_message = builder(ErrorMessage)
_text_part = builder(TextPart)
_thinking_part = builder(ThinkingPart)


_MAX_GAP = 1024
"""How far past the last block a new block's index may jump (holes cost memory)."""


class _Message(NamedTuple):
    message_id: str
    model: str
    blocks: PVector[Block | None]
    """Blocks by index (provider indexes are small and dense; holes are None)."""
    usage: Usage
    stop_reason: str | None
    open_tools: tuple[str, ...]
    """Ids of tool calls started in this message and not stopped yet (usually one)."""


class _Base(NamedTuple):
    pending: Awaiting
    """Tool calls (id -> tool name) whose input is complete and whose result has not come
    (``pending.awaited``)."""
    strict: bool


AssemblerState: TypeAlias = tuple[_Message | None, Any, Any, Any, Any, _Base]
"""The handlers read the first six slots of the tuple they are given, by position, and
return a six-slot state (or the tuple itself, for a rejection): ``agent_processor``
hands them its whole nine-slot state, with no slice."""

# Named slots of the state tuple (read by position in this module, and by the inline text
# step of agent_processor).
MESSAGE: Final = 0
INDEX: Final = 1
KIND: Final = 2
CHUNKS: Final = 3
EXTRA: Final = 4
BASE: Final = 5
Outputs: TypeAlias = tuple[Any, ...]
Result: TypeAlias = tuple[AssemblerState, Outputs]


def create_initial_message_assembler_state(*, strict: bool = False) -> AssemblerState:
    """No open message and no pending tool calls.

    ``strict=True`` makes out-of-order or malformed input raise ``ProtocolError``
    instead of producing a ``PROTOCOL_ERROR`` ``ErrorMessage``.
    """
    return (None, None, None, None, None, _Base(NOTHING_AWAITED, strict))


# -- errors ---------------------------------------------------------------------------------


def _timestamp(event: object) -> int:
    ts = getattr(event, "timestamp", 0)
    return ts if type(ts) is int else 0


def reject(state: AssemblerState, event: object, problem: str) -> Result:
    """Ignore ``event``: report ``problem`` as an ErrorMessage, or raise in strict mode."""
    name = getattr(type(event), "type", None)
    what = name if isinstance(name, str) else f"object of type {type(event).__name__}"
    message = f"{what}: {problem}; the event was ignored"
    if state[5].strict:
        raise ProtocolError(message)
    return state, (
        ErrorMessage(message=message, code=_PROTOCOL_ERROR, timestamp=_timestamp(event)),
    )


# -- blocks ---------------------------------------------------------------------------------


def _bad_index(state: AssemblerState, index: object) -> str | None:
    """Why ``index`` cannot name a block of the open message, or None when it can."""
    if type(index) is not int:
        return f"block index must be an integer, got {type(index).__name__}"
    message = state[0]
    assert message is not None
    if index < 0 or index > len(message.blocks) + _MAX_GAP:
        return f"block index {index} is out of range (0 to {len(message.blocks) + _MAX_GAP})"
    return None


def _all_blocks(state: AssemblerState) -> PVector[Block | None]:
    """Every block of the open message, the hot one included."""
    message, kind = state[0], state[2]
    assert message is not None
    return (
        message.blocks if kind is None else message.blocks.set(state[1], (kind, state[3], state[4]))
    )


def _focus(state: AssemblerState, index: int) -> tuple[_Message, Block | None]:
    """The open message with the hot block stored in it and room for a block at ``index``,
    and the block already at ``index`` (None for a new one)."""
    message, kind = state[0], state[2]
    assert message is not None
    if kind is not None and state[1] == index:
        return message, (kind, state[3], state[4])
    blocks = _all_blocks(state)
    if index < len(blocks):
        found = blocks[index]
    else:
        blocks = blocks.extend((None,) * (index + 1 - len(blocks)))
        found = None
    return tuple_of(_Message, (message[0], message[1], blocks, *message[3:])), found


def _kind_clash(index: int, block: Block, wanted: str) -> str:
    return f"block {index} is a {block[0]} block, not a {wanted} block"


def _no_message(what: str) -> str:
    return f"no message is open (send message_start before {what})"


def _parse_tool_input(raw: str) -> tuple[dict[str, Any], str | None]:
    """``(input, input_error)``: empty text means ``{}``; anything but an object is an error."""
    if not raw.strip():
        return {}, None
    try:
        value = _DECODER.decode(raw)
    except (ValueError, RecursionError) as exc:
        return {}, f"tool input is not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, f"tool input must be a JSON object, got {_json_kind(value)}"
    return value, None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed in JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _tool_part(
    chunks: PVector[str], extra: tuple[str, str, Any], cut_off: str | None
) -> ToolCallPart:
    raw = "".join(chunks)
    if cut_off is not None:
        return ToolCallPart(
            tool_call_id=extra[0],
            tool_name=extra[1],
            raw_input=raw,
            input_error=f"tool input was cut off ({cut_off}) before the call was complete",
        )
    value, error = _parse_tool_input(raw)
    try:
        return ToolCallPart(
            tool_call_id=extra[0], tool_name=extra[1], input=value, raw_input=raw, input_error=error
        )
    except InvalidEventError:  # JSON that parses but has no wire form: too deep, or 1e999
        return ToolCallPart(
            tool_call_id=extra[0],
            tool_name=extra[1],
            raw_input=raw,
            input_error=f"tool input {json_problem(value)}",
        )


# -- stream handlers ------------------------------------------------------------------------
# Each handler starts with the hot path (a delta for the block being streamed) and falls
# back to the general case, which validates and may switch the hot block.


def _on_message_start(state: AssemblerState, event: MessageStart) -> Result:
    if state[0] is not None:
        return reject(state, event, f"message {state[0].message_id!r} is still open")
    if type(event.message_id) is not str or type(event.model) is not str:
        return reject(state, event, "message_id and model must be strings")
    check_again(event)
    message = tuple_of(_Message, (event.message_id, event.model, _NO_BLOCKS, ZERO_USAGE, None, ()))
    return (message, None, None, None, None, state[5]), ()


def _on_text(state: AssemblerState, event: TextDelta) -> Result:
    text = event.text
    if state[2] is TEXT and event.index == state[1] and type(text) is str:
        return (state[0], state[1], TEXT, state[3].append(text), state[4], state[5]), ()
    if state[0] is None:
        return reject(state, event, _no_message("text"))
    problem = _bad_index(state, event.index)
    if problem is not None or type(event.text) is not str:
        return reject(state, event, problem or "text must be a string")
    message, found = _focus(state, event.index)
    if found is None:
        found = (TEXT, _EMPTY, None)
    elif found[0] is not TEXT:
        return reject(state, event, _kind_clash(event.index, found, TEXT))
    return (message, event.index, TEXT, found[1].append(event.text), found[2], state[5]), ()


def _on_thinking(state: AssemblerState, event: ThinkingDelta) -> Result:
    if (
        state[2] is THINKING
        and event.index == state[1]
        and type(event.text) is str
        and event.signature is None
        and event.redacted_data is None
    ):
        return (state[0], state[1], THINKING, state[3].append(event.text), state[4], state[5]), ()
    if state[0] is None:
        return reject(state, event, _no_message("thinking"))
    problem = _bad_index(state, event.index)
    if problem is None and (
        type(event.text) is not str
        or not isinstance(event.signature, str | None)
        or not isinstance(event.redacted_data, str | None)
    ):
        problem = "text must be a string, signature and redacted_data strings or None"
    if problem is not None:
        return reject(state, event, problem)
    message, found = _focus(state, event.index)
    if found is None:
        found = (THINKING, _EMPTY, (None, None))
    elif found[0] is not THINKING:
        return reject(state, event, _kind_clash(event.index, found, THINKING))
    chunks = found[1].append(event.text) if event.text else found[1]
    signature, redacted = found[2]
    extra = (
        signature if event.signature is None else event.signature,
        redacted if event.redacted_data is None else event.redacted_data,
    )
    return (message, event.index, THINKING, chunks, extra, state[5]), ()


def _on_tool_start(state: AssemblerState, event: ToolUseStart) -> Result:
    message = state[0]
    if message is None:
        return reject(state, event, _no_message("a tool call"))
    call_id, index = event.tool_call_id, event.index
    problem = _bad_index(state, index)
    if problem is None and (type(call_id) is not str or type(event.tool_name) is not str):
        problem = "tool_call_id and tool_name must be strings"
    if problem is not None:
        return reject(state, event, problem)
    if call_id in message.open_tools or call_id in state[5].pending:
        return reject(state, event, f"tool call id {call_id!r} is already in use")
    check_again(event)
    message, found = _focus(state, index)
    if found is not None:
        return reject(state, event, f"block {index} is already a {found[0]} block")
    message = tuple_of(_Message, (*message[:5], (*message.open_tools, call_id)))
    return (message, index, TOOL, _EMPTY, (call_id, event.tool_name, None), state[5]), ()


def _on_json(state: AssemblerState, event: InputJsonDelta) -> Result:
    if state[2] is TOOL and event.index == state[1] and type(event.partial_json) is str:
        new = state[3].append(event.partial_json)
        return (state[0], state[1], TOOL, new, state[4], state[5]), ()
    if state[0] is None:
        return reject(state, event, _no_message("tool input"))
    problem = _bad_index(state, event.index)
    if problem is not None or type(event.partial_json) is not str:
        return reject(state, event, problem or "partial_json must be a string")
    message, found = _focus(state, event.index)
    if found is None:
        return reject(state, event, f"no tool call was started at block {event.index}")
    if found[0] is DONE:
        return reject(state, event, f"tool call {found[2][0]!r} is already complete")
    if found[0] is not TOOL:
        return reject(state, event, _kind_clash(event.index, found, TOOL))
    new = found[1].append(event.partial_json)
    return (message, event.index, TOOL, new, found[2], state[5]), ()


def _on_tool_stop(state: AssemblerState, event: ToolUseStop) -> Result:
    if state[0] is None:
        return reject(state, event, _no_message("tool_use_stop"))
    problem = _bad_index(state, event.index)
    if problem is not None:
        return reject(state, event, problem)
    message, found = _focus(state, event.index)
    if found is None or found[0] not in (TOOL, DONE):
        return reject(state, event, f"no tool call was started at block {event.index}")
    kind, chunks, extra = found
    if extra[0] != event.tool_call_id:
        return reject(
            state, event, f"block {event.index} holds tool call {extra[0]!r}, not this one"
        )
    if kind is DONE:
        return reject(state, event, f"tool call {extra[0]!r} is already complete")
    check_again(event)
    part = _tool_part(chunks, extra, None)
    base = state[5]
    base = tuple_of(_Base, (awaited(base.pending, part.tool_call_id, part.tool_name), base.strict))
    open_tools = tuple(i for i in message.open_tools if i != extra[0])
    message = tuple_of(_Message, (*message[:5], open_tools))
    new_state = (message, event.index, DONE, chunks, (extra[0], extra[1], part), base)
    return new_state, (_tool_call_message(message.message_id, part, event.timestamp),)


def _on_provider_part(state: AssemblerState, event: ProviderPartEvent) -> Result:
    """A provider-side tool's call or result is a block of its own; a citation joins the
    text block it cites (one is started for it if none is there yet)."""
    if state[0] is None:
        return reject(state, event, _no_message("provider_part"))
    problem = _bad_index(state, event.index)
    if problem is not None:
        return reject(state, event, problem)
    check_again(event)
    part = event.part
    message, found = _focus(state, event.index)
    if type(part) is CitationPart:
        if found is None:
            found = (TEXT, _EMPTY, None)
        elif found[0] is not TEXT:
            return reject(state, event, _kind_clash(event.index, found, TEXT))
        return (message, event.index, TEXT, found[1], (*(found[2] or ()), part), state[5]), ()
    if found is None:
        parts: tuple[Any, ...] = (part,)
    elif found[0] is PROVIDER:
        parts = (*found[2], part)  # a call and its result in one item (OpenAI's)
    else:
        return reject(state, event, _kind_clash(event.index, found, PROVIDER))
    return (message, event.index, PROVIDER, None, parts, state[5]), ()


def _on_message_delta(state: AssemblerState, event: MessageDelta) -> Result:
    message = state[0]
    if message is None:
        return reject(state, event, _no_message("message_delta"))
    if not isinstance(event.usage, Usage) or not isinstance(event.stop_reason, str | None):
        return reject(state, event, "usage must be a Usage and stop_reason a string or None")
    check_again(event)
    stop_reason = message.stop_reason if event.stop_reason is None else event.stop_reason
    message = tuple_of(
        _Message, (message[0], message[1], message[2], event.usage, stop_reason, message[5])
    )
    return (message, state[1], state[2], state[3], state[4], state[5]), ()


def _close(
    state: AssemblerState, cut_off: str | None, timestamp: int, stop_reason: str | None = None
) -> Result:
    """Turn the open message into outputs: tool calls finished now, then the message.

    ``cut_off`` (``"error"``/``"interrupted"``) marks a flushed, incomplete message whose
    unfinished tool calls get an ``input_error``; otherwise they are parsed as if stopped.
    ``stop_reason``, when given, overrides the one the message got from ``message_delta``.
    """
    message, base = state[0], state[5]
    assert message is not None
    if cut_off is not None:
        stop_reason = cut_off
    elif stop_reason is None:
        stop_reason = message.stop_reason
    blocks = _all_blocks(state)
    parts: list[Part] = []
    outputs: list[Any] = []
    pending = base.pending
    for block in blocks:
        if block is None:
            continue
        kind, chunks, extra = block
        if kind is TEXT:
            if chunks or not extra:  # a block of citations alone has no text
                parts.append(_text_part("".join(chunks)))
            if extra:
                parts.extend(extra)  # the citations of this text
        elif kind is PROVIDER:
            parts.extend(extra)
        elif kind is THINKING:
            parts.append(_thinking_part("".join(chunks), extra[0], extra[1]))
        elif kind is DONE:
            parts.append(extra[2])
        else:
            part = _tool_part(chunks, extra, cut_off)
            parts.append(part)
            pending = awaited(pending, part.tool_call_id, part.tool_name)
            if cut_off is None:
                outputs.append(_tool_call_message(message.message_id, part, timestamp))
    outputs.append(
        _assistant_message(
            message.message_id,
            message.model,
            tuple(parts),
            message.usage,
            stop_reason,
            cut_off is not None,
            timestamp,
        )
    )
    if pending is not base.pending:
        base = tuple_of(_Base, (pending, base.strict))
    return (None, None, None, None, None, base), tuple(outputs)


def _on_message_stop(state: AssemblerState, event: MessageStop) -> Result:
    message = state[0]
    if message is None:
        return reject(state, event, _no_message("message_stop"))
    if not isinstance(event.stop_reason, str | None):
        return reject(state, event, "stop_reason must be a string or None")
    check_again(event)
    return _close(state, None, event.timestamp, event.stop_reason)


def _on_tool_result(state: AssemblerState, event: ToolResult) -> Result:
    if type(event.tool_call_id) is not str:  # a forged one: its repr may not be safe
        return reject(state, event, "tool_call_id must be a string")
    base = state[5]
    pending, name = answered(base.pending, event.tool_call_id)
    if name is None:
        return reject(state, event, f"no pending tool call has id {event.tool_call_id!r}")
    message = ToolResultMessage.answering(event, name)  # checks the event again
    return (*state[:5], tuple_of(_Base, (pending, base.strict))), (message,)


def _on_error(state: AssemblerState, event: ErrorReceived) -> Result:
    check_again(event)
    error = _error_message(event.message, event.code, event.retryable, event.timestamp)
    if state[0] is None:
        return state, (error,)
    flushed, outputs = _close(state, "error", event.timestamp)
    return flushed, (*outputs, error)


def _on_interrupt(state: AssemblerState, event: Interrupt) -> Result:
    check_again(event)
    if state[0] is None:
        return state, ()
    return _close(state, "interrupted", event.timestamp)


def _ignore(state: AssemblerState, event: object) -> Result:
    return state, ()


def _on_user_message(state: AssemblerState, event: UserMessage) -> Result:
    """Nothing to assemble; checked for the processors after this one."""
    check_again(event)
    return state, ()


Handler: TypeAlias = Callable[[AssemblerState, Any], Result]

HANDLERS: Mapping[type[Any], Handler] = {
    MessageStart: _on_message_start,
    TextDelta: _on_text,
    ThinkingDelta: _on_thinking,
    ToolUseStart: _on_tool_start,
    InputJsonDelta: _on_json,
    ToolUseStop: _on_tool_stop,
    MessageDelta: _on_message_delta,
    MessageStop: _on_message_stop,
    ProviderPartEvent: _on_provider_part,
    ToolResult: _on_tool_result,
    ErrorReceived: _on_error,
    Interrupt: _on_interrupt,
    ConversationClose: _ignore,  # the loop closes a run only once its reply is in
    UserMessage: _on_user_message,
}
"""Event class -> handler, for the stream events the assembler reacts to."""


def unknown_event(state: AssemblerState, event: object) -> Result:
    """Events of other layers are ignored; anything else is a protocol error."""
    if is_event(event):
        return state, ()
    return reject(state, event, "not an agentcore event")


def message_assembler_processor(state: AssemblerState, event: object) -> Result:
    """Assemble stream events into messages.

    Emits ``ToolCallMessage`` at ``tool_use_stop`` (or at ``message_stop`` for a call that
    never got one), ``AssistantMessage`` at ``message_stop``, ``ToolResultMessage`` for a
    ``tool_result`` answering a pending call, ``ErrorMessage`` for ``error_received`` (after
    flushing the open message as ``incomplete``), the flushed message on ``interrupt``, and
    a ``PROTOCOL_ERROR`` ``ErrorMessage`` for input it had to ignore. Deltas emit nothing.
    """
    handler = HANDLERS.get(type(event))
    if handler is None:
        return unknown_event(state, event)
    try:
        return handler(state, event)
    except ProtocolError:
        raise
    except (AttributeError, TypeError, ValueError) as exc:
        return malformed(state, event, exc)


def malformed(state: AssemblerState, event: object, exc: Exception) -> Result:
    """The safety net for events whose fields have impossible types or are missing."""
    return reject(state, event, f"malformed event ({type(exc).__name__}: {exc})")


# -- fast paths for callers that fold many deltas (the combined processor, replay) ----------


_HOT_DELTAS: Mapping[object, type[Any]] = {
    TEXT: TextDelta,
    THINKING: ThinkingDelta,
    TOOL: InputJsonDelta,
}


def hot_block(state: AssemblerState) -> tuple[type[Any], int] | None:
    """``(delta class, block index)`` of the deltas that would only append their chunk to
    the block being streamed: a chunk that is a ``str``, this ``index``, and every other
    data field ``None`` (the first branch of that delta's handler); ``None`` when no
    block is being streamed."""
    cls = _HOT_DELTAS.get(state[KIND])
    return None if cls is None else (cls, state[INDEX])


def with_chunks(state: AssemblerState, chunks: list[str]) -> AssemblerState:
    """``state`` after the deltas ``hot_block`` describes, carrying ``chunks`` in order:
    equal to feeding them one by one, at one call for the whole run."""
    return (
        state[MESSAGE],
        state[INDEX],
        state[KIND],
        state[CHUNKS].extend(chunks),
        state[EXTRA],
        state[BASE],
    )


def summary(state: AssemblerState) -> dict[str, Any]:
    """What the assembler holds, for people: the open message (id, model, its blocks by
    kind) and the tool calls whose results are awaited."""
    message = state[MESSAGE]
    open_message: dict[str, Any] | None = None
    if message is not None:
        blocks = [b[0] for b in _all_blocks(state) if b is not None]
        open_message = {"message_id": message.message_id, "model": message.model, "blocks": blocks}
    return {"open_message": open_message, "awaiting_results": dict(state[BASE].pending)}
