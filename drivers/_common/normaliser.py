"""The interface of a vendor's stream normaliser: pure functions from decoded chunks to events.

A normaliser turns the items one streamed call decodes to (JSON dicts, usually) into
agentcore stream events, one item at a time, with no I/O and no clock: the streaming
skeleton (``drivers._common.stream``) reads the clock and passes each item's ``timestamp`` in,
so the same items and timestamps always give the same events. States are immutable;
a step that changes nothing returns the state it was given.

Contract, for any sequence of items a vendor may send:

- ``step(state, item, ts)`` returns the next state and the events for ``item``. It may
  raise ``KeyError``, ``TypeError`` or ``ValueError`` for an item that breaks the
  vendor's schema; the skeleton reports that as ``error_received``.
- ``finish(state, ts)``: the stream ended cleanly. Returns the closing events: held text,
  then ``message_delta`` and ``message_stop`` when the vendor said the message was
  complete, or a retryable ``CONNECTION_ERROR`` when the stream was cut before that.
  Called once; nothing is emitted after it.
- ``flush(state, ts)``: the stream failed or was interrupted. Returns the text still held
  back (``drivers._common.guard``), so nothing received is lost; the skeleton adds the error.
- ``finished(state)``: the vendor's terminal event arrived. A read failure after it
  changes nothing; later items are ignored.

The events of a call are well formed for the assembler: ``message_start`` first and once,
``message_stop`` or ``error_received`` last, every tool call started is stopped exactly
once before ``message_stop``, and every string is valid Unicode free of the state's keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import attrs

from agentcore.events import StreamEvent

__all__ = ["Events", "Normaliser"]

S = TypeVar("S")
C = TypeVar("C")

Events = Sequence[StreamEvent]
"""What one step emits (often one event, often none)."""


@attrs.frozen(slots=True)
class Normaliser(Generic[S, C]):
    """A vendor's normaliser: its four pure functions (see the module docstring).

    Each vendor module also has a ``start(...)`` building its initial state from what the
    driver knows before the first item (a fallback message id and model, the keys).
    """

    step: Callable[[S, C, int], tuple[S, Events]]
    finish: Callable[[S, int], tuple[S, Events]]
    flush: Callable[[S, int], tuple[S, Events]]
    finished: Callable[[S], bool]
