"""``Conversation``: the one fold of an agent's inputs (sans-IO, like h11's ``Connection``).

Every shell drives this object and none folds the conversation processor on its own: the
in-process ``Agent``, the durable worker and its steps' previews, a follower of a durable
run, ``resume``, ``replay`` and step replay. ``Conversation.receive(event)`` is the whole
rule for one input:

1. an event whose ``timestamp`` is 0 is stamped with the conversation's clock;
2. secrets (API keys, bearer tokens) are scrubbed from it (the only scrubber of inputs),
   so what is folded is exactly what the journal holds and a replay gives the same
   outputs;
3. it is appended to the journal (when there is one, through the journal protocol:
   ``append(agent_id, event) -> seq``) *before* it is folded;
4. it is folded through the conversation processor, and the outputs are returned, effect
   requests included: the caller decides nothing but where they go.

``feed``/``feed_stream`` are ``receive`` with delivery, for a running agent: each output
goes to ``outlet.send`` except effect requests, which go to ``perform``. Feeding is
synchronous and not re-entrant: an event fed while outputs are being delivered (a
subscriber calling ``steer``) waits in a backlog and is folded right after, in order.
``feed_stream`` is the per-delta hot path, so it inlines ``receive``'s steps (one flat
loop per driver batch), and a delta that only appends to the block being streamed is
journaled and delivered while its chunk waits to be applied with the next ones (see
below), before anything else is folded or the state is read.

A journal that fails to append is reported (``report("journal", name, error, event)``)
and the input is folded anyway, so an agent never gets stuck on its log; with no
``report`` the failure is raised (the durable worker's journal must not diverge). With a
snapshot store, the state is saved after every ``snapshot_every``-th journaled input.

Inputs read back from a journal were stamped and scrubbed when they were journaled:
``catch_up`` folds them with their outputs dropped, applying runs of stream deltas that
only append to the block being streamed in one call (exact: such a delta changes nothing
but the core's hot block and gives the loop nothing to decide; the conversation
processor's one output for it is the delta itself; ``delta_lens`` says where that block
is). ``feed_stream`` takes that fast path live too; the same fast path over a file's
records, which need no event built for such a delta, is
``agentcore._journal.replay.fold_blocks``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Any, Protocol, TypeAlias

from .._core.agent_processor import (
    agent_processor,
    appended_chunk,
    appending,
    chunk_reader,
    with_appended,
)
from .._core.events import (
    LAYERS,
    ErrorReceived,
    InputJsonDelta,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
)
from .._core.processor import AnyProcessor
from .._core.secrets import SCANS, SHORTEST_SECRET, holds_secret, scrub_event
from .._core.state_machine import AgentState, StateChange
from .._edges.clock import stamped
from .._loop.conversation import conversation_processor
from .._loop.events import EFFECTS

__all__ = ["Conversation", "Lens", "Sink", "delta_lens"]

Report: TypeAlias = Callable[[str, str, BaseException, Any], None]
"""``report(source, name, error, subject)``: a journal, snapshot or handler failed."""


class Sink(Protocol):
    """Where delivered outputs go: ``send(output)``; ``congested`` asks a driver's reader
    to wait (an ``Outlet``). A sink with a true ``quiet`` attribute is sent nothing (no
    one would see it)."""

    congested: bool

    def send(self, output: Any) -> None: ...


class Dropped:
    """A sink that keeps nothing (catching up, a conversation nobody watches)."""

    congested = False
    quiet = True

    def send(self, output: Any) -> None:
        """Nothing to deliver to."""


def _ignore(_effect: Any) -> None:
    """Effects of a conversation that performs none."""


def _no_clock() -> int:
    raise TypeError(
        "an input with timestamp 0 reached a conversation made without clock= (inputs "
        "read back from a journal are stamped already)"
    )


_TEXT_DELTAS = (TextDelta, ThinkingDelta)
"""Deltas whose one field that may hold a secret is ``text`` (the others are an index and
maybe a signature); ``InputJsonDelta``'s is ``partial_json``."""


_OPENING = (TextDelta, ThinkingDelta, ToolUseStart, InputJsonDelta)
"""The inputs after which a block may be streaming (``appending`` is asked only then)."""


def _scrubbed(event: Any) -> Any:
    cls = type(event)
    if cls in _TEXT_DELTAS:
        if len(event.text) >= SHORTEST_SECRET and holds_secret(event.text):
            return scrub_event(event)
        return event
    if cls is InputJsonDelta:
        return scrub_event(event) if holds_secret(event.partial_json) else event
    scan = SCANS[cls]
    return scrub_event(event) if scan is not None and scan(event) else event


