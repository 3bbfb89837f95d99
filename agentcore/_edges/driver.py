"""The driver protocol: how the engine talks to a model (an edge, with its no-op base).

A driver turns a ``ModelRequest`` (``agentcore/_core/driver.py``: the conversation so
far, the tools, the options) into an async iterator of stream events, and stops promptly
when ``interrupt()`` is called. Drivers are shell code: they may read clocks and do I/O,
and they stamp each event's ``timestamp`` (ms) themselves (the runtime stamps any event
left at 0). Implementations live in the ``agentcore.drivers`` package.

Only ``receive`` is required. ``BaseDriver`` gives the optional parts their no-op
defaults (``name``, ``output_modes``, ``receive_batches``, ``interrupt``, ``aclose``,
``async with``); ``as_driver`` adapts any object with a ``receive`` method once, so
callers never probe with ``getattr``. ``collect_reply`` reads one call's reply whole
through the message assembler (a compaction summary, an MCP server's sampling request:
replies that must not enter the conversation), so it is assembled exactly as a reply in
the conversation is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Protocol, Self, runtime_checkable

from .._core.assembler import create_initial_message_assembler_state, message_assembler_processor
from .._core.driver import OUTPUT_MODES, ModelRequest, OutputMode
from .._core.errors import ErrorCode
from .._core.events import (
    AssistantMessage,
    ErrorMessage,
    ErrorReceived,
    Interrupt,
    MessageStop,
    StreamEvent,
)

__all__ = [
    "BaseDriver",
    "Driver",
    "as_driver",
    "close_stream",
    "collect_reply",
    "cut_short",
    "ended_batches",
]


@runtime_checkable
class Driver(Protocol):
    """A source of stream events for one model call at a time, with its lifecycle.

    ``receive`` yields stream events for one assistant message, starting with
    ``message_start`` and ending with ``message_stop`` (or ``error_received`` when the
    call fails: a driver reports failures as events rather than raising, though the
    runtime turns a raised exception, or a stream that ends without either, into
    ``error_received`` too). ``interrupt`` asks the current call to stop as soon as
    possible; it is idempotent, a no-op when idle, and may be called from any thread.
    ``aclose`` releases what the driver owns (an HTTP client it built); it is idempotent.
    ``output_modes`` lists the structured-output modes it supports, best first: what
    ``output_mode="auto"`` picks from.

    ``receive_batches`` is the same stream in batches: what the runtime reads. A driver
    that has several events at hand at once (a scripted call, one network chunk that
    decoded into several events) yields them as one sequence, which the runtime folds in
    one pass instead of one async step per event; ``BaseDriver``'s default yields each
    event of ``receive`` alone. A batch once yielded is folded whole unless the runtime
    cancels the call, so a driver batches only what it would have yielded back to back.
    """

    @property
    def name(self) -> str: ...

    @property
    def output_modes(self) -> tuple[OutputMode, ...]: ...

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]: ...

    def interrupt(self) -> None: ...

    async def aclose(self) -> None: ...


class BaseDriver:
    """No-op defaults for a driver's optional parts; subclass it and write ``receive``.

    ``name`` defaults to the class name; ``output_modes`` to ``("tool", "prompted")``
    (what any model that calls tools can do); ``receive_batches`` to each event of
    ``receive`` alone; ``interrupt`` and ``aclose`` do nothing; ``async with driver:``
    closes it on exit.
    """

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        return ("tool", "prompted")

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError(f"{type(self).__name__} must implement receive(request)")

    async def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        stream = self.receive(request)
        try:
            async for event in stream:
                yield (event,)
        finally:
            await close_stream(stream)

    def interrupt(self) -> None:
        """Nothing to stop by default."""

    async def aclose(self) -> None:
        """Nothing to release by default."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _Adapted(BaseDriver):
    """An object with only ``receive`` (and maybe ``name``), given the missing parts."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def name(self) -> str:
        name = getattr(self._inner, "name", None)
        return name if isinstance(name, str) else type(self._inner).__name__

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        modes = getattr(self._inner, "output_modes", None)
        if isinstance(modes, tuple) and modes and all(m in OUTPUT_MODES for m in modes):
            return modes
        return super().output_modes

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        stream: AsyncIterator[StreamEvent] = self._inner.receive(request)
        return stream

    def receive_batches(self, request: ModelRequest) -> AsyncIterator[Sequence[StreamEvent]]:
        batches = getattr(self._inner, "receive_batches", None)
        if batches is None:
            return super().receive_batches(request)
        stream: AsyncIterator[Sequence[StreamEvent]] = batches(request)
        return stream

    def interrupt(self) -> None:
        interrupt = getattr(self._inner, "interrupt", None)
        if interrupt is not None:
            interrupt()

    async def aclose(self) -> None:
        aclose = getattr(self._inner, "aclose", None)
        if aclose is not None:
            await aclose()

    def __repr__(self) -> str:
        return repr(self._inner)


def as_driver(obj: Any) -> Driver:
    """``obj`` itself when it implements the whole ``Driver`` protocol, else an adapter
    giving it the optional parts' defaults. Raises ``TypeError`` naming what is missing
    when ``obj`` has no callable ``receive``."""
    if not callable(getattr(obj, "receive", None)):
        raise TypeError(
            f"a driver needs a receive(request) method returning an async iterator of stream "
            f"events; got {obj!r}"
        )
    if isinstance(obj, Driver) and isinstance(getattr(obj, "name", None), str):
        return obj
    return _Adapted(obj)


async def close_stream(stream: Any) -> None:
    """Close a driver's stream (an async generator) so its ``finally`` runs now."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


