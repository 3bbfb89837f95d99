"""Sessions on SQLite and PostgreSQL (a real server started here, as in the tests).

1. Persisted inputs/s: realistic inputs (a prompt, ``message_start``, 96 text deltas,
   ``message_delta`` with usage, ``message_stop`` per turn) appended to the journal, with
   ``sync()`` at each turn's end (as the runtime does when a run ends) and ``close()``
   on the clock, for one agent and for 1,000 agents whose turns interleave; ``batch=1``
   (every append written before it returns) and ``batch=256``; ``fsync="never"`` (commits
   wait for no disk) and ``"turn"`` (each sync a durable commit: one disk flush).
2. Resume of a 100,000-input session (1,000 turns): ``Agent.resume`` from the journal
   alone, and with a snapshot 500 inputs before the end (target: under 100 ms).
3. Cost queries over 1,000,000 inputs (1,000 sessions of 1,000 inputs, 10,000 model
   calls): ``Sessions.usage`` by session, agent, model and day, and ``Sessions.list``.

``AGENTCORE_BENCH_SCALE`` (default 1.0) scales every count, for a quick run.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentcore import Agent
from agentcore._journal.resume import dump_state, load_conversation
from agentcore.drivers.scripted import ScriptedDriver
from agentcore.events import MessageDelta, MessageStart, MessageStop, TextDelta, Usage, UserMessage
from agentcore.journal import Journal, PostgresJournal, SqliteJournal, SqlSnapshots
from agentcore.loop import AgentConfigured, AgentPrompt, LoopConfig
from agentcore.pricing import ModelPrice
from agentcore.sessions import Sessions
from agentcore.testing import PostgresServer

SCALE = float(os.environ.get("AGENTCORE_BENCH_SCALE", "1"))
DELTAS = 96
CONFIG = LoopConfig(price=ModelPrice(3.0, 15.0)).to_wire()


def _n(count: int) -> int:
    return max(1, int(count * SCALE))


def _turn(number: int, ts: int) -> list[Any]:
    """The inputs of one turn: 100 of them."""
    events: list[Any] = [
        AgentPrompt((UserMessage(f"u{number}", f"question {number}", timestamp=ts),), timestamp=ts),
        MessageStart(f"m{number}", ("model-a", "model-b")[number % 2], timestamp=ts),
    ]
    events += [TextDelta(f"word{i} ", 0, timestamp=ts + i) for i in range(DELTAS)]
    events += [
        MessageDelta("end_turn", Usage(1000 + number % 7, 50), timestamp=ts + DELTAS),
        MessageStop("end_turn", timestamp=ts + DELTAS),
    ]
    return events


def _session(turns: int, start_ms: int = 0) -> Iterator[Any]:
    yield AgentConfigured(CONFIG, timestamp=start_ms)
    for number in range(turns):
        yield from _turn(number, start_ms + number * 60_000)


def _persist(journal: Journal, agents: int, inputs: int) -> float:
    """Inputs/s for ``inputs`` appended round-robin by ``agents`` agents, one turn at a time
    each, synced at each turn's end; the clock includes ``close()``."""
    per_agent = max(1, inputs // agents)
    streams = [list(_session(per_agent // 100 + 1))[:per_agent] for _ in range(agents)]
    started = time.perf_counter()
    for block in range(0, per_agent, 100):
        for agent in range(agents):
            for event in streams[agent][block : block + 100]:
                journal.append(f"agent-{agent}", event)
            journal.sync()
    journal.close()
    return agents * per_agent / (time.perf_counter() - started)


def _resume_ms(journal: Journal, snapshots: SqlSnapshots | None, messages: int) -> float:
    async def resume() -> float:
        started = time.perf_counter()
        agent = await Agent.resume(
            journal, agent_id="long", snapshots=snapshots, model=ScriptedDriver([])
        )
        took = (time.perf_counter() - started) * 1000
        assert len(agent.state.messages) == messages
        await agent.aclose()
        return took

    return asyncio.run(resume())


def _timed(action: Callable[[], Any], runs: int = 3) -> float:
    """The median time of ``action``, in ms."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _backends(folder: Path, server: PostgresServer) -> dict[str, Callable[..., Any]]:
    counter = iter(range(1_000_000))

    def sqlite(**options: Any) -> SqliteJournal:
        return SqliteJournal(folder / f"{next(counter)}.db", **options)

    def postgres(**options: Any) -> PostgresJournal:
        return PostgresJournal(server.create_database(f"b{next(counter)}"), **options)

    return {"sqlite": sqlite, "postgres": postgres}


def _reopen(journal: Any) -> Any:
    if isinstance(journal, SqliteJournal):
        return SqliteJournal(journal.path)
    return PostgresJournal(journal.database._conninfo)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, PostgresServer() as server:
        backends = _backends(Path(tmp), server)
        print(f"persisted inputs/s (sync() at each turn's end; scale {SCALE})")
        for kind, make in backends.items():
            for fsync in ("never", "turn"):
                for batch in (1, 256):
                    few = _n(5_000 if batch == 1 else 50_000)
                    one = _persist(make(fsync=fsync, batch=batch), 1, few)
                    many = _persist(make(fsync=fsync, batch=batch), 1000, max(few, 1000))
                    print(
                        f"  {kind:8} fsync={fsync:5} batch={batch:<4} one agent {one:>8,.0f}/s"
                        f"   1,000 interleaved agents {many:>8,.0f}/s"
                    )

        inputs = _n(100_000)
        print(f"resume of a {inputs:,}-input session ({inputs // 100} turns)")
        for kind, make in backends.items():
            journal = make(batch=512)
            for event in _session(inputs // 100):  # 1 + 100 per turn
                journal.append("long", event)
            journal.sync()
            snapshots = SqlSnapshots(journal)
            at = journal.last_seq("long") - 500
            probe = _reopen(journal)
            state = load_conversation(_Upto(probe, at), "long", *_conversation_template())
            snapshots.save("long", at, dump_state(state))
            journal.close()
            messages = 2 * (inputs // 100)
            plain = statistics.median(
                _resume_ms(_reopen(journal), None, messages) for _ in range(3)
            )
            fast = []
            for _ in range(5):
                again = _reopen(journal)
                fast.append(_resume_ms(again, SqlSnapshots(again), messages))
            print(
                f"  {kind:8} without snapshots {plain:8.1f} ms   "
                f"with a snapshot 500 inputs back {statistics.median(fast):6.1f} ms"
            )

        sessions_count, per_session = _n(1000), 1000
        total = sessions_count * per_session
        print(f"cost queries over {total:,} inputs ({sessions_count:,} sessions)")
        for kind, make in backends.items():
            journal = make(batch=2048)
            started = time.perf_counter()
            day = 86_400_000
            for s in range(sessions_count):
                for event in list(_session(per_session // 100, (s % 30) * day))[:per_session]:
                    journal.append(f"s{s}", event)
            journal.close()
            filled = time.perf_counter() - started
            journal = _reopen(journal)
            sessions = Sessions(journal)
            for s in range(0, sessions_count, 10):
                sessions.name(f"s{s}", f"agent-{s % 7}")
            figures = {by: _timed(lambda by=by, s=sessions: s.usage(by)) for by in _BY}
            listed = _timed(lambda s=sessions: s.list(limit=50))
            journal.close()
            print(
                f"  {kind:8} filled at {total / filled:,.0f} inputs/s; "
                + ", ".join(f"by {by} {ms:.1f} ms" for by, ms in figures.items())
                + f"; list(limit=50) {listed:.1f} ms"
            )


_BY = ("session", "agent", "model", "day")


def _conversation_template() -> tuple[Any, Any]:
    from agentcore._loop.conversation import (
        conversation_processor,
        create_initial_conversation_state,
    )

    return conversation_processor, create_initial_conversation_state()


class _Upto:
    """A journal seen up to ``seq`` ``at`` (to build the snapshot a live agent would have
    saved there)."""

    def __init__(self, journal: Any, at: int) -> None:
        self._journal, self._at = journal, at

    def entries(self, agent_id: str | None = None, *, after: int = 0) -> Iterator[Any]:
        return (e for e in self._journal.entries(agent_id, after=after) if e.seq <= self._at)

    def last_seq(self, agent_id: str) -> int:
        return min(self._at, self._journal.last_seq(agent_id))

    def append(self, agent_id: str, event: Any) -> int:
        raise NotImplementedError

    def sync(self) -> None:
        pass

    def close(self) -> None:
        pass


if __name__ == "__main__":
    main()
