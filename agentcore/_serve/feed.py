"""Fan-out: one agent's outputs to many SSE clients, and resuming a client from the journal.

A ``Feed`` is a (synchronous) presenter of one agent. It keeps one ``Channel`` per wire
protocol and options that clients use (``agentcore`` with ``layers=message``, ``ag-ui``...):
each output is encoded once per channel, framed with its event id, and appended to the
channel's ring buffer. Every client of a channel reads that buffer at its own pace from
its own position; the agent never waits for a client. A client that falls more than the
buffer's length behind is cut, and reconnects with its ``Last-Event-ID``.

Readers are woken at most once per ``flush`` seconds: the first frame after a quiet spell
wakes them at once, frames that follow within ``flush`` wait for the next wake and go out
together. A fast stream (a model sending deltas back to back, each read from the network
in its own loop iteration) would otherwise wake every client once per delta, and with 200
clients that costs the agent fifty times its own work; batched, the cost of a client is
bounded by the wake rate, whatever the stream's rate (bench/bench_serve.py).

A channel is born from the journal: folding it through the conversation machine and the
encoder gives the encoder's state and the frames a reconnecting client missed (those
after its cursor), exactly as they were sent live, since the processor and the encoder
are pure. Folding is synchronous, so it sees the journal and the channel at the same
point: no frame is lost or sent twice between the replayed part and the live part.

An agent with sub-agents shares its journal with them, one lane each. Its outputs include
theirs (``SubagentEvent``), which are numbered with the agent's own last entry, as live;
the fold is the tree's (``replay_tree``: every lane in journal order, which is delivery
order), so a reconnecting client gets the children's frames too, with the same ids.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from .._agents.replay import replay_tree
from .._core.machine import MealyMachine
from .._journal.journal import Journal, JournalEntry
from .protocol import Cursor, StreamProtocol, sse_frame

__all__ = ["Channel", "Feed", "Reader"]

_UNSET = Cursor(0, -1)


class Channel:
    """The frames of one protocol and options for one agent, in a bounded ring buffer."""

    __slots__ = (
        "_joined",
        "_last_wake",
        "_pending",
        "_waiters",
        "agent_id",
        "buffer",
        "cursor",
        "ended",
        "flush",
        "max_frames",
        "params",
        "protocol",
        "readers",
        "start",
        "state",
        "trimmed",
    )

    def __init__(
        self,
        agent_id: str,
        protocol: StreamProtocol,
        params: Mapping[str, str],
        state: Any,
        cursor: Cursor,
        max_frames: int,
        flush: float = 0.0,
    ) -> None:
        self.agent_id = agent_id
        self.protocol = protocol
        self.params = dict(params)
        self.state = state
        self.cursor = cursor
        """The cursor of the last frame made (``(seq, -1)`` before an entry's first)."""
        self.buffer: deque[tuple[int, int, bytes]] = deque()
        """``(seq, n, frame)`` per frame: plain tuples, which the garbage collector stops
        tracking (a ``Cursor`` per frame made full collections grow with the buffer)."""
        self.start = 0
        """Absolute index of ``buffer[0]``; frames before it were dropped."""
        self.trimmed: tuple[int, int] | None = None
        """``(seq, n)`` of the last dropped frame (None: nothing dropped yet)."""
        self.max_frames = max_frames
        self.flush = flush
        """The least time between two wakes of the readers, in seconds (module docstring)."""
        self.readers = 0
        self.ended = False
        self._waiters: list[asyncio.Future[None]] = []
        self._pending: asyncio.TimerHandle | None = None
        self._last_wake = float("-inf")
        self._joined: tuple[int, int, bytes] = (0, 0, b"")

    @property
    def end(self) -> int:
        """Absolute index just past the newest frame."""
        return self.start + len(self.buffer)

    def push(self, seq: int, agent_id: str, output: Any) -> None:
        """Encode one output of journal entry ``seq`` and append its frames."""
        self.state, frames = self.protocol.encode(self.state, agent_id, output)
        if not frames:
            return
        cursor = self.cursor
        n = cursor.n if cursor.seq == seq else -1
        buffer = self.buffer
        prefix = f"{self.agent_id}:{seq}."
        for event, data in frames:
            n += 1
            buffer.append((seq, n, sse_frame(data, event, f"{prefix}{n}").encode()))
        self.cursor = Cursor(seq, n)
        overflow = len(buffer) - self.max_frames
        if overflow > 0:
            for _ in range(overflow):
                dropped = buffer.popleft()
            self.trimmed = (dropped[0], dropped[1])
            self.start += overflow
        if self._waiters and self._pending is None:  # someone waits, and no wake is due
            self._batched_wake()

    def _batched_wake(self) -> None:
        """Wake the readers now, or at ``flush`` seconds after the last wake if sooner."""
        if self.flush <= 0:
            self.wake()
            return
        loop = asyncio.get_running_loop()
        due = self._last_wake + self.flush
        if loop.time() >= due:
            self.wake()
        else:
            self._pending = loop.call_at(due, self.wake)

    def close(self) -> None:
        """No frame will come any more (the agent is gone): readers finish."""
        self.ended = True
        self.wake()

    def wake(self) -> None:
        """Wake the readers now (new frames, the end, or a change of their ``until``)."""
        pending = self._pending
        if pending is not None:
            self._pending = None
            pending.cancel()
        waiters = self._waiters
        if waiters:
            self._waiters = []
            self._last_wake = waiters[0].get_loop().time()
            for waiter in waiters:
                if not waiter.done():  # a cancelled reader's
                    waiter.set_result(None)

    async def changed(self) -> None:
        """Wait for the next frame (or the end)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter  # each reader its own future: cancelling one cancels no other
        except asyncio.CancelledError:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    def index_after(self, cursor: Cursor) -> int | None:
        """The absolute index of the first buffered frame after ``cursor``, or None when
        frames after it were already dropped (the journal must supply them)."""
        position = (cursor.seq, cursor.n)
        if self.trimmed is not None and position < self.trimmed:
            return None
        index = self.start
        for seq, n, _ in self.buffer:
            if (seq, n) > position:
                break
            index += 1
        return index

    def frames(self, begin: int, stop: int | None = None) -> bytes:
        """The frames from absolute index ``begin`` (>= ``start``) to ``stop`` (the end)."""
        stop = self.end if stop is None else stop
        joined = self._joined
        if joined[0] == begin and joined[1] == stop:  # readers woken together share one copy
            return joined[2]
        buffer = self.buffer
        offset = begin - self.start
        if offset == 0 and stop == self.end:
            chunk = b"".join([entry[2] for entry in buffer])
        else:
            chunk = b"".join([buffer[i][2] for i in range(offset, stop - self.start)])
        self._joined = (begin, stop, chunk)
        return chunk


class Reader:
    """One client's position in a channel: an async iterator of SSE bytes.

    It yields ``backlog`` (frames replayed from the journal) first, then the channel's
    frames from ``index``, batching what has piled up. It stops when the client falls
    behind the buffer (``cut`` turns true: the client must reconnect), when the channel
    ends, or, with ``until`` set, once ``until()`` is true and every frame made before
    it turned true was sent (then the protocol's closing frames go out).
    """

    def __init__(
        self,
        channel: Channel,
        index: int,
        backlog: bytes = b"",
        *,
        until: Callable[[], bool] | None = None,
        detach: Callable[[], None] | None = None,
    ) -> None:
        self.channel = channel
        self.index = index
        self.backlog = backlog
        self.until = until
        self.cut = False
        self._detach = detach
        self._closed = False
        channel.readers += 1

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._frames()

    async def _frames(self) -> AsyncIterator[bytes]:
        channel = self.channel
        try:
            if self.backlog:
                yield self.backlog
                self.backlog = b""
            while True:
                done = self.until is not None and self.until()
                if self.index < channel.start:
                    self.cut = True
                    return
                if self.index < channel.end:
                    stop = channel.end
                    chunk = channel.frames(self.index, stop)
                    self.index = stop
                    yield chunk
                    continue
                if done:
                    closing = channel.protocol.end(channel.state)
                    if closing:
                        yield "".join(sse_frame(d, e) for e, d in closing).encode()
                    return
                if channel.ended:
                    return
                await channel.changed()
        finally:
            self.close()

    def close(self) -> None:
        """Leave the channel (idempotent); the last reader of a channel detaches it."""
        if self._closed:
            return
        self._closed = True
        self.channel.readers -= 1
        if self._detach is not None and self.channel.readers <= 0:
            self._detach()


class Feed:
    """The presenter that fans one agent's outputs out to its channels (module docstring).

    ``journal`` is the agent's (it numbers the outputs: each belongs to the entry last
    appended); ``machine_factory`` builds the machine its journal replays through (the
    conversation machine with the agent's prices). ``max_frames`` bounds each channel's
    buffer, and so how far a client may fall behind before it is cut; ``flush`` is the
    least time between two wakes of a channel's readers (module docstring).
    """

    def __init__(
        self,
        agent_id: str,
        journal: Journal,
        machine_factory: Callable[[], MealyMachine],
        *,
        max_frames: int = 4096,
        flush: float = 0.0,
    ) -> None:
        if max_frames < 1:
            raise ValueError(f"max_frames must be at least 1, got {max_frames}")
        if not flush >= 0:
            raise ValueError(f"flush must be a number of seconds >= 0, got {flush}")
        self.agent_id = agent_id
        self.journal = journal
        self.machine_factory = machine_factory
        self.max_frames = max_frames
        self.flush = flush
        self.channels: dict[tuple[str, tuple[tuple[str, str], ...]], Channel] = {}
        self._private: list[Channel] = []
        self._seq = 0
        self._rewound: list[tuple[int, int]] = []

    # -- the presenter ------------------------------------------------------------------

    def present(self, agent_id: str, output: Any) -> None:
        channels = self.channels
        if not channels and not self._private:
            return
        seq = self.journal.last_seq(self.agent_id)
        for channel in channels.values():
            channel.push(seq, agent_id, output)
        for channel in self._private:
            channel.push(seq, agent_id, output)

    def rewound(self, first: int, last: int) -> None:
        """The frames of entries ``first`` to ``last`` went out for inputs the journal
        does not hold (a durable model call cut by a dying worker, then performed again):
        every reader finishes, and a client that comes back with a cursor among them is
        replayed from just before ``first`` (``resume_point``)."""
        self._rewound.append((first, last))
        self.close()

    def resume_point(self, after: Cursor | None) -> Cursor | None:
        """Where a client that last saw ``after`` resumes: before a rewound range it was
        in (``rewound``), else ``after``."""
        if after is not None:
            for first, last in self._rewound:
                if first <= after.seq <= last:
                    return Cursor(first - 1, 1 << 62)
        return after

    def close(self) -> None:
        """The agent is gone: every reader finishes."""
        for channel in [*self.channels.values(), *self._private]:
            channel.close()
        self.channels.clear()
        self._private.clear()

    # -- clients -------------------------------------------------------------------------

    def read(
        self,
        protocol: StreamProtocol,
        params: Mapping[str, str],
        after: Cursor | None,
        *,
        until: Callable[[], bool] | None = None,
    ) -> Reader:
        """A reader of ``protocol`` (with ``params``) from just after ``after`` (None: from
        now on), until ``until()`` (``Reader``). Raises ``ValueError`` for bad ``params``."""
        key = (protocol.name, tuple(sorted(params.items())))
        after = self.resume_point(after)
        channel = self.channels.get(key)
        backlog = b""
        if channel is None:
            channel, backlog = self._replayed(protocol, params, after)
            self.channels[key] = channel
            index = channel.end
        elif after is None:
            index = channel.end
        else:
            found = channel.index_after(after)
            if found is None:
                _, backlog = self._replayed(protocol, params, after)
                index = channel.end
            else:
                index = found

        def detach() -> None:
            if self.channels.get(key) is channel:
                del self.channels[key]

        return Reader(channel, index, backlog, until=until, detach=detach)

    def read_run(
        self,
        protocol: StreamProtocol,
        prepare: Callable[[Any], Any],
        until: Callable[[], bool],
    ) -> Reader:
        """A private reader for one run's response: the protocol's state now, passed
        through ``prepare`` (e.g. to name the run), and frames from now until ``until()``."""
        channel, _ = self._replayed(protocol, {}, None)
        channel.state = prepare(channel.state)
        self._private.append(channel)

        def detach() -> None:
            if channel in self._private:
                self._private.remove(channel)

        return Reader(channel, channel.end, until=until, detach=detach)

    def _replayed(
        self, protocol: StreamProtocol, params: Mapping[str, str], after: Cursor | None
    ) -> tuple[Channel, bytes]:
        """A channel folded from the journal, and the frames after ``after`` (synchronous:
        no output can arrive meanwhile)."""
        state = protocol.initial(self.agent_id, params)
        channel = Channel(self.agent_id, protocol, params, state, _UNSET, 1 << 62)
        missed: list[bytes] = []
        position = None if after is None else (after.seq, after.n)
        root = self.agent_id
        last = [0]  # the agent's own last entry so far: what numbers an output, as live

        def entries() -> Iterator[JournalEntry]:
            for entry in self.journal.entries():
                if entry.agent_id == root:
                    last[0] = entry.seq
                yield entry  # replay_tree yields this entry's outputs before the next

        for _, output in replay_tree(entries(), root, self.machine_factory):
            channel.push(last[0], root, output)
            if len(channel.buffer) >= 1024:
                missed += _after(channel.buffer, position)
        missed += _after(channel.buffer, position)
        channel.start = 0
        made = channel.cursor
        channel.trimmed = None if made == _UNSET else (made.seq, made.n)  # none is buffered
        channel.max_frames = self.max_frames
        channel.flush = self.flush
        return channel, b"".join(missed)


def _after(buffer: deque[tuple[int, int, bytes]], position: tuple[int, int] | None) -> list[bytes]:
    """The frames of ``buffer`` after ``position`` (None: none), emptying it."""
    found = [] if position is None else [f for seq, n, f in buffer if (seq, n) > position]
    buffer.clear()
    return found
