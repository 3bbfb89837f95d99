"""Drivers that play scripted model calls: the workhorses of tests and demos.

``ScriptedDriver(turns)`` takes one list of stream events per model call; each call to
``receive`` plays the next list. ``FunctionDriver(fn)`` asks ``fn(request)`` for each
call's events instead, so a test can script a model that decides from the request (what
the last tool returned, how long the history is), deterministically in any process.
Items in a list may also be:

- an ``Exception`` instance: raised at that point of the stream (an injected failure);
- ``Pause(seconds)``: wait that long before the next event (an injected stall).

Events whose ``timestamp`` is 0 are stamped with the driver's clock (milliseconds;
inject ``clock=`` for deterministic tests), read once per batch: the events handed over
at once share a stamp. Events that carry a timestamp keep it.
``interrupt()`` ends the current stream at the next event boundary, and cuts short any
delay or pause in progress. Every ``ModelRequest`` received is kept in ``requests``.
With no ``delay``, a call whose items are all stream events is one batch.
Both are ``agentcore.BaseDriver`` subclasses: ``aclose`` has nothing to release, and
``async with`` works.

``text_turn`` and ``tool_turn`` build the event lists of common calls.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import typing
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from typing import Any, TypeAlias

import attrs

from agentcore import OUTPUT_MODES, BaseDriver, ModelRequest, OutputMode, ms_clock, stamped
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    ToolUseStop,
    Usage,
)
from agentcore.provider_tools import refuse_provider_tools

__all__ = [
    "FunctionDriver",
    "FunctionReply",
    "Pause",
    "ScriptExhaustedError",
    "ScriptItem",
    "ScriptedDriver",
    "text_turn",
    "tool_turn",
]


@attrs.frozen(slots=True)
class Pause:
    """Wait ``seconds`` before the next scripted event (cut short by ``interrupt()``)."""

    seconds: float


ScriptItem: TypeAlias = StreamEvent | BaseException | Pause
"""One item of a scripted model call."""

FunctionReply: TypeAlias = str | Iterable[ScriptItem] | AsyncIterable[ScriptItem]
"""What a ``FunctionDriver``'s function returns: a text reply, or the call's items."""

_EVENT_TYPES = frozenset(typing.get_args(StreamEvent))
_ITEM_TYPES = (*_EVENT_TYPES, BaseException, Pause)


class ScriptExhaustedError(RuntimeError):
    """``receive`` was called more times than the script has model calls."""


def _checked(item: object, where: str) -> ScriptItem:
    """``item`` if a scripted call may hold it; a ``TypeError`` saying where it was otherwise."""
    if not isinstance(item, _ITEM_TYPES):
        raise TypeError(
            f"{where} holds {item!r} ({type(item).__name__}); a model call is made of stream "
            f"events (agentcore.events), exceptions to raise and Pause(seconds)"
        )
    return typing.cast(ScriptItem, item)


class _Player(BaseDriver):
    """Plays a call's items with the scripted drivers' delay, pauses, stamping and interrupt."""

    def __init__(
        self, *, name: str, delay: float, clock: Callable[[], int], provider_tools: Iterable[str]
    ) -> None:
        self._name = name
        self._provider_tools = frozenset(provider_tools)
        self.requests: list[ModelRequest] = []
        self._delay = delay
        self._clock = clock
        self._wake: asyncio.Event | None = None
        self._interrupted = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        """Every mode: what a scripted reply holds is the script's to decide."""
        return OUTPUT_MODES

    def interrupt(self) -> None:
        """Stop the current stream at the next event boundary; idempotent."""
        self._interrupted = True
        if self._wake is not None:
            self._wake.set()

    def _begin(self, request: ModelRequest) -> None:
        if request.provider_tools:  # the refusal's text is built only for a request that has any
            refuse_provider_tools(
                [t for t in request.provider_tools if t.kind not in self._provider_tools],
                f"{type(self).__name__} {self._name!r}",
                request.model or "(the script)",
                "the kinds given as provider_tools=, here "
                + (", ".join(sorted(self._provider_tools)) or "none"),
            )
        self.requests.append(request)
        self._interrupted = False

    async def _wait(self, seconds: float) -> None:
        if seconds <= 0 or self._interrupted:
            return
        self._wake = wake = asyncio.Event()
        try:
            await asyncio.wait_for(wake.wait(), seconds)
        except TimeoutError:
            pass
        finally:
            self._wake = None

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return self._events(self.receive_batches(request))

    def receive_batches(self, request: ModelRequest) -> AsyncIterator[list[StreamEvent]]:
        """The call's events in batches (see ``agentcore.Driver``): each run of events
        with no delay, pause or exception between them is one batch."""
        raise NotImplementedError

    def _whole(self, items: object) -> list[StreamEvent] | None:
        """``items`` stamped, when they are a list or tuple of stream events only and
        nothing waits between them (no ``delay``); ``None`` otherwise."""
        if self._delay > 0 or type(items) not in (list, tuple):
            return None
        events = typing.cast(Sequence[Any], items)
        for item in events:
            if type(item) not in _EVENT_TYPES:
                return None
        now = self._clock()  # one read per batch: its events arrive at once
        return [stamped(e, now) if e.timestamp == 0 else e for e in events]

    async def _events(
        self, batches: AsyncIterator[list[StreamEvent]]
    ) -> AsyncIterator[StreamEvent]:
        """One event at a time, ending at the event boundary after an ``interrupt()``."""
        async for batch in batches:
            for event in batch:
                if self._interrupted:
                    return
                yield event

    async def _play(self, items: Iterable[ScriptItem]) -> AsyncIterator[list[StreamEvent]]:
        delay = self._delay
        batch: list[StreamEvent] = []
        now = 0  # the batch's stamp: one clock read per batch, at its first event
        for item in items:
            if delay > 0 or type(item) not in _EVENT_TYPES:  # a pause, a failure, a wait
                if batch:
                    yield batch
                    batch = []
                if delay > 0:
                    await self._wait(delay)
                if self._interrupted:
                    return
                if isinstance(item, Pause):
                    await self._wait(item.seconds)
                    continue
                if isinstance(item, BaseException):
                    raise item
            event = typing.cast(StreamEvent, item)
            if not batch:
                now = self._clock()
            batch.append(stamped(event, now) if event.timestamp == 0 else event)
        if batch and not self._interrupted:
            yield batch

    async def _play_async(
        self, items: AsyncIterable[object], where: str
    ) -> AsyncIterator[list[StreamEvent]]:
        """``_play`` for items that arrive one by one (checked as they come)."""
        async for item in items:
            async for batch in self._play((_checked(item, where),)):
                yield batch
            if self._interrupted:
                return


