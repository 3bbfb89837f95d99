"""Hypothesis strategies for event streams, and a purity check for any processor.

Imported only through ``agentcore.testing`` (hypothesis is the optional ``testing`` extra).
Valid streams come with what the assembler must make of them, so a property test can
compare against an expectation instead of re-implementing the assembler.
"""

from __future__ import annotations

import base64
import copy
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Annotated, Any, ClassVar, Literal, TypeVar

import attrs
from hypothesis import strategies as st

from .._core.caching import CACHE_TTLS, Cache
from .._core.checks import JSONValue, NonNegativeInt
from .._core.content import (
    AudioContent,
    ContentPart,
    DocumentContent,
    FileContent,
    ImageContent,
    Part,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
)
from .._core.driver import OUTPUT_MODES, OutputSpec
from .._core.events import (
    EVENT_TYPES,
    AssistantMessage,
    ConversationEnd,
    ConversationInterrupted,
    ConversationResponding,
    ConversationStart,
    ConversationThinking,
    ErrorMessage,
    ErrorOccurred,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolCallMessage,
    ToolCompleted,
    ToolExecuting,
    ToolFailed,
    ToolPlanned,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    TurnRequest,
    TurnResponse,
    UserMessage,
)

__all__ = [
    "AssistantStream",
    "Turn",
    "assistant_streams",
    "broken_streams",
    "check_processor",
    "chunked",
    "content_parts",
    "events",
    "garbage",
    "instances",
    "json_objects",
    "json_values",
    "output_specs",
    "rechunked",
    "registered_events",
    "stream_events",
    "turns",
    "unchecked",
    "usages",
]

_T = TypeVar("_T")

_text = st.text(max_size=12)
_ids = st.text("abcdefghij0123456789-_", min_size=1, max_size=8)
_names = st.sampled_from(["search", "calc", "read_file", "weather"])
_models = st.sampled_from(["claude-sonnet-4-5", "gpt-4o", "local-model"])
_timestamps = st.integers(0, 2**40)
_stop_reasons = st.sampled_from(["end_turn", "max_tokens", "stop_sequence", "tool_use"])
_codes = st.sampled_from(["PROVIDER_ERROR", "RATE_LIMITED", "OVERLOADED", "CUSTOM_CODE"])
_indexes = st.integers(0, 8)


def usages() -> st.SearchStrategy[Usage]:
    """Token counts of one call."""
    count = st.integers(0, 10**6)
    return st.builds(Usage, count, count, count, count, count)


def json_objects(max_leaves: int = 8) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects as a tool's arguments (no NaN or infinities: JSON has none)."""
    leaves = (
        st.none()
        | st.booleans()
        | st.integers(-(2**53), 2**53)
        | st.floats(allow_nan=False, allow_infinity=False)
        | _text
    )
    values = st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
        max_leaves=max_leaves,
    )
    return st.dictionaries(_text, values, max_size=4)


def chunked(text: str) -> st.SearchStrategy[list[str]]:
    """``text`` cut at arbitrary boundaries (empty chunks included); the chunks join to it."""
    return st.lists(st.integers(0, len(text)), max_size=6).map(
        lambda cuts: [text[a:b] for a, b in pairwise([0, *sorted(cuts), len(text)])]
    )


# -- single events, every type -------------------------------------------------------------

_base64 = st.binary(max_size=48).map(lambda b: base64.b64encode(b).decode("ascii"))
_media_data = _base64 | _text  # a part keeps whatever string it holds
_titles = st.none() | _text
_file_media_types = st.sampled_from(
    ["image/png", "application/pdf", "text/plain", "audio/wav", "video/mp4", "text/csv"]
)


@st.composite
def _file_contents(draw: st.DrawFn) -> FileContent:
    media_type = draw(_file_media_types)
    where = {"url": draw(_text.map("https://example.com/".__add__))}
    if draw(st.booleans()):
        where = {"file_id": draw(_ids)}
    document = media_type in ("application/pdf", "text/plain")
    return FileContent(
        media_type,
        **where,
        provider=draw(st.none() | st.sampled_from(["anthropic", "openai", "google"])),
        title=draw(_titles),
        citations=draw(st.booleans()) if document else False,
    )


