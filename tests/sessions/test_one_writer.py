"""One writer per agent lane, on every journal kind: a second ``Agent`` on a session (in
this process, or in another process) is refused with ``LaneBusyError`` naming the lane and
the holder; closing the first, or the death of its process, lets the lane go, and the
next writer continues the sequence.

Tests the private module ``agentcore._journal.sql.postgres``: the advisory lock a PostgreSQL
lane is held by."""

from __future__ import annotations

import asyncio
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from agentcore import Agent
from agentcore.drivers.scripted import FunctionDriver, text_turn
from agentcore.events import TextDelta
from agentcore.journal import Journal, JournalError, LaneBusyError, MemoryJournal
from agentcore.sessions import Session, Sessions
from tests.sessions.conftest import Backend, fresh_schema

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _model(request: Any) -> Any:
    return text_turn(f"answer to: {request.messages[-1].content}")


def _second_handle(backend: Backend, journal: Journal) -> Journal:
    """Another writer's journal on the same storage (a journal in memory is one object)."""
    return journal if isinstance(journal, MemoryJournal) else backend.open()[0]


def _prompts(journal: Journal) -> list[str]:
    return [
        m.content
        for e in journal.entries("s1")
        if e.event.type == "agent_prompt"
        for m in e.event.messages
    ]


def test_a_second_agent_on_a_session_is_refused_until_the_first_closes(backend: Backend) -> None:
    async def main() -> None:
        journal, _ = backend.open()
        first = Agent(FunctionDriver(_model), session=Session(journal, "s1"))
        await first.run("from A, first")
        other = _second_handle(backend, journal)
        with pytest.raises(LaneBusyError) as refused:
            Agent(FunctionDriver(_model), session=Session(other, "s1"))
        message = str(refused.value)
        assert refused.value.lane in message and refused.value.holder in message
        assert f"pid {os.getpid()} " in message
        assert isinstance(refused.value, JournalError) and refused.value.code == "AGENT_BUSY"
        await first.run("from A, second")  # the holder goes on, untouched
        await first.aclose()  # closing lets the lane go
        second = Agent(FunctionDriver(_model), session=Session(other, "s1"))
        await second.run("from B")
        await second.aclose()
        if other is not journal:
            other.close()
        seqs = [e.seq for e in journal.entries("s1")]
        assert seqs == list(range(1, len(seqs) + 1))
        assert _prompts(journal) == ["from A, first", "from A, second", "from B"]
        journal.close()

    asyncio.run(main())


def test_the_repro_two_sqlite_handles_never_lose_a_turn(tmp_path: pathlib.Path) -> None:
    """attack/second_writer_session_silently_unjournaled.py: B is refused when it opens,
    not answered and silently left out of the session."""
    from agentcore.journal import SqliteJournal

    async def main() -> None:
        db = tmp_path / "app.db"
        a = Agent(FunctionDriver(_model), session=Sessions(SqliteJournal(db)).session("s1"))
        await a.run("from A, first")
        with pytest.raises(LaneBusyError, match=r"agent 's1' in sqlite:"):
            Agent(FunctionDriver(_model), session=Sessions(SqliteJournal(db)).session("s1"))
        await a.run("from A, second")
        await a.aclose()
        stored = Sessions(SqliteJournal(db)).messages("s1")
        assert [m.content for m in stored if m.type == "user_message"] == [
            "from A, first",
            "from A, second",
        ]

    asyncio.run(main())


CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from agentcore import Agent
    from agentcore.journal import JsonlJournal, PostgresJournal, SqliteJournal
    from agentcore.drivers.scripted import FunctionDriver, text_turn

    kind, where = sys.argv[1], sys.argv[2]
    opener = {"jsonl": JsonlJournal, "sqlite": SqliteJournal, "postgres": PostgresJournal}[kind]

    async def main():
        agent = Agent(FunctionDriver(lambda r: text_turn("hi")), journal=opener(where),
                      session_id="s1")
        await agent.run("from the child")
        print("ready", flush=True)
        await asyncio.sleep(120)  # holds the lane until killed

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("kind", ["jsonl", "sqlite", "postgres"])
def test_a_second_process_is_refused_and_a_dead_holder_is_taken_over(
    kind: str, tmp_path: pathlib.Path, request: pytest.FixtureRequest
) -> None:
    from agentcore.journal import JsonlJournal, PostgresJournal, SqliteJournal

    if kind == "postgres":
        where = fresh_schema(request.getfixturevalue("postgres_server"))
    else:
        where = str(tmp_path / ("s1.jsonl" if kind == "jsonl" else "app.db"))
    opener = {"jsonl": JsonlJournal, "sqlite": SqliteJournal, "postgres": PostgresJournal}[kind]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, kind, where],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "ready", child.stderr.read() if child.stderr else line

        async def attempt() -> Agent:
            return Agent(FunctionDriver(_model), journal=opener(where), session_id="s1")

        with pytest.raises(LaneBusyError) as refused:
            asyncio.run(attempt())
        assert f"pid {child.pid} " in refused.value.holder, refused.value.holder
        child.send_signal(signal.SIGKILL)  # the holder dies: its lane is free
        child.wait()

        async def take_over() -> list[int]:
            journal = opener(where)
            agent = Agent(FunctionDriver(_model), journal=journal, session_id="s1")
            await agent.run("from the parent")
            await agent.aclose()
            seqs = [e.seq for e in journal.entries("s1")]
            assert _prompts(journal) == ["from the child", "from the parent"]
            journal.close()
            return seqs

        seqs = asyncio.run(take_over())
        assert seqs == list(range(1, len(seqs) + 1))
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()


def test_a_postgres_lane_held_by_a_dead_local_process_is_taken_over(postgres_db: str) -> None:
    """The server has not yet ended the connection of a holder whose process died: the
    next writer ends it (the holder is a dead process of this host, by the connection's
    application_name) and takes the lane; a live holder is refused."""
    import psycopg

    from agentcore._journal.sql.postgres import _lane_app_name, _lane_key
    from agentcore.journal import PostgresJournal

    def holder(pid: int) -> psycopg.Connection[Any]:
        conn = psycopg.connect(postgres_db, autocommit=True, application_name=_lane_app_name(pid))
        (schema,) = conn.execute("SELECT current_schema()").fetchone()  # type: ignore[misc]
        conn.execute("SELECT pg_advisory_lock(%s)", (_lane_key(schema, "s1"),))
        return conn

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = holder(int(gone.stdout))
    journal = PostgresJournal(postgres_db)
    journal.claim("s1")  # the dead holder's connection is ended, its lane taken over
    assert journal.append("s1", TextDelta("x", 0, timestamp=1)) == 1
    with pytest.raises(psycopg.OperationalError, match="terminating connection"):
        dead.execute("SELECT 1")  # the stale holder's connection was ended
    journal.close()

    live = holder(os.getpid())  # alive: this very process, through another connection
    journal = PostgresJournal(postgres_db)
    with pytest.raises(LaneBusyError, match=rf"pid {os.getpid()} on .* connected since"):
        journal.claim("s1")
    journal.close()
    live.close()
