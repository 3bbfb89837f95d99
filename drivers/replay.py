"""Drivers that replay recorded model calls, and a recorder that wraps any driver.

``RecordingDriver(driver, journal)`` passes every event the wrapped driver yields through
unchanged and appends it (scrubbed of secrets) to ``journal`` under ``agent_id``.

``ReplayDriver(source)`` plays the recorded model calls back, one per ``receive``. It
accepts a recorder's journal or an agent's journal (a JSONL path, a ``Journal`` or
entries): only the events a driver yields are kept (commands, ``user_message``,
``tool_result`` and ``interrupt`` are the runtime's). A call ends after ``message_stop`` or
``error_received``, or where the next ``message_start`` begins (an interrupted call).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import attrs

from agentcore import BaseDriver, Driver, Journal, ModelRequest, OutputMode, as_driver, ms_clock
from agentcore.events import (
    LAYERS,
    ErrorReceived,
    Interrupt,
    MessageStart,
    MessageStop,
    StreamEvent,
    ToolResult,
    UserMessage,
)
from agentcore.journal import JournalSource, entries_of

from .scripted import ScriptedDriver

__all__ = ["RecordingDriver", "ReplayDriver", "model_calls"]

_RUNTIME_EVENTS = (UserMessage, ToolResult, Interrupt)


def model_calls(source: JournalSource, agent_id: str | None = None) -> list[list[StreamEvent]]:
    """Split the driver events of ``source`` into model calls (see the module docstring)."""
    calls: list[list[StreamEvent]] = []
    current: list[StreamEvent] = []
    for entry in entries_of(source, agent_id):
        event = entry.event
        if LAYERS.get(event.type) != "stream" or isinstance(event, _RUNTIME_EVENTS):
            continue
        if isinstance(event, MessageStart) and current:
            calls.append(current)
            current = []
        current.append(event)
        if isinstance(event, MessageStop | ErrorReceived):
            calls.append(current)
            current = []
    if current:
        calls.append(current)
    return calls


class ReplayDriver(ScriptedDriver):
    """Plays recorded model calls in order.

    Events keep their recorded timestamps, so a replayed run can be compared with the
    recorded one; ``restamp=True`` stamps them as they are played instead, for an agent
    whose own events are stamped now (its turn durations are then the replay's), by
    ``clock`` (milliseconds).
    ``delay`` (seconds between events) lets a demo stream at a readable pace. ``model`` is
    the model of the first recorded call (None without one), so an agent finds its price.
    Raises ``ScriptExhaustedError`` when called more often than the recording has calls.
    """

    def __init__(
        self,
        source: JournalSource,
        *,
        agent_id: str | None = None,
        delay: float = 0.0,
        name: str = "replay",
        restamp: bool = False,
        clock: Callable[[], int] = ms_clock,
    ) -> None:
        calls = model_calls(source, agent_id)
        if restamp:
            calls = [[attrs.evolve(event, timestamp=0) for event in call] for call in calls]
        super().__init__(calls, delay=delay, name=name, clock=clock)
        starts = (e for call in calls for e in call if isinstance(e, MessageStart))
        self.model: str | None = next((e.model for e in starts), None)


class RecordingDriver(BaseDriver):
    """Wraps ``driver``; appends each yielded event to ``journal`` before passing it on.

    ``driver`` is any driver (an object with only ``receive`` is adapted by
    ``agentcore.as_driver``). ``name`` and ``output_modes`` are the wrapped driver's;
    ``interrupt`` and ``aclose`` are forwarded, and ``async with`` closes the wrapped
    driver. A failure the wrapped driver raises is re-raised unchanged (the runtime records it as
    ``error_received``).
    """

    def __init__(self, driver: Driver, journal: Journal, *, agent_id: str = "driver") -> None:
        self.driver = as_driver(driver)
        self.journal = journal
        self.agent_id = agent_id

    @property
    def name(self) -> str:
        return self.driver.name

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        return self.driver.output_modes

    async def _record(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for event in self.driver.receive(request):
            self.journal.append(self.agent_id, event)
            yield event

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return self._record(request)

    def interrupt(self) -> None:
        self.driver.interrupt()

    async def aclose(self) -> None:
        """Close the wrapped driver."""
        await self.driver.aclose()

    def calls(self) -> Sequence[Sequence[Any]]:
        """The model calls recorded so far (as ``ReplayDriver`` would play them)."""
        return model_calls(self.journal, self.agent_id)
