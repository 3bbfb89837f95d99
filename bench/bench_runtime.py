"""Runtime figures: driver-to-presenter latency under load, and journal replay speed.

1. Latency: 1,000 engines run at once, each on a driver that stamps ``perf_counter_ns``
   right before yielding each text delta; a presenter stamps it again on receipt. The
   difference covers the machine, the state machine and delivery (target p99 < 200 µs).
2. Replay: a 1,000,000-event JSONL journal (10,000 turns of ~100 events) is read,
   decoded and folded through a fresh machine (target > 500,000 events/s); the read and
   decode part alone, and the JSON parsing inside it, are timed too.
"""

from __future__ import annotations

import asyncio
import gc
import os
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agentcore import ModelRequest
from agentcore._journal_read import dumps as _dumps
from agentcore._journal_read import loads as _loads
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
from agentcore.journal import MemoryJournal, read_jsonl, replay

ENGINES = 1_000
DELTAS = 50
JOURNAL_EVENTS = 1_000_000


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
        gc.collect()
        in_memory = MemoryJournal(read_jsonl(path))
        timings = {}
        lines = Path(path).read_bytes().split(b"\n")[:-1]
        for label, run in (
            ("JSON parsing alone", lambda: sum(1 for x in lines if _loads(x))),
            ("read + decode", lambda: sum(1 for _ in read_jsonl(path))),
            (
                "replay from the JSONL file (read + decode + machine)",
                lambda: sum(1 for _ in replay(path)),
            ),
            (
                "replay from a MemoryJournal (machine only)",
                lambda: sum(1 for _ in replay(in_memory)),
            ),
        ):
            start = time.perf_counter()
            run()
            timings[label] = time.perf_counter() - start
        for label, seconds in timings.items():
            print(
                f"{label}: {count:,} events ({size:.0f} MB) in {seconds:.2f} s = "
                f"{count / seconds:,.0f} events/s"
            )
        print("(target: replay > 500,000 events/s)")


def main() -> None:
    _latency()
    _replay_speed()


if __name__ == "__main__":
    main()
