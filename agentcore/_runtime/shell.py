"""The fold at the heart of the one runtime: stamp, scrub, journal, fold, deliver, perform.

``Shell.feed(event)`` is the only way an input reaches an agent's conversation state:

1. an event whose ``timestamp`` is 0 is stamped with the runtime's millisecond clock;
2. secrets (API keys, bearer tokens) are scrubbed from it, so what is folded is exactly
   what the journal holds and a replay gives the same outputs;
3. it is appended to the journal (when there is one) *before* it is folded;
4. it is folded through the conversation processor;
5. every output is delivered (presenters, subscribers, through the interceptors) in
   order, except effect requests, which go to the performer.

Feeding is synchronous and not re-entrant: an event fed while outputs are being
delivered (a subscriber calling ``steer``, a performer answering at once) waits in a
backlog and is folded right after, in order. The shell decides nothing about the
conversation: which input goes where, and what to do next, is the processor's.

A journal that fails to append is reported (``EngineFailure`` with source ``journal``)
and the input is folded anyway: an agent never gets stuck on its log (resume then lacks
that input; the failure says so). With a snapshot store, the state is saved after every
``snapshot_every``-th journaled input (a failing save is reported the same way).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from .._core.events import LAYERS, ErrorReceived, InputJsonDelta, TextDelta, ThinkingDelta
from .._core.processor import AnyProcessor
from .._core.secrets import SHORTEST_SECRET, holds_secret, scrub_event
from .._core.state_machine import AgentState, StateChange
from .._journal.journal import Journal
from .._journal.resume import dump_state
from .._journal.snapshots import SnapshotStore
from .._loop.events import EFFECTS
from .delivery import EngineFailure
from .outlet import Outlet, stamped

__all__ = ["Shell"]

_TEXT_DELTAS = (TextDelta, ThinkingDelta)
"""Deltas whose one field that may hold a secret is ``text`` (the others are an index and
maybe a signature); ``InputJsonDelta``'s is ``partial_json``."""