class ScriptedDriver(_Player):
    """Plays one scripted list of events per model call (see the module docstring).

    ``delay`` waits that many seconds before each event (0: no waiting, no task switch).
    Raises ``TypeError`` at construction for an item that is not a stream event, an
    exception or a ``Pause``, and ``ScriptExhaustedError`` from ``receive`` when the
    script has no calls left. A request with provider-side tools (``WebSearch``...) is
    refused with ``ProviderToolError`` unless their kinds (``"web_search"``...) are in
    ``provider_tools``: the script then plays what they do (``provider_part`` events).
    """

    def __init__(
        self,
        turns: Iterable[Sequence[ScriptItem]],
        *,
        delay: float = 0.0,
        name: str = "scripted",
        clock: Callable[[], int] = ms_clock,
        provider_tools: Iterable[str] = (),
    ) -> None:
        super().__init__(name=name, delay=delay, clock=clock, provider_tools=provider_tools)
        self._turns = [
            [_checked(item, f"model call {call + 1} of the script") for item in turn]
            for call, turn in enumerate(turns)
        ]

    @property
    def remaining(self) -> int:
        """How many scripted model calls are left."""
        return len(self._turns) - len(self.requests)

    def receive_batches(self, request: ModelRequest) -> AsyncIterator[list[StreamEvent]]:
        call = len(self.requests)
        if call >= len(self._turns):
            raise ScriptExhaustedError(
                f"ScriptedDriver {self.name!r} has {len(self._turns)} scripted model call(s) "
                f"and call {call + 1} was made; add a turn to the script"
            )
        self._begin(request)
        return self._play(self._turns[call])