def content_parts() -> st.SearchStrategy[ContentPart]:
    """Any content part: text, an inline image, document or audio clip, a file reference."""
    return (
        st.builds(TextContent, _text)
        | st.builds(
            ImageContent,
            st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp"]),
            _media_data,
        )
        | st.builds(
            DocumentContent,
            st.sampled_from(["application/pdf", "text/plain"]),
            _media_data,
            _titles,
            st.booleans(),
        )
        | st.builds(
            AudioContent, st.sampled_from(["audio/wav", "audio/mpeg", "audio/ogg"]), _media_data
        )
        | _file_contents()
    )


_content = _text | st.lists(content_parts(), max_size=3).map(tuple)

_parts = st.lists(
    st.builds(TextPart, _text)
    | st.builds(ThinkingPart, _text, st.none() | _text, st.none() | _text)
    | st.builds(ToolCallPart, _ids, _names, json_objects(4), _text, st.none() | _text),
    max_size=3,
).map(tuple)


def _stream_event_strategies() -> list[st.SearchStrategy[Any]]:
    ts = {"timestamp": _timestamps}
    return [
        st.builds(MessageStart, _ids, _models, **ts),
        st.builds(TextDelta, _text, _indexes, **ts),
        st.builds(ThinkingDelta, _text, _indexes, st.none() | _text, st.none() | _text, **ts),
        st.builds(ToolUseStart, _ids, _names, _indexes, **ts),
        st.builds(InputJsonDelta, _text, _indexes, **ts),
        st.builds(ToolUseStop, _ids, _indexes, **ts),
        st.builds(MessageDelta, st.none() | _stop_reasons, usages(), **ts),
        st.builds(MessageStop, st.none() | _stop_reasons, **ts),
        st.builds(ToolResult, _ids, _content, st.booleans(), st.none() | json_objects(3), **ts),
        st.builds(ErrorReceived, _text, _codes, st.booleans(), **ts),
        st.builds(UserMessage, _ids, _content, **ts),
        st.builds(Interrupt, _text, **ts),
    ]


def stream_events() -> st.SearchStrategy[Any]:
    """One valid stream event of any type (valid alone, not in any particular order)."""
    return st.one_of(_stream_event_strategies())


def events() -> st.SearchStrategy[Any]:
    """One event of any type of the stream, message, state and turn layers."""
    ts = {"timestamp": _timestamps}
    others = [
        st.builds(
            AssistantMessage,
            _ids,
            _models,
            _parts,
            usages(),
            st.none() | _stop_reasons,
            st.booleans(),
            **ts,
        ),
        st.builds(ToolCallMessage, _ids, st.builds(ToolCallPart, _ids, _names), **ts),
        st.builds(
            ToolResultMessage, _ids, _names, _content, st.booleans(), st.none() | _text, **ts
        ),
        st.builds(ErrorMessage, _text, _codes, st.booleans(), **ts),
        st.builds(ConversationStart, _ids, **ts),
        st.builds(ConversationThinking, **ts),
        st.builds(ConversationResponding, **ts),
        st.builds(ToolPlanned, _ids, _names, **ts),
        st.builds(ToolExecuting, _ids, _names, **ts),
        st.builds(ToolCompleted, _ids, _names, **ts),
        st.builds(ToolFailed, _ids, _names, _text, **ts),
        st.builds(ConversationInterrupted, _text, **ts),
        st.builds(ConversationEnd, st.sampled_from(["completed", "interrupted", "error"]), **ts),
        st.builds(ErrorOccurred, _text, _codes, **ts),
        st.builds(TurnRequest, _ids, _ids, **ts),
        st.builds(
            TurnResponse,
            _ids,
            st.integers(0, 10**7),
            usages(),
            st.none() | st.floats(0, 100, allow_nan=False),
            st.none() | _models,
            st.none() | _stop_reasons,
            **ts,
        ),
    ]
    return st.one_of(*_stream_event_strategies(), *others)


# -- any instance, from the annotations ------------------------------------------------------


def json_values(max_leaves: int = 10) -> st.SearchStrategy[Any]:
    """Any JSON value the wire form keeps equal: no NaN or infinities, lists not tuples."""
    leaves = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | _text
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
        max_leaves=max_leaves,
    )


def output_specs() -> st.SearchStrategy[OutputSpec]:
    """Structured-output specs: object schemas of a few typed properties, any mode."""
    kinds = st.sampled_from(["string", "integer", "number", "boolean", "null"])
    properties = st.dictionaries(_text, kinds.map(lambda k: {"type": k}), max_size=3)
    schemas = st.builds(
        lambda props, closed: {
            "type": "object",
            "properties": props,
            "required": sorted(props),
            "additionalProperties": not closed,
        },
        properties,
        st.booleans(),
    )
    return st.builds(
        OutputSpec, schemas, _names, _text, st.sampled_from(OUTPUT_MODES), st.integers(0, 3)
    )


