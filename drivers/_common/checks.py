"""Conformance checks anyone can run on a driver: interrupts, stream shape, blank text.

Public through ``drivers.testing``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence

import attrs

from agentcore import Driver, ModelRequest
from agentcore.events import (
    AssistantMessage,
    ErrorReceived,
    MessageStart,
    MessageStop,
    RateLimited,
    StreamEvent,
    ToolCallPart,
    ToolUseStart,
    ToolUseStop,
)
from agentcore.processors import (
    create_initial_message_assembler_state,
    message_assembler_processor,
)

__all__ = [
    "Interrupted",
    "assemble",
    "check_blank_text_before_tools",
    "check_stream",
    "interrupt_when",
]


@attrs.frozen
class Interrupted:
    """What ``interrupt_when`` saw: the events before the interrupt took effect, how long
    ``receive`` took to end after it, and the cancellations left on the consumer's task."""

    events: list[StreamEvent]
    delay: float
    cancelling: int


async def interrupt_when(
    driver: Driver,
    request: ModelRequest,
    ready: Callable[[list[StreamEvent]], bool],
    interrupt: Callable[[], Awaitable[object]] | None = None,
) -> Interrupted:
    """Consume ``driver.receive(request)`` until ``ready(events)``, then interrupt it.

    A conformance check for any driver: ``delay`` says how promptly ``receive`` ended, and
    ``cancelling`` (read inside the consuming task once ``receive`` is over) must be 0, as
    an interrupt must never leave the caller's own task with a pending cancellation.
    ``interrupt`` replaces the default (``driver.interrupt()`` twice: it is idempotent),
    e.g. to interrupt from another thread.
    """
    events: list[StreamEvent] = []

    async def consume() -> int:
        async for event in driver.receive(request):
            events.append(event)
        task = asyncio.current_task()
        assert task is not None
        await asyncio.sleep(0)  # a leaked cancellation would be delivered here
        return task.cancelling()

    task = asyncio.create_task(consume())
    while not ready(events):
        await asyncio.sleep(0.005)
    started = time.perf_counter()
    if interrupt is None:
        driver.interrupt()
        driver.interrupt()
    else:
        await interrupt()
    cancelling = await task
    return Interrupted(events, time.perf_counter() - started, cancelling)


def _strings(event: StreamEvent) -> list[str]:
    return [
        v for v in (getattr(event, a.name) for a in attrs.fields(type(event))) if isinstance(v, str)
    ]


def check_stream(events: Sequence[StreamEvent]) -> None:
    """Assert that ``events`` (one ``receive``) are well formed for the assembler.

    A conformance check for any driver (``rate_limited`` notices aside, which may come
    first): ``message_start`` first and once (or one lone ``error_received`` for a call
    that failed before it started); ``message_stop`` or ``error_received`` last and
    nothing after; tool calls started once, stopped at most once on their own index, all
    stopped before ``message_stop``; every string valid Unicode (encodable as UTF-8).
    Raises ``AssertionError`` naming the first broken rule.
    """
    events = [e for e in events if not isinstance(e, RateLimited)]  # notices go anywhere
    assert events, "the driver yielded nothing: end a call with message_stop or error_received"
    if len(events) == 1 and isinstance(events[0], ErrorReceived):
        return
    assert isinstance(events[0], MessageStart), (
        f"the first event is {events[0]!r}, not message_start"
    )
    assert isinstance(events[-1], MessageStop | ErrorReceived), (
        f"the last event is {events[-1]!r}, not message_stop or error_received"
    )
    open_calls: dict[int, str] = {}
    started: set[str] = set()
    for position, event in enumerate(events):
        for text in _strings(event):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise AssertionError(
                    f"event {position} ({event!r}) holds invalid text: {exc}"
                ) from None
        if position and isinstance(event, MessageStart):
            raise AssertionError(f"a second message_start at event {position}")
        if position < len(events) - 1 and isinstance(event, MessageStop | ErrorReceived):
            raise AssertionError(f"event {position} ({event!r}) ends the call but more followed")
        if isinstance(event, ToolUseStart):
            assert event.tool_call_id not in started, (
                f"tool call {event.tool_call_id!r} started twice"
            )
            assert event.index not in open_calls, f"block {event.index} holds two open tool calls"
            started.add(event.tool_call_id)
            open_calls[event.index] = event.tool_call_id
        elif isinstance(event, ToolUseStop):
            assert open_calls.get(event.index) == event.tool_call_id, (
                f"tool_use_stop for {event.tool_call_id!r} on block {event.index}, which has no "
                f"such open call (open: {open_calls})"
            )
            del open_calls[event.index]
    if isinstance(events[-1], MessageStop):
        assert not open_calls, f"message_stop with tool calls never stopped: {open_calls}"


def assemble(events: Sequence[StreamEvent]) -> AssistantMessage:
    """The one assistant message the engine's own (strict) assembler makes of ``events``."""
    state = create_initial_message_assembler_state(strict=True)
    messages: list[AssistantMessage] = []
    for event in events:
        state, outputs = message_assembler_processor(state, event)
        messages += [o for o in outputs if isinstance(o, AssistantMessage)]
    assert len(messages) == 1, f"expected one assistant message, got {len(messages)}: {messages}"
    return messages[0]


def check_blank_text_before_tools(
    events: Sequence[StreamEvent], tool_names: Sequence[str]
) -> AssistantMessage:
    """Assert that a reply streaming empty or whitespace-only text, then tool calls named
    ``tool_names``, kept its calls: the stream is well formed, it did not end before the
    calls, and the assembled message holds every call, in order, with stop reason
    ``tool_use``. Returns that message.

    A conformance case for any driver (pydantic-ai regressed on it more than once): make
    your driver's model answer with blank text and then tool calls, and pass its events.
    """
    check_stream(events)
    assert isinstance(events[-1], MessageStop), f"the call ended with {events[-1]!r}"
    message = assemble(events)
    calls = [part.tool_name for part in message.parts if isinstance(part, ToolCallPart)]
    assert calls == list(tool_names), (
        f"the assembled message holds tool calls {calls}, expected {list(tool_names)}; "
        f"blank text must not end the turn or hide the calls"
    )
    assert message.stop_reason == "tool_use", f"stop reason {message.stop_reason!r}, not tool_use"
    return message