class Conversation:
    """One agent's conversation state and the one way to advance it (module docstring).

    ``seq`` is the sequence number of the last input: the journal's answer; without a
    journal, ``receive``, ``replayed`` and ``catch_up`` count (``feed`` does not: it is
    the per-delta path, and a conversation that needs numbers has a journal).
    ``activity(state)`` reads what the agent is doing, for ``on_state_change`` handlers.
    """

    __slots__ = (
        "_backlog",
        "_change_handlers",
        "_chunks",
        "_collectors",
        "_feeding",
        "_hot",
        "_lens",
        "_state",
        "activity",
        "agent_id",
        "clock",
        "journal",
        "outlet",
        "perform",
        "processor",
        "report",
        "seq",
        "snapshot",
        "snapshot_every",
        "snapshots",
    )

    def __init__(
        self,
        processor: AnyProcessor,
        state: Any,
        *,
        agent_id: str,
        clock: Callable[[], int] = _no_clock,
        journal: Any = None,
        outlet: Sink | None = None,
        perform: Callable[[Any], None] = _ignore,
        report: Report | None = None,
        activity: Callable[[Any], AgentState] | None = None,
        snapshots: Any = None,
        snapshot: Callable[[Any], bytes] | None = None,
        snapshot_every: int = 1000,
        seq: int = 0,
    ) -> None:
        self.processor = processor
        self._lens = delta_lens(processor)
        self._hot: tuple[type[Any], int] | None = None
        self._chunks: list[str] = []
        self._state = state
        self.agent_id = agent_id
        self.clock = clock
        self.journal = journal
        self.outlet: Sink = Dropped() if outlet is None else outlet
        self.perform = perform
        self.report = report
        self.activity = activity
        self.snapshots = snapshots
        self.snapshot = snapshot
        self.snapshot_every = snapshot_every
        self.seq = seq
        self._backlog: deque[Any] = deque()
        self._feeding = False
        self._collectors: tuple[list[Any], ...] = ()
        self._change_handlers: tuple[Callable[[StateChange], object], ...] = ()

    @property
    def state(self) -> Any:
        """The conversation state after every input folded so far (exact at any time: the
        chunks of deltas ``feed_stream`` only appended are applied on the first read)."""
        if self._chunks:
            self._flush()
        return self._state

    @state.setter
    def state(self, state: Any) -> None:
        self._chunks.clear()  # they were folded into the state being replaced
        self._hot = None
        self._state = state

    def _flush(self) -> None:
        """Apply the pending chunks to the block being streamed (``with_appended``)."""
        assert self._lens is not None
        core_of, with_core, _ = self._lens
        state = self._state
        self._state = with_core(state, with_appended(core_of(state), self._chunks))
        self._chunks.clear()

    # -- one input ------------------------------------------------------------------------

    def receive(self, event: Any) -> tuple[Any, ...]:
        """Stamp, scrub, journal and fold ``event``; its outputs, effect requests
        included, delivered nowhere (the caller's to route)."""
        if getattr(event, "timestamp", 1) == 0:
            event = stamped(event, self.clock())
        event = _scrubbed(event)
        seq = self._journal(event) if self.journal is not None else 0
        self.seq = seq or self.seq + 1
        self.state, outputs = self.processor(self.state, event)
        if seq and self.snapshots is not None and seq % self.snapshot_every == 0:
            self._snapshot(seq)
        return outputs

    def feed(self, event: Any) -> None:
        """``receive`` ``event``; deliver its outputs; perform its effects.

        An event fed while another is being folded (by a presenter, a handler, an effect
        performed inline) waits in the backlog and is folded right after, in order."""
        self.feed_stream((event,), 0)

    def command(self, event: Any) -> list[Any]:
        """``feed`` ``event``; return the outputs of its own fold (effect requests
        included), not of what it caused (an effect performed inline, the backlog): where
        a rejection of a command is read. Empty when ``event`` waits in the backlog."""
        answer: list[Any] = []
        self.feed_stream((event,), 0, answer)
        return answer

    def feed_all(self, events: Iterable[Any]) -> None:
        """``feed`` each of ``events``, in order, as one feed (a tool's result and the
        guardrail trip that follows it reach the loop before the call the result asks
        for is streamed)."""
        batch = tuple(events)
        done = 0
        while done < len(batch):
            done = self.feed_stream(batch, done, None)

    def feed_stream(
        self, events: Sequence[Any], start: int, answer: list[Any] | None = None
    ) -> int:
        """``feed`` each of ``events[start:]`` in turn, stopping after one that performed
        an effect, left the outlet congested or is an ``error_received`` (what a model
        call's reader must look at before it goes on); return the index after the last
        event fed. A driver's batch of stream events comes through here, so it is one
        flat loop (``receive`` inlined), and a batch costs one entry and exit instead of
        one per event.

        The per-delta path: a delta that only appends its chunk to the block being
        streamed (``appending``, known after each other input) is journaled and delivered
        (the conversation processor's one output for it is the delta itself), and its
        chunk is kept; the kept chunks are applied at once (``with_appended``) before the
        next other input is folded or the state is read. Exact, as ``catch_up``'s fast
        path: such a delta changes nothing but the core's hot block.

        Outputs go to ``outlet.send`` unless the outlet is ``quiet`` (nothing would see
        them: no presenter, subscriber or interceptor) and nothing collects them.
        ``answer``, when given, receives the outputs of ``events[start]``'s own fold
        (``command``)."""
        if self._feeding:
            clock = self.clock
            self._backlog.extend(
                stamped(e, clock()) if getattr(e, "timestamp", 1) == 0 else e
                for e in events[start:]
            )
            return len(events)
        self._feeding = True
        processor, outlet, backlog, end = self.processor, self.outlet, self._backlog, len(events)
        chunks, lens = self._chunks, self._lens
        echoes = lens is not None and lens[2]
        index = start
        try:
            while index < end:
                event = events[index]
                index += 1
                if getattr(event, "timestamp", 1) == 0:
                    event = stamped(event, self.clock())
                performed, ends = False, type(event) is ErrorReceived
                while True:
                    cls = type(event)
                    if cls in _TEXT_DELTAS:
                        if len(event.text) >= SHORTEST_SECRET and holds_secret(event.text):
                            event = scrub_event(event)
                    elif cls is InputJsonDelta:
                        if holds_secret(event.partial_json):
                            event = scrub_event(event)
                    elif (scan := SCANS[cls]) is not None and scan(event):
                        event = scrub_event(event)
                    if self.journal is not None:
                        seq = self._journal(event)
                        self.seq = seq or self.seq + 1
                    else:
                        seq = 0  # the hot path of an agent without a journal: no count
                    hot = self._hot
                    chunk = None if hot is None else appended_chunk(event, hot)
                    if chunk is not None:
                        chunks.append(chunk)
                        if echoes:
                            if self._collectors:
                                self._collect((event,))
                            if answer is not None:
                                answer.append(event)
                            if not getattr(outlet, "quiet", False):
                                outlet.send(event)
                        if (
                            index < end
                            and seq == 0
                            and answer is None
                            and not backlog
                            and not self._collectors
                            and not outlet.congested
                            and hot is not None
                            and self._hot is hot
                        ):
                            index = self._appended(events, index, end, hot, echoes)
                    else:
                        if chunks:
                            self._flush()
                        before = self._state
                        self._state, outputs = processor(before, event)
                        self._hot = (
                            appending(lens[0](self._state))
                            if lens is not None and cls in _OPENING
                            else None
                        )
                        if answer is not None:
                            answer.extend(outputs)
                        if outputs:
                            if self._collectors:
                                self._collect(outputs)
                            if getattr(outlet, "quiet", False):
                                if not EFFECTS.isdisjoint(map(type, outputs)):
                                    for output in outputs:
                                        if type(output) in EFFECTS:
                                            self.perform(output)
                                            performed = True
                            else:
                                deliver = outlet.send
                                for output in outputs:
                                    if type(output) in EFFECTS:
                                        self.perform(output)
                                        performed = True
                                    else:
                                        deliver(output)
                            if self._change_handlers:
                                self._announce(before, outputs)
                    if seq and self.snapshots is not None and seq % self.snapshot_every == 0:
                        self._snapshot(seq)
                    answer = None
                    if not backlog:
                        break
                    event = backlog.popleft()
                if performed or ends or outlet.congested:
                    return index
            return index
        finally:
            self._feeding = False

    def _appended(
        self, events: Sequence[Any], index: int, end: int, hot: tuple[type[Any], int], echo: bool
    ) -> int:
        """The run of deltas from ``events[index]`` that, like the one just fed, only
        append to the block being streamed (stamped, holding no secret), each delivered
        as ``feed_stream`` would (a conversation with no journal, collector or backlog);
        return the index after the run. It ends at any other input, or after a delta
        whose delivery left the outlet congested, fed an input or set the state."""
        cls, block = hot
        read = chunk_reader(cls)
        scan_all = cls is InputJsonDelta  # a text's secret is SHORTEST_SECRET long at least
        chunks, outlet, backlog = self._chunks, self.outlet, self._backlog
        send = outlet.send if echo and not getattr(outlet, "quiet", False) else None
        while index < end:
            event = events[index]
            if type(event) is not cls or event.index != block or event.timestamp == 0:
                break
            chunk = read(event)
            if type(chunk) is not str:
                break
            if (scan_all or len(chunk) >= SHORTEST_SECRET) and holds_secret(chunk):
                break  # scrubbed first, by feed_stream
            chunks.append(chunk)
            index += 1
            if send is not None:
                send(event)
                if outlet.congested or backlog or self._hot is not hot or self._collectors:
                    break
        return index

    def _collect(self, outputs: tuple[Any, ...]) -> None:
        for collector in self._collectors:
            collector.extend(o for o in outputs if type(o) not in EFFECTS)

    def _journal(self, event: Any) -> int:
        try:
            seq: int = self.journal.append(self.agent_id, event)
        except Exception as exc:  # the log failed: say so, never get stuck on it
            if self.report is None:
                raise
            self.report("journal", repr(self.journal), exc, event)
            return 0
        return seq

    def _snapshot(self, seq: int) -> None:
        assert self.snapshot is not None, "a snapshot store needs a snapshot= function"
        try:
            self.snapshots.save(self.agent_id, seq, self.snapshot(self.state))
        except Exception as exc:  # a snapshot is an optimisation: report, go on
            if self.report is None:
                raise
            self.report("journal", repr(self.snapshots), exc, seq)

    # -- inputs read back from a journal ---------------------------------------------------

    def catch_up(self, events: Iterable[Any], *, count: bool = True) -> None:
        """Fold journaled ``events`` (stamped and scrubbed already), outputs dropped; the
        delta fast path (module docstring). ``seq`` advances by one per event unless
        ``count`` is false (the caller sets it)."""
        processor, state = self.processor, self.state
        lens = delta_lens(processor)
        n = 0
        if lens is None:
            for event in events:
                state, _ = processor(state, event)
                n += 1
        else:
            core_of, with_core, _ = lens
            hot: tuple[type[Any], int] | None = None
            chunks: list[str] = []
            for event in events:
                n += 1
                if hot is not None:
                    chunk = appended_chunk(event, hot)
                    if chunk is not None:
                        chunks.append(chunk)
                        continue
                if chunks:
                    state = with_core(state, with_appended(core_of(state), chunks))
                    chunks = []
                state, _ = processor(state, event)
                hot = appending(core_of(state))
            if chunks:
                state = with_core(state, with_appended(core_of(state), chunks))
        self.state = state
        if count:
            self.seq += n

    def replayed(self, event: Any) -> tuple[Any, ...]:
        """Fold one journaled ``event`` (stamped and scrubbed already, not journaled
        again); its outputs, effect requests included."""
        self.seq += 1
        if self._chunks:
            self._flush()
        self._hot = None
        self._state, outputs = self.processor(self._state, event)
        return outputs

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
        if self.activity is None:
            raise TypeError("on_state_change needs a conversation made with activity=")
        self._change_handlers = (*self._change_handlers, handler)

        def remove() -> None:
            self._change_handlers = tuple(h for h in self._change_handlers if h is not handler)

        return remove

    def _announce(self, before: Any, outputs: tuple[Any, ...]) -> None:
        assert self.activity is not None
        previous, current = self.activity(before), self.activity(self.state)
        if previous is current:
            return
        cause = next((o for o in reversed(outputs) if _is_state_event(o)), None)
        change = StateChange(previous, current, cause)
        for handler in self._change_handlers:
            try:
                handler(change)
            except Exception as exc:
                if self.report is None:
                    raise
                self.report("handler", repr(handler), exc, change)


def _is_state_event(output: Any) -> bool:
    return LAYERS.get(getattr(output, "type", ""), "") == "state"


# -- the delta fast path ---------------------------------------------------------------------

Lens: TypeAlias = tuple[Callable[[Any], Any], Callable[[Any, Any], Any], bool]
"""``(core of a state, state with another core, whether a delta is its own output)``."""


def _with_core(state: Any, core: Any) -> Any:
    """``state._replace(core=core)`` without its keyword machinery (the core is first)."""
    return tuple.__new__(type(state), (core, *state[1:]))


_WHOLE: Lens = (lambda state: state, lambda _state, core: core, False)
# the conversation echoes its stream inputs as outputs (ECHO)
_CORE: Lens = (itemgetter(0), _with_core, True)


def delta_lens(processor: AnyProcessor) -> Lens | None:
    """How to reach the core state of ``processor``'s state, when a delta that only
    appends a chunk changes nothing else and gives no output: ``agent_processor``, and
    the conversation processor without user processors (it routes deltas to its core
    only). None for any other processor (a user's processor sees every event)."""
    if processor is agent_processor:
        return _WHOLE
    if processor is conversation_processor:
        return _CORE
    return None
