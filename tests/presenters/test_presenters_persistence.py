"""The persistence presenter: a pure encoding of messages and turns into rows, written in
batches to SQLite and to a real PostgreSQL; isolated like every presenter; the seed's
"persistence presenter" example; the rows rebuilt from a journal by replay."""

from __future__ import annotations

import asyncio
import pathlib
import sqlite3
from typing import Any

import psycopg
import pytest

from agentcore import Agent, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import LAYERS, Usage
from agentcore.journal import MemoryJournal, replay
from agentcore.loop import create_conversation_machine
from agentcore.presenters import Filter, PersistencePresenter, PostgresRows, SqliteRows
from agentcore.presenters.persistence import MessageRow, TurnRow, encode, rows_of
from agentcore.pricing import ModelPrice
from agentcore.testing import PostgresServer
from tests.conftest import fresh_schema

PRICE = ModelPrice(input=3.0, output=15.0)


def test_encode_keeps_whole_messages_and_turns(conversation: list[Any]) -> None:
    rows = [encode("a1", output) for output in conversation]
    kept = [(type(o).__name__, r) for o, r in zip(conversation, rows, strict=True) if r]
    kinds = [LAYERS[o.type] for o, r in zip(conversation, rows, strict=True) if r]
    assert set(kinds) == {"stream", "message", "turn"}  # user_message is a stream event
    assert not any(r for o, r in zip(conversation, rows, strict=True) if o.type.endswith("delta"))
    (turn,) = [r for _, r in kept if isinstance(r, TurnRow)]
    assert (turn.turn_id, turn.duration_ms, turn.cost, turn.input_tokens) == (
        "t1",
        2350,
        0.0123,
        1200,
    )
    assistant = [r for _, r in kept if isinstance(r, MessageRow) and r.type == "assistant_message"]
    assert [r.text for r in assistant] == ["Let me check that for you.", "It is sunny."]
    assert assistant[0].output_tokens == 345
    assert encode("a1", conversation[0]) == encode("a1", conversation[0])  # pure


@tool
async def weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def _script() -> ScriptedDriver:
    driver = ScriptedDriver(
        [
            tool_turn([("c1", "weather", {"city": "Paris"})], usage=Usage(100, 10)),
            text_turn("It is sunny.", usage=Usage(150, 20)),
            text_turn("Bye.", usage=Usage(200, 5)),
        ]
    )
    driver.model = "scripted-model"  # type: ignore[attr-defined]  # keys the turns' price
    return driver


def _sqlite_tables(path: pathlib.Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    with sqlite3.connect(path) as conn:
        messages = conn.execute(
            "SELECT type, text, input_tokens FROM agentcore_messages"
        ).fetchall()
        turns = conn.execute("SELECT turn_id, input_tokens, cost FROM agentcore_turns").fetchall()
    return messages, turns


def _postgres_tables(conninfo: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    with psycopg.connect(conninfo) as conn:
        messages = conn.execute(
            "SELECT type, text, input_tokens FROM agentcore_messages ORDER BY ts, type"
        ).fetchall()
        turns = conn.execute("SELECT turn_id, input_tokens, cost FROM agentcore_turns").fetchall()
    return messages, turns


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_an_agents_messages_and_turns_become_rows(
    kind: str, tmp_path: pathlib.Path, request: pytest.FixtureRequest
) -> None:
    if kind == "sqlite":
        path = tmp_path / "rows.db"
        sink: Any = SqliteRows(path)
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        conninfo = fresh_schema(server)
        sink = PostgresRows(conninfo)
    presenter = PersistencePresenter(sink)

    async def main() -> Agent:
        agent = Agent(_script(), tools=[weather], presenters=[presenter], price=PRICE)
        await agent.run("weather in Paris?")
        await agent.drain()
        turns = _sqlite_tables(path)[1] if kind == "sqlite" else _postgres_tables(conninfo)[1]
        assert len(turns) == 1  # written when the turn ended, before close
        await agent.run("thanks")
        await agent.aclose()
        return agent

    agent = asyncio.run(main())
    presenter.close()
    presenter.close()
    if kind == "sqlite":
        messages, turns = _sqlite_tables(path)
    else:
        messages, turns = _postgres_tables(conninfo)
    history = agent.state.messages
    assert sorted(m[0] for m in messages) == sorted(m.type for m in history)
    assert ("assistant_message", "It is sunny.", 150) in messages
    assert ("tool_result_message", "Sunny in Paris", 0) in messages
    assert [(t[0], t[1]) for t in turns] == [("turn-1", 250), ("turn-2", 200)]
    assert turns[0][2] == pytest.approx((250 * 3 + 30 * 15) / 1e6)


def test_a_failing_database_is_isolated_and_its_rows_kept(tmp_path: pathlib.Path) -> None:
    class Flaky:
        def __init__(self) -> None:
            self.fail, self.written = True, []  # type: ignore[var-annotated]

        def write(self, messages: Any, turns: Any) -> None:
            if self.fail:
                raise OSError("database down")
            self.written += [*messages, *turns]

        def close(self) -> None:
            pass

    sink = Flaky()
    presenter = PersistencePresenter(sink)  # type: ignore[arg-type]
    failures: list[Any] = []

    async def main() -> None:
        agent = Agent(
            ScriptedDriver([text_turn("Hi."), text_turn("Again.")]), presenters=[presenter]
        )
        agent.on_error(failures.append)
        assert (await agent.run("hello")).output == "Hi."
        await agent.drain()
        sink.fail = False
        assert (await agent.run("again")).output == "Again."
        await agent.aclose()

    asyncio.run(main())
    assert failures and failures[0].source == "presenter"
    assert "database down" in str(failures[0].error)
    assert [getattr(r, "text", None) for r in sink.written if isinstance(r, MessageRow)] == [
        "hello",
        "Hi.",
        "again",
        "Again.",
    ]
    presenter.close()
    with pytest.raises(Exception, match="closed"):
        presenter.present("a", None)


def test_the_seeds_persistence_presenter_example(tmp_path: pathlib.Path) -> None:
    """The seed persisted complete messages (assistant messages and tool calls) as rows."""
    path = tmp_path / "seed.db"
    presenter = PersistencePresenter(
        SqliteRows(path), filter=Filter(types={"assistant_message", "tool_call_message"})
    )

    async def main() -> None:
        agent = Agent(_script(), tools=[weather], presenters=[presenter])
        await agent.run("weather in Paris?")
        await agent.aclose()

    asyncio.run(main())
    presenter.close()
    messages, turns = _sqlite_tables(path)
    assert [m[0] for m in messages] == [
        "tool_call_message",
        "assistant_message",
        "assistant_message",
    ]
    assert turns == []


def test_rows_come_back_from_the_journal(tmp_path: pathlib.Path) -> None:
    journal = MemoryJournal()
    presenter = PersistencePresenter(SqliteRows(tmp_path / "live.db"))

    async def main() -> None:
        agent = Agent(
            _script(), tools=[weather], presenters=[presenter], journal=journal, price=PRICE
        )
        await agent.run("weather in Paris?")
        await agent.aclose()

    asyncio.run(main())
    presenter.close()
    live = _sqlite_tables(tmp_path / "live.db")
    prices = {"scripted-model": PRICE}
    messages, turns = rows_of(replay(journal, lambda: create_conversation_machine(prices)))
    rebuilt = SqliteRows(tmp_path / "rebuilt.db")
    rebuilt.write(messages, turns)
    rebuilt.close()
    assert _sqlite_tables(tmp_path / "rebuilt.db") == live