class FunctionDriver(_Player):
    """A model played by ``fn(request)``, called once per model call.

    ``fn`` may be sync or async; it returns the call's items (a list or any iterable of
    stream events, exceptions and ``Pause`` items, as in ``ScriptedDriver``), an async
    iterator of them (for a stream that decides as it goes), or a string, which is
    answered as ``text_turn(string)``. The same requests give the same calls, so a new
    process resuming a conversation sees the model continue it the same way.

    ``fn`` raising, or returning something else, fails that call: the exception (a
    ``TypeError`` naming what came back, for a wrong type) is raised from the stream,
    which the runtime reports as a driver error. ``delay`` and ``clock`` are as in
    ``ScriptedDriver``.
    """

    def __init__(
        self,
        fn: Callable[[ModelRequest], FunctionReply | Awaitable[FunctionReply]],
        *,
        delay: float = 0.0,
        name: str = "function",
        clock: Callable[[], int] = ms_clock,
        provider_tools: Iterable[str] = (),
    ) -> None:
        if not callable(fn):
            raise TypeError(f"FunctionDriver needs a function of the request, got {fn!r}")
        super().__init__(name=name, delay=delay, clock=clock, provider_tools=provider_tools)
        self._fn = fn

    def receive_batches(self, request: ModelRequest) -> AsyncIterator[list[StreamEvent]]:
        self._begin(request)
        return self._call(request)

    async def _call(self, request: ModelRequest) -> AsyncIterator[list[StreamEvent]]:
        """The batches of ``fn``'s answer to the call just begun. A list of events with
        nothing to wait between them is one batch, played by this generator alone (no
        generator per layer: this runs for every call)."""
        reply = self._fn(request)
        if inspect.isawaitable(reply):
            reply = await reply
        if isinstance(reply, str):
            reply = text_turn(reply)
        whole = self._whole(reply)
        if whole is None:
            async for batch in self._reply(reply):
                yield batch
        elif whole and not self._interrupted:
            yield whole

    async def _reply(self, reply: object) -> AsyncIterator[list[StreamEvent]]:
        """The batches of what ``fn`` returned, when it is not one list of events."""
        where = f"what {_name_of(self._fn)} returned for model call {len(self.requests)}"
        if isinstance(reply, AsyncIterable):
            async for batch in self._play_async(reply, where):
                yield batch
            return
        if isinstance(reply, Mapping) or not isinstance(reply, Iterable):
            raise TypeError(
                f"{where} is {reply!r} ({type(reply).__name__}); return a list of stream "
                f"events, a string, or an async iterator of events"
            )
        async for batch in self._play([_checked(item, where) for item in reply]):
            yield batch


def _name_of(fn: object) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def text_turn(
    text: str,
    *,
    chunk: int = 8,
    message_id: str = "msg_scripted",
    model: str = "scripted-model",
    thinking: str | None = None,
    signature: str | None = None,
    usage: Usage | Mapping[str, int] | None = None,
) -> list[StreamEvent]:
    """One model call that streams ``text`` in ``chunk``-character deltas and ends the turn.

    With ``thinking``, a signed thinking block (index 0) precedes the text (index 1).
    """
    events: list[StreamEvent] = [MessageStart(message_id=message_id, model=model)]
    index = 0
    if thinking is not None:
        events += [ThinkingDelta(text=p, index=0) for p in _chunks(thinking, chunk)]
        if signature is not None:
            events.append(ThinkingDelta(text="", index=0, signature=signature))
        index = 1
    events += [TextDelta(text=p, index=index) for p in _chunks(text, chunk)]
    return [*events, *_stop("end_turn", usage)]


def tool_turn(
    calls: Sequence[tuple[str, str, Mapping[str, Any]]],
    *,
    text: str = "",
    message_id: str = "msg_scripted",
    model: str = "scripted-model",
    usage: Usage | Mapping[str, int] | None = None,
    start_index: int = 0,
) -> list[StreamEvent]:
    """One model call that asks for tool ``calls`` (``(id, name, input)`` each), streamed
    one after the other after optional ``text``; it ends with stop reason ``tool_use``.
    Blocks are numbered from ``start_index``."""
    events: list[StreamEvent] = [MessageStart(message_id=message_id, model=model)]
    index = start_index
    if text:
        events += [TextDelta(text=p, index=index) for p in _chunks(text, 8)]
        index += 1
    for offset, (call_id, name, args) in enumerate(calls):
        i = index + offset
        raw = json.dumps(dict(args))
        events.append(ToolUseStart(tool_call_id=call_id, tool_name=name, index=i))
        events += [InputJsonDelta(partial_json=p, index=i) for p in _chunks(raw, 12)]
        events.append(ToolUseStop(tool_call_id=call_id, index=i))
    return [*events, *_stop("tool_use", usage)]


def _stop(reason: str, usage: Usage | Mapping[str, int] | None) -> list[StreamEvent]:
    return [MessageDelta(stop_reason=reason, usage=usage), MessageStop(stop_reason=reason)]


def _chunks(text: str, size: int) -> list[str]:
    if size < 1:
        raise ValueError(f"chunk size must be >= 1, got {size}")
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