class Shell:
    """One agent's conversation state and the loop that advances it (module docstring).

    ``outlet.send(output)`` hands a non-effect output on (interceptors, presenters,
    subscribers);
    ``perform(effect)`` performs an effect request; ``report`` takes failures;
    ``activity(state)`` reads what the agent is doing, for ``on_state_change`` handlers.
    """

    __slots__ = (
        "_backlog",
        "_change_handlers",
        "_collectors",
        "_feeding",
        "activity",
        "agent_id",
        "clock",
        "journal",
        "outlet",
        "perform",
        "processor",
        "report",
        "snapshot_every",
        "snapshots",
        "state",
    )

    def __init__(
        self,
        processor: AnyProcessor,
        state: Any,
        *,
        agent_id: str,
        clock: Callable[[], int],
        journal: Journal | None,
        outlet: Outlet,
        perform: Callable[[Any], None],
        report: Callable[[EngineFailure], None],
        activity: Callable[[Any], AgentState],
        snapshots: SnapshotStore | None = None,
        snapshot_every: int = 1000,
    ) -> None:
        self.processor = processor
        self.state = state
        self.agent_id = agent_id
        self.clock = clock
        self.journal = journal
        self.outlet = outlet
        self.perform = perform
        self.report = report
        self.activity = activity
        self.snapshots = snapshots
        self.snapshot_every = snapshot_every
        self._backlog: deque[Any] = deque()
        self._feeding = False
        self._collectors: tuple[list[Any], ...] = ()
        self._change_handlers: tuple[Callable[[StateChange], object], ...] = ()

    # -- feeding --------------------------------------------------------------------------

    def feed(self, event: Any) -> None:
        """Stamp, scrub, journal and fold ``event``; deliver its outputs; perform effects.

        An event fed while another is being folded (by a presenter, a handler, an effect
        performed inline) waits in the backlog and is folded right after, in order."""
        self.feed_stream((event,), 0)

    def feed_stream(self, events: Sequence[Any], start: int) -> int:
        """``feed`` each of ``events[start:]`` in turn, stopping after one that performed
        an effect, left the outlet congested or is an ``error_received`` (what a model
        call's reader must look at before it goes on); return the index after the last
        event fed. A driver's batch of stream events comes through here, so it is one
        flat loop, and a batch costs one entry and exit instead of one per event."""
        if self._feeding:
            self._backlog.extend(stamped(e, self.clock()) for e in events[start:])
            return len(events)
        self._feeding = True
        processor, outlet, backlog, end = self.processor, self.outlet, self._backlog, len(events)
        index = start
        try:
            while index < end:
                event = events[index]
                index += 1
                if getattr(event, "timestamp", 1) == 0:  # ``stamped``, inline: every delta's path
                    event = attrs.evolve(event, timestamp=self.clock())
                performed, ends = False, type(event) is ErrorReceived
                while True:
                    cls = type(event)
                    if cls in _TEXT_DELTAS:
                        if len(event.text) >= SHORTEST_SECRET and holds_secret(event.text):
                            event = scrub_event(event)
                    elif cls is not InputJsonDelta or holds_secret(event.partial_json):
                        event = scrub_event(event)
                    seq = self._journal(event) if self.journal is not None else 0
                    before = self.state
                    self.state, outputs = processor(before, event)
                    if seq and self.snapshots is not None and seq % self.snapshot_every == 0:
                        self._snapshot(seq)
                    if outputs:
                        if self._collectors:
                            self._collect(outputs)
                        deliver = outlet.send
                        for output in outputs:
                            if type(output) in EFFECTS:
                                self.perform(output)
                                performed = True
                            else:
                                deliver(output)
                        if self._change_handlers:
                            self._announce(before, outputs)
                    if not backlog:
                        break
                    event = backlog.popleft()
                if performed or ends or outlet.congested:
                    return index
            return index
        finally:
            self._feeding = False

    def _collect(self, outputs: tuple[Any, ...]) -> None:
        for collector in self._collectors:
            collector.extend(o for o in outputs if type(o) not in EFFECTS)

    def _journal(self, event: Any) -> int:
        assert self.journal is not None
        try:
            return self.journal.append(self.agent_id, event)
        except Exception as exc:  # the log failed: say so, never get stuck on it
            self.report(EngineFailure("journal", repr(self.journal), exc, event))
            return 0

    def _snapshot(self, seq: int) -> None:
        assert self.snapshots is not None
        try:
            self.snapshots.save(self.agent_id, seq, dump_state(self.state))
        except Exception as exc:  # a snapshot is an optimisation: report, go on
            self.report(EngineFailure("journal", repr(self.snapshots), exc, seq))

    # -- watching ------------------------------------------------------------------------

    def collect(self) -> list[Any]:
        """Start collecting every delivered output (for a ``Reply``, or to see what a
        command caused) into a new list, returned; collections may nest."""
        collected: list[Any] = []
        self._collectors = (*self._collectors, collected)
        return collected

    def stop_collecting(self, collected: list[Any]) -> None:
        self._collectors = tuple(c for c in self._collectors if c is not collected)

    def on_state_change(self, handler: Callable[[StateChange], object]) -> Callable[[], None]:
        """Call ``handler(StateChange)`` after each step that changed the activity."""
        self._change_handlers = (*self._change_handlers, handler)

        def remove() -> None:
            self._change_handlers = tuple(h for h in self._change_handlers if h is not handler)

        return remove

    def _announce(self, before: Any, outputs: tuple[Any, ...]) -> None:
        previous, current = self.activity(before), self.activity(self.state)
        if previous is current:
            return
        cause = next((o for o in reversed(outputs) if _is_state_event(o)), None)
        change = StateChange(previous, current, cause)
        for handler in self._change_handlers:
            try:
                handler(change)
            except Exception as exc:
                self.report(EngineFailure("handler", repr(handler), exc, change))


def _is_state_event(output: Any) -> bool:
    return LAYERS.get(getattr(output, "type", ""), "") == "state"