def caches() -> st.SearchStrategy[Cache]:
    """Prompt-caching options: any placement, TTL, key, retention and cached content."""
    names = _names
    return st.builds(
        Cache,
        st.booleans(),
        st.none() | st.sampled_from(CACHE_TTLS),
        st.booleans(),
        st.booleans(),
        st.lists(names, max_size=3).map(tuple),
        st.none() | names,
        st.none() | st.sampled_from(["in_memory", "24h"]),
        st.none() | names.map(lambda n: f"cachedContents/{n}"),
    )


def _annotation_values(tp: Any) -> st.SearchStrategy[Any]:
    """Any value the annotation ``tp`` allows (see ``agentcore._core.checks``)."""
    if tp == JSONValue:
        return json_values()
    if tp == NonNegativeInt:
        return st.integers(min_value=0)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        return _annotation_values(args[0])
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(_annotation_values(a) for a in args))
    if origin is tuple:
        return st.lists(_annotation_values(args[0]), max_size=3).map(tuple)
    if origin is Mapping:
        return st.dictionaries(_text, _annotation_values(args[1]), max_size=3)
    if tp is str:
        return _text
    if tp is float:
        return st.floats(allow_nan=False, allow_infinity=False) | st.integers()
    if tp is OutputSpec:
        return output_specs()
    if tp is Cache:
        return caches()
    simple = {int: st.integers(), bool: st.booleans(), type(None): st.none(), Any: st.none()}
    return simple[tp] if tp in simple else instances(tp)


def instances(cls: type[Any]) -> st.SearchStrategy[Any]:
    """An instance of the event or value class ``cls`` with any field values its
    annotations allow, nested values included (fields typed ``Any`` get ``None``). Works
    for any ``checked`` attrs class, later layers' events included."""
    if cls is FileContent:  # its fields depend on each other (exactly one source)
        return _file_contents()
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = {n: t for n, t in hints.items() if typing.get_origin(t) is not ClassVar}
    return st.builds(cls, **{name: _annotation_values(tp) for name, tp in fields.items()})


def registered_events() -> st.SearchStrategy[Any]:
    """An instance of any registered event type, of any layer (see ``instances``)."""
    return st.sampled_from(sorted(EVENT_TYPES.values(), key=lambda c: c.type)).flatmap(instances)


# -- whole assistant messages --------------------------------------------------------------


@attrs.frozen
class AssistantStream:
    """A valid stream for one assistant message and what it must assemble into."""

    events: tuple[Any, ...]
    message_id: str
    model: str
    parts: tuple[Part, ...]
    usage: Usage
    stop_reason: str

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))


@st.composite
def _block(
    draw: st.DrawFn, index: int, call_id: str, kinds: Sequence[str]
) -> tuple[Part, list[Any]]:
    """One content block: its expected part and its own events in order."""
    kind = draw(st.sampled_from(kinds))
    if kind == "text":
        text = draw(_text)
        return TextPart(text), [TextDelta(c, index) for c in draw(chunked(text))]
    if kind == "thinking":
        text = draw(_text)
        signature = draw(st.none() | _ids)
        deltas: list[Any] = [ThinkingDelta(c, index) for c in draw(chunked(text))]
        if signature is not None:
            deltas.append(ThinkingDelta("", index, signature=signature))
        return ThinkingPart(text, signature), deltas
    arguments = draw(json_objects())
    empty_text: bool = draw(st.booleans())  # "" and "{}" both mean no arguments
    raw = "" if not arguments and empty_text else json.dumps(arguments)
    name = draw(_names)
    body = [InputJsonDelta(c, index) for c in draw(chunked(raw))]
    part = ToolCallPart(call_id, name, arguments, raw)
    return part, [ToolUseStart(call_id, name, index), *body, ToolUseStop(call_id, index)]


@st.composite
def _interleaved(draw: st.DrawFn, scripts: list[list[_T]]) -> list[_T]:
    """Merge event lists, keeping each list's own order."""
    queues = [list(reversed(s)) for s in scripts if s]
    merged: list[_T] = []
    while queues:
        i = draw(st.integers(0, len(queues) - 1))
        merged.append(queues[i].pop())
        if not queues[i]:
            queues.pop(i)
    return merged


