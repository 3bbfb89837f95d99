"""The path a user takes: an ``Agent`` with a presenter, against the bare core machine.

Printed, each the best of a few rounds (a busy machine inflates a figure, never lowers it),
and the median ratio of rounds measured back to back:

- per streamed text delta, in the same run: the bare core machine twice (the default
  machine, which collects runs of deltas that only append, and the same processor
  folding every delta, the machine the target was set against), the conversation
  processor alone, and the whole ``Agent`` path (scripted driver -> runtime ->
  conversation processor -> one presenter); target (issues 25 and 27): the Agent path
  costs at most 2x the bare core folding each delta; its ratio to the machine collecting
  runs is reported too. The scripted driver hands the runtime its call in one batch
  (``Driver.receive_batches``); the Agent path with a driver that yields one event per
  async step (a network driver whose chunks hold one event each) is printed too;
- resume of an agent from a 100,000-event JSONL journal, without and with snapshots;
  targets (issue 27): under 0.2 s, and under 10 ms with a snapshot;
- replay of a mixed 1,000,000-event journal: events/s and the growth of the process's
  peak memory while replaying (targets: 1,000,000 inputs/s or more, memory flat).

Run with ``python -m bench agent``; ``BENCH_AGENT=journal`` runs only the resume and
replay parts (``BENCH_AGENT=streaming`` only the per-delta part).
"""

from __future__ import annotations

import asyncio
import os
import resource
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from typing import Any

from agentcore import Agent, BaseDriver, MemoryStore, ModelRequest, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import (
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    UserMessage,
)
from agentcore.journal import JsonlJournal, MemorySnapshots, dump_state, replay
from agentcore.loop import conversation_processor, create_initial_conversation_state
from agentcore.machine import create_mealy_machine

DELTAS = 20_000
ROUNDS = 9


class Counter:
    """A presenter that only counts what it is given."""

    def __init__(self) -> None:
        self.count = 0

    def present(self, agent_id: str, output: Any) -> None:
        self.count += 1


def _turn(deltas: int) -> list[Any]:
    return [
        MessageStart("m1", "bench-model", timestamp=1),
        *(TextDelta(f"w{i % 100:02d} ", 0, timestamp=1) for i in range(deltas)),
        MessageDelta(stop_reason="end_turn", timestamp=1),
        MessageStop("end_turn", timestamp=1),
    ]


def _core_per_delta(turn: list[Any], store: MemoryStore | None = None) -> float:
    """The bare core machine: the default one collects runs of deltas that only append;
    with a caller's ``store`` it folds every delta (the machine issue 25's and issue 27's
    ratio was first measured against)."""
    machine = create_mealy_machine(store)
    process = machine.process
    process("a", UserMessage("u", "go", timestamp=1))
    start = time.perf_counter()
    for event in turn:
        process("a", event)
    return (time.perf_counter() - start) / DELTAS


def _conversation_per_delta(turn: list[Any]) -> float:
    state = create_initial_conversation_state()
    state, _ = conversation_processor(state, UserMessage("u", "go", timestamp=1))
    start = time.perf_counter()
    for event in turn:
        state, _ = conversation_processor(state, event)
    return (time.perf_counter() - start) / DELTAS


class OneByOne(BaseDriver):
    """A driver that yields one event per async step, as a network driver whose every
    chunk holds one event does (``BaseDriver``'s one-event batches)."""

    def __init__(self, turn: list[Any]) -> None:
        self._turn = turn

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:  # type: ignore[override]
        for event in self._turn:
            yield event


def _agent_per_delta(turn: list[Any], driver: Any = None) -> float:
    presenter = Counter()
    agent = Agent(driver or ScriptedDriver([turn]), presenters=[presenter])

    async def main() -> float:
        start = time.perf_counter()
        await agent.prompt("go")
        return time.perf_counter() - start

    elapsed = asyncio.run(main())
    assert presenter.count > DELTAS
    return elapsed / DELTAS


