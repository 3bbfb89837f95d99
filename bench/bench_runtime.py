"""Runtime figures: driver-to-presenter latency under load, and journal replay speed.

1. Latency: 1,000 engines run at once, each on a driver that stamps ``perf_counter_ns``
   right before yielding each text delta; a presenter stamps it again on receipt. The
   difference covers the machine, the state machine and delivery (target p99 < 200 µs).
2. Replay: a 1,000,000-event JSONL journal (10,000 turns of ~100 events) is read,
   decoded and folded through a fresh machine (target > 500,000 events/s), both as
   ``replay`` does by default (in this process, the file read in chunks, runs of deltas
   in bulk) and with ``parallel=True`` (a forked child shares the parsing); the read and
   decode part alone, the JSON parsing inside it, and the machine event by event (from a
   MemoryJournal) are timed too. Median and best of three runs, as this 2-core machine is
   noisy. Then the memory a replay takes (peak RSS, in a fresh process), and
   reopening the file for append: the first append of its agent, and ``last_seq`` of an
   agent the file does not hold (one backward read of the whole file).
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from agentcore import ModelRequest
from agentcore._journal.read import dumps as _dumps
from agentcore._journal.read import loads as _loads
from agentcore.engine import create_agent
from agentcore.events import (
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    UserMessage,
    to_dict,
)
from agentcore.journal import JsonlJournal, MemoryJournal, read_jsonl, replay

ENGINES = 1_000
DELTAS = 50
JOURNAL_EVENTS = 1_000_000
REPLAY_RUNS = 3


class StampingDriver:
    """Yields one scripted call, recording when each event left the driver."""

    name = "bench"

    def __init__(self, sent: dict[int, int]) -> None:
        self.sent = sent

    async def _stream(self) -> AsyncIterator[StreamEvent]:
        events: list[StreamEvent] = [MessageStart(message_id="m", model="bench", timestamp=1)]
        events += [TextDelta(text="token ", index=0, timestamp=1) for _ in range(DELTAS)]
        events += [MessageDelta(stop_reason="end_turn"), MessageStop(stop_reason="end_turn")]
        for event in events:
            await asyncio.sleep(0)  # let the other engines run in between
            self.sent[id(event)] = time.perf_counter_ns()
            yield event

    def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        return self._stream()

    def interrupt(self) -> None:
        pass


class StampingPresenter:
    def __init__(self, sent: dict[int, int], latencies: list[int]) -> None:
        self.sent = sent
        self.latencies = latencies

    def present(self, agent_id: str, output: Any) -> None:
        start = self.sent.pop(id(output), None)
        if start is not None:
            self.latencies.append(time.perf_counter_ns() - start)


def _latency() -> None:
    sent: dict[int, int] = {}
    latencies: list[int] = []

    async def run() -> None:
        engines = [
            create_agent(StampingDriver(sent), [StampingPresenter(sent, latencies)])
            for _ in range(ENGINES)
        ]
        await asyncio.gather(*(e.receive("go") for e in engines))

    start = time.perf_counter()
    asyncio.run(run())
    elapsed = time.perf_counter() - start
    latencies.sort()
    n = len(latencies)
    p50 = latencies[n // 2] / 1000
    p99 = latencies[int(n * 0.99)] / 1000
    print(
        f"latency driver->presenter, {ENGINES} concurrent engines, {n:,} events: "
        f"p50 {p50:.1f} µs, p99 {p99:.1f} µs, max {latencies[-1] / 1000:.1f} µs "
        f"(target p99 < 200 µs); {n / elapsed:,.0f} events/s overall"
    )


def _write_journal(path: str) -> int:
    """10,000 turns of user message, start, 95 deltas, delta, stop (100 events each)."""
    lines: list[bytes] = []
    seq = 0
    per_turn = 100
    for turn in range(JOURNAL_EVENTS // per_turn):
        events: list[Any] = [
            UserMessage(message_id=f"u{turn}", content="hello", timestamp=turn),
            MessageStart(message_id=f"m{turn}", model="bench", timestamp=turn),
        ]
        events += [TextDelta(text="tok ", index=0, timestamp=turn)] * (per_turn - 4)
        events += [
            MessageDelta(stop_reason="end_turn", usage={"input_tokens": 9}, timestamp=turn),
            MessageStop(stop_reason="end_turn", timestamp=turn),
        ]
        for event in events:
            seq += 1
            lines.append(_dumps({"agent_id": "bench", "seq": seq, "event": to_dict(event)}))
    with open(path, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    return seq


def _replay_speed() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "journal.jsonl")
        count = _write_journal(path)
        size = os.path.getsize(path) / 1e6
        in_memory = MemoryJournal(read_jsonl(path))
        lines = Path(path).read_bytes().split(b"\n")[:-1]
        runs: list[tuple[str, Callable[[], object]]] = [
            ("JSON parsing alone", lambda: sum(1 for x in lines if _loads(x))),
            ("read + decode (default: in this process)", lambda: sum(1 for _ in read_jsonl(path))),
            (
                "read + decode, parallel=True (parsed by a forked child)",
                lambda: sum(1 for _ in read_jsonl(path, parallel=True)),
            ),
            (
                "replay from the JSONL file (default: in this process)",
                lambda: sum(1 for _ in replay(path)),
            ),
            (
                "replay from the JSONL file, parallel=True (parsed by a forked child)",
                lambda: sum(1 for _ in replay(path, parallel=True)),
            ),
            (
                "replay from a MemoryJournal (one event at a time)",
                lambda: sum(1 for _ in replay(in_memory)),
            ),
        ]
        timings: dict[str, list[float]] = {label: [] for label, _ in runs}
        for _ in range(REPLAY_RUNS):
            for label, run in runs:
                gc.collect()
                start = time.perf_counter()
                run()
                timings[label].append(time.perf_counter() - start)
        for label, seconds in timings.items():
            median, best = statistics.median(seconds), min(seconds)
            print(
                f"{label}: {count:,} events ({size:.0f} MB): median {count / median:,.0f} "
                f"events/s, best {count / best:,.0f} events/s ({REPLAY_RUNS} runs)"
            )
        print("(target: replay > 500,000 events/s)")
        _replay_memory(path, size)
        _reopen(path)


_PEAK_RSS = """
import sys
from agentcore.journal import replay