_TERMINAL = (MessageStop, ErrorReceived)


def cut_short(timestamp: int) -> ErrorReceived:
    """The ``error_received`` that ends a model stream which stopped before
    ``message_stop``: a retryable ``CONNECTION_ERROR`` (the call may be tried again)."""
    return ErrorReceived(
        "the model stream ended before message_stop",
        ErrorCode.CONNECTION_ERROR.value,
        retryable=True,
        timestamp=timestamp,
    )


async def ended_batches(
    driver: Driver, request: ModelRequest, clock: Callable[[], int]
) -> AsyncIterator[Sequence[StreamEvent]]:
    """``driver.receive_batches(request)``, ending with ``message_stop`` or
    ``error_received`` whatever the driver does: a stream that stops before either (a
    driver written by hand, a scripted turn without its stop) gets one closing
    ``cut_short`` batch, stamped by ``clock``. What the runtime reads a model call
    through, so no reader of a stream decides what a cut means. A driver that raises
    propagates; closing this stream closes the driver's."""
    stream = driver.receive_batches(request)
    last: Any = None
    try:
        async for batch in stream:
            if batch:
                last = batch[-1]
            yield batch
    finally:
        await close_stream(stream)
    if type(last) not in _TERMINAL:
        yield (cut_short(clock()),)


async def collect_reply(
    driver: Driver, request: ModelRequest
) -> tuple[AssistantMessage | None, ErrorMessage | None]:
    """``driver``'s answer to ``request`` as ``(message, error)``.

    A stream that reaches ``message_stop`` gives the whole message and no error. One that
    ends with an ``error_received`` gives the message cut there (``incomplete``; ``None``
    when none had begun) and the error. One that just stops gives the message so far
    (``incomplete``, or ``None``) and no error: the caller decides what a cut stream
    means. A driver that raises propagates; the stream is closed in every case.
    """
    state: Any = create_initial_message_assembler_state()
    message: AssistantMessage | None = None
    last = 0
    stream = driver.receive(request)
    try:
        async for event in stream:
            state, outputs = message_assembler_processor(state, event)
            last = event.timestamp
            for output in outputs:
                if type(output) is AssistantMessage:
                    if not output.incomplete:
                        return output, None
                    message = output
                elif type(output) is ErrorMessage:
                    return message, output
    finally:
        await close_stream(stream)
    _, outputs = message_assembler_processor(state, Interrupt("cut", timestamp=last))
    cut = next((o for o in outputs if type(o) is AssistantMessage), message)
    return cut, None
