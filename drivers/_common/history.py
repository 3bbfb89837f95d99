"""Provider-neutral history normalisation: make a conversation every provider accepts.

The engine's history can hold things no provider API takes back: an assistant message cut
short by an interrupt (no content at all), tool calls that never got a result (the run was
aborted between the model call and the tools), results for calls that do not exist, thinking
produced by another provider, tool-call ids in another provider's alphabet. Drivers run the
history through these pure functions before building a request. Every function takes and
returns a tuple of ``agentcore.Message`` and never mutates its input; each driver picks the
ones its API needs.

API (all pure, all return new tuples):

- ``normalize_history(messages)``: ``drop_empty_assistant_messages`` then
  ``close_orphaned_tool_calls``; the baseline every driver applies.
- ``drop_empty_assistant_messages(messages)``: removes empty text and thinking parts, then
  drops assistant messages with no parts left, and incomplete ones with no text or tool call.
- ``close_orphaned_tool_calls(messages)``: after it, every tool call of an assistant message
  is answered exactly once, by a result placed after that message and before the next user
  or assistant message. Missing results get a synthetic error result (``ORPHAN_RESULT``);
  duplicate results and results answering no call in their span are dropped.
- ``thinking_to_text(messages, keep=...)``: thinking parts ``keep`` rejects become plain text
  parts (redacted or empty ones are dropped), for replaying another provider's reasoning.
- ``normalize_tool_call_ids(messages, disallowed=..., max_len=...)``: rewrites tool-call ids
  (in calls and results alike) into a provider's alphabet and length, injectively.
- ``group_tool_results(messages)``: consecutive tool results as one tuple, for APIs that
  want them in a single message (Anthropic's user message of ``tool_result`` blocks).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

import attrs

from agentcore import Message
from agentcore.events import (
    AssistantMessage,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)

__all__ = [
    "ORPHAN_RESULT",
    "close_orphaned_tool_calls",
    "drop_empty_assistant_messages",
    "group_tool_results",
    "normalize_history",
    "normalize_tool_call_ids",
    "thinking_to_text",
]

ORPHAN_RESULT = "tool call was not answered (interrupted)"
"""The error text of the synthetic result that closes an unanswered tool call."""


def normalize_history(messages: Iterable[Message]) -> tuple[Message, ...]:
    """Drop empty assistant messages, then close orphaned tool calls (idempotent)."""
    return close_orphaned_tool_calls(drop_empty_assistant_messages(messages))


def _has_content(part: Part) -> bool:
    if isinstance(part, TextPart):
        return part.text.strip() != ""
    if isinstance(part, ThinkingPart):
        return bool(part.text or part.signature or part.redacted_data)
    return True


def drop_empty_assistant_messages(messages: Iterable[Message]) -> tuple[Message, ...]:
    """Remove assistant messages a provider would reject for having no content.

    Whitespace-only text parts and thinking parts with neither text, signature nor redacted
    data are removed first. A message with no parts left is dropped; so is an ``incomplete``
    message (cut by an error or interrupt) with no non-blank text and no tool call, since
    half a reasoning block on its own cannot be replayed. Other messages pass unchanged.
    """
    out: list[Message] = []
    for message in messages:
        if not isinstance(message, AssistantMessage):
            out.append(message)
            continue
        parts = tuple(p for p in message.parts if _has_content(p))
        if not parts:
            continue
        if message.incomplete and not any(isinstance(p, TextPart | ToolCallPart) for p in parts):
            continue
        out.append(message if parts == message.parts else attrs.evolve(message, parts=parts))
    return tuple(out)


def close_orphaned_tool_calls(messages: Iterable[Message]) -> tuple[Message, ...]:
    """Answer every tool call exactly once, in the span right after its assistant message.

    The span of an assistant message is the run of tool results that follows it up to the
    next user or assistant message (or the end). In each span, results are kept in their
    order when they answer a call of that message for the first time; duplicates and results
    for unknown ids are dropped (a provider rejects both). Calls left unanswered get a
    synthetic ``is_error`` result with text ``ORPHAN_RESULT``, appended at the end of the
    span in call order, stamped with the assistant message's timestamp.
    """
    out: list[Message] = []
    pending: dict[str, ToolCallPart] = {}
    stamp = 0

    def close_span() -> None:
        out.extend(
            ToolResultMessage(
                tool_call_id=call.tool_call_id,
                tool_name=call.tool_name,
                result=ORPHAN_RESULT,
                is_error=True,
                timestamp=stamp,
            )
            for call in pending.values()
        )
        pending.clear()

    for message in messages:
        if isinstance(message, ToolResultMessage):
            if pending.pop(message.tool_call_id, None) is not None:
                out.append(message)
            continue
        close_span()
        out.append(message)
        if isinstance(message, AssistantMessage):
            stamp = message.timestamp
            for call in message.tool_calls:
                pending.setdefault(call.tool_call_id, call)
    close_span()
    return tuple(out)


def thinking_to_text(
    messages: Iterable[Message],
    keep: Callable[[AssistantMessage, ThinkingPart], bool] = lambda _m, _p: False,
) -> tuple[Message, ...]:
    """Turn thinking parts that ``keep`` rejects into text parts.

    A provider can only take back reasoning it produced itself (Anthropic: signed blocks);
    anything else is replayed as plain text so the model still sees it. Rejected parts with
    no text (redacted blocks) are dropped. ``keep(message, part)`` defaults to rejecting
    everything. Messages left with no parts are dropped.
    """
    out: list[Message] = []
    for message in messages:
        if not isinstance(message, AssistantMessage) or not any(
            isinstance(p, ThinkingPart) for p in message.parts
        ):
            out.append(message)
            continue
        parts: list[Part] = []
        for part in message.parts:
            if not isinstance(part, ThinkingPart) or keep(message, part):
                parts.append(part)
            elif part.text:
                parts.append(TextPart(part.text))
        if parts:
            out.append(attrs.evolve(message, parts=tuple(parts)))
    return tuple(out)


def normalize_tool_call_ids(
    messages: Iterable[Message],
    disallowed: str = r"[^A-Za-z0-9_-]",
    max_len: int = 64,
) -> tuple[Message, ...]:
    """Rewrite tool-call ids to match a provider's rules, the same way in calls and results.

    Characters matching the regex ``disallowed`` become ``_`` and ids are cut to
    ``max_len``. The mapping is deterministic and injective within one call: when two
    different ids would collide (or an id is empty), the later one gets a short hash suffix
    instead. Ids that already fit are left alone. Raises ``ValueError`` when ``max_len`` is
    too small to hold a suffix (< 12).
    """
    if max_len < 12:
        raise ValueError(f"max_len must be at least 12 to keep ids unique, got {max_len}")
    pattern = re.compile(disallowed)
    source = tuple(messages)
    mapping: dict[str, str] = {}
    taken: set[str] = set()

    def fits(value: str) -> bool:
        return value != "" and len(value) <= max_len and pattern.search(value) is None

    originals = [i for m in source for i in _ids_of(m)]
    taken.update(i for i in originals if fits(i))
    for original in originals:
        if original in mapping:
            continue
        if fits(original):
            mapping[original] = original
            continue
        candidate = pattern.sub("_", original)[:max_len]
        salt = 0
        while not candidate or candidate in taken:
            digest = hashlib.sha256(f"{original}\0{salt}".encode()).hexdigest()[:10]
            candidate = f"{pattern.sub('_', original)[: max_len - 11]}_{digest}"
            salt += 1
        mapping[original] = candidate
        taken.add(candidate)
    if all(k == v for k, v in mapping.items()):
        return source
    return tuple(_rename_ids(m, mapping) for m in source)


def group_tool_results(
    messages: Iterable[Message],
) -> tuple[UserMessage | AssistantMessage | tuple[ToolResultMessage, ...], ...]:
    """Gather each run of consecutive tool results into one tuple, keeping order.

    For APIs that want all results of one assistant turn in a single message; a driver
    whose API takes one message per result does not call this.
    """
    out: list[UserMessage | AssistantMessage | tuple[ToolResultMessage, ...]] = []
    run: list[ToolResultMessage] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            run.append(message)
            continue
        if run:
            out.append(tuple(run))
            run = []
        out.append(message)
    if run:
        out.append(tuple(run))
    return tuple(out)


def _ids_of(message: Message) -> tuple[str, ...]:
    if isinstance(message, AssistantMessage):
        return tuple(c.tool_call_id for c in message.tool_calls)
    if isinstance(message, ToolResultMessage):
        return (message.tool_call_id,)
    return ()


def _rename_ids(message: Message, mapping: dict[str, str]) -> Message:
    if isinstance(message, ToolResultMessage):
        new_id = mapping[message.tool_call_id]
        if new_id == message.tool_call_id:
            return message
        return attrs.evolve(message, tool_call_id=new_id)
    if isinstance(message, AssistantMessage) and message.tool_calls:
        parts = tuple(
            attrs.evolve(p, tool_call_id=mapping[p.tool_call_id])
            if isinstance(p, ToolCallPart)
            else p
            for p in message.parts
        )
        return attrs.evolve(message, parts=parts)
    return message