@st.composite
def assistant_streams(
    draw: st.DrawFn,
    message_id: str | None = None,
    *,
    max_blocks: int = 4,
    tool_calls: bool | None = None,
) -> AssistantStream:
    """``message_start``, interleaved text/thinking/tool-call blocks (several tool calls may
    stream at once), ``message_delta`` with usage, ``message_stop``.

    ``tool_calls``: ``True`` for at least one tool call, ``False`` for none, ``None`` for
    either. Tool call ids are ``"<message_id>-t<index>"``, unique across messages.
    """
    message_id = message_id if message_id is not None else draw(_ids)
    model = draw(_models)
    count = draw(st.integers(1 if tool_calls else 0, max(max_blocks, 1)))
    forced = draw(st.integers(0, count - 1)) if tool_calls else -1
    kinds = ["text", "thinking", "tool"] if tool_calls is not False else ["text", "thinking"]
    blocks = [
        draw(_block(i, f"{message_id}-t{i}", ["tool"] if i == forced else kinds))
        for i in range(count)
    ]
    usage = draw(usages())
    has_tools = any(isinstance(p, ToolCallPart) for p, _ in blocks)
    stop_reason = "tool_use" if has_tools else draw(_stop_reasons.filter(lambda r: r != "tool_use"))
    body = draw(_interleaved([evs for _, evs in blocks]))
    stream = [
        MessageStart(message_id, model),
        *body,
        MessageDelta(usage=draw(usages())),
        MessageDelta(stop_reason=stop_reason, usage=usage),
        MessageStop(),
    ]
    parts = tuple(p for p, _ in blocks)
    return AssistantStream(tuple(stream), message_id, model, parts, usage, stop_reason)


@attrs.frozen
class Turn:
    """A whole turn: the user message, model calls, tool results between them."""

    events: tuple[Any, ...]
    calls: tuple[AssistantStream, ...]


@st.composite
def turns(draw: st.DrawFn, turn_number: int = 1, *, max_calls: int = 3) -> Turn:
    """``user_message``, then model calls; after a call with tool calls come their results
    (in any order) and another call; the last call uses no tools. Timestamps increase."""
    user_id = f"u{turn_number}"
    events: list[Any] = [UserMessage(user_id, draw(_text))]
    calls: list[AssistantStream] = []
    count = draw(st.integers(1, max_calls))
    for n in range(count):
        last = n == count - 1
        call = draw(assistant_streams(f"m{turn_number}-{n}", tool_calls=not last))
        calls.append(call)
        events.extend(call.events)
        if not last:
            results = [
                ToolResult(p.tool_call_id, draw(_text), is_error=draw(st.booleans()))
                for p in call.tool_calls
            ]
            events.extend(draw(st.permutations(results)))
    gaps = draw(st.lists(st.integers(0, 50), min_size=len(events), max_size=len(events)))
    stamped = _stamp(events, gaps)
    return Turn(tuple(stamped), tuple(calls))


def _stamp(events: Iterable[Any], gaps: Sequence[int]) -> list[Any]:
    now = 1_000
    out = []
    for event, gap in zip(events, gaps, strict=False):
        now += gap
        out.append(attrs.evolve(event, timestamp=now))
    return out


def rechunked(stream: Sequence[Any]) -> st.SearchStrategy[list[Any]]:
    """The same stream with every text, thinking and JSON delta split at new boundaries."""

    @st.composite
    def build(draw: st.DrawFn) -> list[Any]:
        out: list[Any] = []
        for event in stream:
            if type(event) is TextDelta:
                out += [attrs.evolve(event, text=p) for p in draw(chunked(event.text))]
            elif type(event) is ThinkingDelta:
                # a signature or redacted data stays on the last piece only
                *head, last = draw(chunked(event.text))
                out += [ThinkingDelta(p, event.index, timestamp=event.timestamp) for p in head]
                out.append(attrs.evolve(event, text=last))
            elif type(event) is InputJsonDelta:
                pieces = draw(chunked(event.partial_json))
                out += [attrs.evolve(event, partial_json=p) for p in pieces]
            else:
                out.append(event)
        return out

    return build()


# -- broken input --------------------------------------------------------------------------