def _streaming() -> None:
    """Each round measures the paths back to back, so a ratio compares figures taken
    under the same load; the ratios printed are the medians of the rounds'.

    Two core figures: the default machine, which collects runs of deltas that only
    append (a list append each, no output), and the same processor folding every delta
    (what the ratio's target was set against, at 0.54 µs per delta). The Agent path
    collects runs the same way, but must also stamp, scrub, journal and deliver each
    delta to its presenter, work the bare machine does not do."""
    turn = _turn(DELTAS)
    rounds = [
        (
            _core_per_delta(turn),
            _core_per_delta(turn, MemoryStore()),
            _conversation_per_delta(turn),
            _agent_per_delta(turn),
        )
        for _ in range(ROUNDS)
    ]
    core, each, conversation, agent = (min(figures) for figures in zip(*rounds, strict=True))
    ratio_each = statistics.median(a / e for _, e, _, a in rounds)
    ratio_runs = statistics.median(a / c for c, _, _, a in rounds)
    flag = "OK" if ratio_each <= 2 else "SLOW"
    single = min(_agent_per_delta(turn, OneByOne(turn)) for _ in range(3))
    for label, figure, note in (
        ("per text delta, bare core machine (runs):", f"{core * 1e6:6.2f} µs", "(best)"),
        ("per text delta, bare core, fold per delta:", f"{each * 1e6:6.2f} µs", "(best)"),
        ("per text delta, conversation processor:", f"{conversation * 1e6:6.2f} µs", "(best)"),
        ("per text delta, Agent + 1 presenter:", f"{agent * 1e6:6.2f} µs", "(best)"),
        ("  Agent path / core folding each delta:", f"{ratio_each:6.2f}x", f"[{flag}, <= 2x]"),
        ("  Agent path / core collecting runs:", f"{ratio_runs:6.2f}x", "(reported)"),
        ("  the same, one event per driver step:", f"{single * 1e6:6.2f} µs", "(best)"),
    ):
        print(f"{label:<45}{figure:>10}  {note}")


@tool(idempotent=True)
async def noop(n: int) -> str:
    """Do nothing."""
    return "ok"


def _journal(path: str, events: int) -> int:
    """An agent journal of about ``events`` inputs: tool turns and streamed replies."""
    calls_per_turn = 4
    turns: list[Any] = []
    while sum(len(t) for t in turns) < events * 0.95:
        turns.append(
            tool_turn([(f"c{len(turns)}_{i}", "noop", {"n": i}) for i in range(calls_per_turn)])
        )
        turns.append(text_turn("word " * 200, chunk=4))
    agent = Agent(ScriptedDriver(turns), tools=[noop], journal=JsonlJournal(path), agent_id="b")

    async def main() -> None:
        for _ in range(len(turns) // 2):
            await agent.prompt("go")
        await agent.aclose()  # lets its lane go: the resumes below write to it

    asyncio.run(main())
    assert agent.journal is not None
    agent.journal.close()
    journal = JsonlJournal(path)
    try:
        return journal.last_seq("b")
    finally:
        journal.close()


def _resume(path: str) -> None:
    count = _journal(path, 100_000)

    async def resumed(store: Any, parallel: bool | None = None) -> float:
        start = time.perf_counter()
        agent = await Agent.resume(
            JsonlJournal(path, parallel=parallel),
            agent_id="b",
            model=ScriptedDriver([]),
            tools=[noop],
            snapshots=store,
        )
        elapsed = time.perf_counter() - start
        await agent.aclose()
        return elapsed

    plain = min(asyncio.run(resumed(None)) for _ in range(3))
    alone = min(asyncio.run(resumed(None, parallel=False)) for _ in range(3))
    store = MemorySnapshots()
    store.save("b", count, asyncio.run(_reload(path)))
    snap = min(asyncio.run(resumed(store)) for _ in range(3))
    print(
        f"resume from a {count:,}-event journal:       {plain * 1e3:7.1f} ms  "
        f"[{'OK' if plain < 0.2 else 'SLOW'}, < 200]"
    )
    print(
        f"  the same in one process (parallel=False): {alone * 1e3:7.1f} ms  "
        "(the line above forks a reader where a second CPU is idle: docs/journal.md)"
    )
    print(
        f"resume with a snapshot at the end:          {snap * 1e3:7.1f} ms  "
        f"[{'OK' if snap < 0.01 else 'SLOW'}, < 10]"
    )


async def _reload(path: str) -> bytes:
    """The state of the agent the journal at ``path`` holds, dumped."""
    agent = await Agent.resume(
        JsonlJournal(path), agent_id="b", model=ScriptedDriver([]), tools=[noop]
    )
    try:
        return _dump(agent)
    finally:
        await agent.aclose()


def _dump(agent: Agent) -> bytes:
    return dump_state(agent.conversation_state)


def _replay(path: str) -> None:
    count = _journal(path, 1_000_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    n = sum(1 for _ in replay(path))
    elapsed = time.perf_counter() - start
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(
        f"replay of a {count:,}-event journal:       {count / elapsed:9,.0f} inputs/s "
        f"({n:,} outputs); peak memory grew {grown:.1f} MB "
        f"[{'OK' if count / elapsed >= 1e6 else 'SLOW'}, >= 1,000,000/s]"
    )


def main() -> None:
    part = os.environ.get("BENCH_AGENT", "")
    if part != "journal":
        _streaming()
    if part == "streaming":
        return
    with tempfile.TemporaryDirectory() as tmp:
        _resume(os.path.join(tmp, "resume.jsonl"))
        _replay(os.path.join(tmp, "replay.jsonl"))


if __name__ == "__main__":
    main()