def peak_mb():  # VmHWM: this process's own peak (ru_maxrss would count its parent's, forked)
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024

before = peak_mb()
sum(1 for _ in replay(sys.argv[1]))
print(before, peak_mb())
"""


def _replay_memory(path: str, size: float) -> None:
    """Peak RSS of a default replay of the file, in a fresh process (Linux)."""
    if not os.path.exists("/proc/self/status"):
        return
    out = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS, path], capture_output=True, text=True, check=True
    )
    before, after = (float(x) for x in out.stdout.split())
    print(
        f"replay memory: peak RSS {after:.1f} MB, {before:.1f} MB of it before the replay "
        f"(imports), for a {size:.0f} MB file"
    )


def _reopen(path: str) -> None:
    """Reopen the file and append once to its agent; ask for an agent it does not hold."""
    length = os.path.getsize(path)
    try:
        start = time.perf_counter()
        journal = JsonlJournal(path)
        journal.append("bench", TextDelta(text="one more", index=0))
        first = time.perf_counter() - start
        start = time.perf_counter()
        assert journal.last_seq("somebody else") == 0
        unknown = time.perf_counter() - start
        journal.close()
    finally:
        os.truncate(path, length)
    print(
        f"reopen for append: open + first append {first * 1e3:.1f} ms; last_seq of an agent "
        f"the file does not hold (reads all of it backwards) {unknown * 1e3:.0f} ms"
    )


def main() -> None:
    _latency()
    _replay_speed()


if __name__ == "__main__":
    main()