def unchecked(cls: type[Any], *values: Any, **fields: Any) -> Any:
    """An instance of the attrs class ``cls`` holding these field values (positional in
    field order, or by name; the rest take their defaults), built without its converters
    and field checks: the events a processor must survive although no constructor
    builds them (a driver that bypassed ``__init__``, a corrupted object)."""
    attributes = attrs.fields(cls)
    given = dict(zip((a.name for a in attributes), values, strict=False)) | fields
    instance = object.__new__(cls)
    for a in attributes:
        if a.name in given:
            value = given[a.name]
        elif isinstance(a.default, attrs.Factory):  # type: ignore[arg-type]
            value = a.default.factory()
        elif a.default is not attrs.NOTHING:
            value = a.default
        else:
            continue  # left unset: reading it raises AttributeError
        object.__setattr__(instance, a.name, value)
    return instance


def garbage() -> st.SearchStrategy[Any]:
    """Things that are not valid events: other objects, and events with impossible fields
    (built with ``unchecked``, as their constructors refuse them)."""
    return st.one_of(
        st.none(),
        st.integers(),
        _text,
        st.dictionaries(_text, _text, max_size=2),
        st.builds(object),
        st.builds(unchecked, st.just(TextDelta), st.integers() | st.none(), _text | st.none()),
        st.builds(
            unchecked, st.just(InputJsonDelta), st.none() | st.integers(), st.integers(-5, 5000)
        ),
        st.builds(
            unchecked, st.just(ToolUseStart), st.integers(), st.none(), st.floats(allow_nan=False)
        ),
        st.builds(unchecked, st.just(ToolUseStop), st.none(), st.text(max_size=2)),
        st.builds(unchecked, st.just(MessageStart), st.none() | st.integers(), st.none()),
        st.builds(unchecked, st.just(MessageStop), st.integers()),
        st.builds(unchecked, st.just(ThinkingDelta), _text, _indexes, st.integers()),
        st.builds(unchecked, st.just(ToolResult), st.integers() | _ids, _text),
        st.sampled_from([TextDelta, MessageStop, ToolResult]).map(object.__new__),
    )


@st.composite
def broken_streams(draw: st.DrawFn) -> list[Any]:
    """A valid turn, then damaged: events dropped, duplicated, moved, garbage inserted."""
    events = list(draw(turns(max_calls=2)).events)
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["drop", "duplicate", "move", "garbage", "unknown index"]))
        at = draw(st.integers(0, max(len(events) - 1, 0)))
        if action == "garbage" or not events:
            events.insert(at, draw(garbage()))
        elif action == "drop":
            events.pop(at)
        elif action == "duplicate":
            events.insert(at, events[at])
        elif action == "move":
            events.insert(draw(st.integers(0, len(events) - 1)), events.pop(at))
        else:
            events.insert(at, TextDelta("?", draw(st.integers(50, 100))))
    return events


# -- conformance --------------------------------------------------------------------------


def check_processor(
    processor: Callable[[Any, Any], tuple[Any, tuple[Any, ...]]],
    initial_state: Any,
    events: Iterable[Any],
) -> tuple[Any, list[Any]]:
    """Run ``events`` through ``processor`` and assert it behaves as a pure processor.

    For every event: the outputs are a tuple; neither the state nor the event is mutated
    (deep comparison against a copy taken before); calling again with equal inputs gives
    equal outputs and an equal state. Returns the final state and all outputs. Exceptions
    the processor raises propagate unchanged.
    """
    state = initial_state
    outputs: list[Any] = []
    for event in events:
        state_before, event_before = copy.deepcopy(state), _snapshot(event)
        new_state, out = processor(state, event)
        assert type(out) is tuple, f"outputs must be a tuple, got {type(out).__name__}"
        assert state == state_before, f"the processor mutated its input state on {event!r}"
        assert _same(event, event_before), f"the processor mutated the event {event!r}"
        again_state, again = processor(copy.deepcopy(state_before), event_before)
        assert again == out, f"equal inputs gave different outputs on {event!r}"
        assert again_state == new_state, f"equal inputs gave different states on {event!r}"
        outputs.extend(out)
        state = new_state
    return state, outputs


def _snapshot(event: Any) -> Any:
    """A deep copy, or the object itself when it cannot be copied (a broken event)."""
    try:
        return copy.deepcopy(event)
    except Exception:
        return event


def _same(a: Any, b: Any) -> bool:
    """Equality, also for objects compared by identity or too broken to compare."""
    if a is b:
        return True
    try:
        compared_by_identity = getattr(type(a), "__eq__", None) is object.__eq__
        return bool(a == b) or (type(a) is type(b) and compared_by_identity)
    except Exception:
        return True
