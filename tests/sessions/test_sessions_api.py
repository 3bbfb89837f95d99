"""The Sessions tools on SQLite and PostgreSQL: listing with usage and cost, messages,
delete, fork at any seq (the fork is the session as it was, and goes its own way), usage
and cost by session, agent, model and day; deleting snapshots changes no result."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import MessageDelta, MessageStart, Usage
from agentcore.journal import JournalError, SqlSnapshots, replay, state_at
from agentcore.loop import AgentConfigured, LoopConfig
from agentcore.pricing import ModelPrice
from agentcore.sessions import Session, Sessions
from agentcore.testing import PostgresServer
from tests.sessions.conftest import Backend, make_backend, sql

PRICE = ModelPrice(input=3.0, output=15.0)
DAY = 86_400_000


class Clock:
    """Milliseconds that start at ``start`` and step by one per reading."""

    def __init__(self, start: int) -> None:
        self.now = start

    def __call__(self) -> int:
        self.now += 1
        return self.now


async def _talk(
    backend: Backend, session_id: str, name: str, replies: list[str], **options: Any
) -> None:
    journal, snapshots = backend.open()
    sessions = Sessions(sql(journal), snapshots)
    turns = [
        text_turn(r, usage=Usage(100, 10 * (i + 1)), model="m-" + name)
        for i, r in enumerate(replies)
    ]
    agent = Agent(
        ScriptedDriver(turns, clock=options.get("clock", Clock(0))),
        session=sessions.session(session_id, agent_name=name),
        **options,
    )
    for reply in replies:
        assert (await agent.run(f"say {reply}")).output == reply
    await agent.aclose()
    journal.close()


def test_listing_usage_and_cost(sql_backend: Backend) -> None:
    asyncio.run(_talk(sql_backend, "s1", "support", ["a", "b"], price=PRICE, clock=Clock(0)))
    asyncio.run(_talk(sql_backend, "s2", "sales", ["c"], clock=Clock(DAY)))  # no price
    journal, snapshots = sql_backend.open()
    sessions = Sessions(sql(journal), snapshots)
    listed = sessions.list()
    assert [s.session_id for s in listed] == ["s2", "s1"]  # the latest activity first
    s2, s1 = listed
    assert (s1.agent_name, s1.turns, s1.calls) == ("support", 2, 2)
    assert s1.usage == Usage(200, 30)
    assert s1.cost == pytest.approx((200 * 3.0 + 30 * 15.0) / 1e6)
    assert s1.entries == journal.last_seq("s1")
    assert s1.created_ms is not None and s1.last_ms is not None and s1.created_ms < s1.last_ms
    assert (s2.agent_name, s2.turns, s2.calls, s2.cost) == ("sales", 1, 1, None)
    assert sessions.list(agent_name="sales") == [s2]
    assert sessions.list(limit=1) == [s2]
    assert sessions.get("s1") == s1 and sessions.get("nope") is None

    by_session = {r.key: r for r in sessions.usage("session")}
    assert by_session["s1"].usage == Usage(200, 30) and by_session["s2"].cost is None
    assert [(r.key, r.calls) for r in sessions.usage("agent")] == [("sales", 1), ("support", 2)]
    assert [(r.key, r.calls) for r in sessions.usage("model")] == [("m-sales", 1), ("m-support", 2)]
    assert [(r.key, r.calls) for r in sessions.usage("day")] == [
        ("1970-01-01", 2),
        ("1970-01-02", 1),
    ]
    assert [r.key for r in sessions.usage("session", since_ms=DAY)] == ["s2"]
    assert [r.key for r in sessions.usage("session", until_ms=DAY)] == ["s1"]
    with pytest.raises(ValueError, match="usage"):
        sessions.usage("week")  # type: ignore[arg-type]
    journal.close()


def test_messages_delete_and_a_session_named_before_it_starts(sql_backend: Backend) -> None:
    asyncio.run(_talk(sql_backend, "s1", "support", ["a"]))
    journal, snapshots = sql_backend.open()
    sessions = Sessions(sql(journal), snapshots)
    assert [m.type for m in sessions.messages("s1")] == ["user_message", "assistant_message"]
    with pytest.raises(JournalError, match="no session 'nope'"):
        sessions.messages("nope")
    sessions.name("later", "support")
    assert [s.session_id for s in sessions.list(agent_name="support")] == ["s1", "later"]
    assert sessions.delete("s1") is True
    assert sessions.delete("s1") is False
    assert journal.last_seq("s1") == 0 and list(journal.entries("s1")) == []
    assert snapshots.latest("s1") is None
    assert [s.session_id for s in sessions.list()] == ["later"]
    assert sessions.usage() == []
    journal.close()


def test_a_fork_at_any_seq_is_the_session_as_it_was(sql_backend: Backend) -> None:
    asyncio.run(_talk(sql_backend, "s1", "support", ["a", "b"], price=PRICE, snapshot_every=4))
    journal, snapshots = sql_backend.open()
    sessions = Sessions(sql(journal), snapshots)
    last = journal.last_seq("s1")
    original = sessions.get("s1")
    for at in range(1, last + 1):
        info = sessions.fork("s1", f"f{at}", at=at)
        assert (info.entries, info.agent_name) == (at, "support")
        want = state_at(journal, "s1", at).loop.messages
        assert sessions.state(f"f{at}").loop.messages == want
        assert [e.event for e in journal.entries(f"f{at}")] == [
            e.event for e in journal.entries("s1") if e.seq <= at
        ]
    assert sessions.get("s1") == original
    assert sessions.get(f"f{last}").usage == original.usage  # type: ignore[union-attr]
    for bad in (0, last + 1, "3"):
        with pytest.raises(JournalError, match="cannot fork"):
            sessions.fork("s1", "x", at=bad)  # type: ignore[arg-type]
    with pytest.raises(JournalError, match="exists already"):
        sessions.fork("s1", "f1")
    with pytest.raises(JournalError, match="no session"):
        sessions.fork("nope", "x")

    async def branch() -> None:
        middle = last // 2
        agent = Agent(
            ScriptedDriver([text_turn("b1"), text_turn("b2")]),
            session=sessions.session(f"f{middle}"),
        )
        await agent.wait()  # a fork cut mid-run resumes its run
        await agent.run("go on")
        await agent.aclose()

    asyncio.run(branch())
    assert sessions.get("s1") == original  # the original goes its own way
    assert list(replay(journal, agent_id="s1"))  # and still replays
    journal.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_deleting_snapshots_changes_no_result(
    kind: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    server: PostgresServer | None = (
        request.getfixturevalue("postgres_server") if kind == "postgres" else None
    )

    @settings(
        max_examples=8 if kind == "postgres" else 20,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        replies=st.lists(st.text(min_size=0, max_size=30), min_size=1, max_size=4),
        every=st.integers(1, 9),
        dropped=st.sets(st.integers(1, 60), max_size=8),
        damaged=st.booleans(),
    )
    def property(replies: list[str], every: int, dropped: set[int], damaged: bool) -> None:
        backend = make_backend(kind, tmp_path_factory.mktemp("snap"), server)
        asyncio.run(_talk(backend, "s1", "a", replies, snapshot_every=every, price=PRICE))
        journal, snapshots = backend.open()
        table = sql(journal).database
        with table.transaction() as tx:
            for seq in dropped:
                tx.run("DELETE FROM agentcore_snapshots WHERE seq = ?", (seq,))
            if damaged:
                tx.run("UPDATE agentcore_snapshots SET state = ?", (b"not a pickle",))
        with_snapshots = Sessions(sql(journal), snapshots).state("s1")
        without = Sessions(sql(journal)).state("s1")
        assert with_snapshots == without

        async def resume() -> Any:
            agent = await Agent.resume(
                journal, agent_id="s1", snapshots=snapshots, model=ScriptedDriver([])
            )
            state = agent.conversation_state.loop.messages
            await agent.aclose()
            return state

        assert asyncio.run(resume()) == without.loop.messages
        journal.close()

    property()


def test_sessions_need_a_sql_journal(tmp_path: pathlib.Path) -> None:
    from agentcore.journal import MemoryJournal

    with pytest.raises(TypeError, match="SqliteJournal or PostgresJournal"):
        Sessions(MemoryJournal())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="SqliteJournal or PostgresJournal"):
        SqlSnapshots(MemoryJournal())  # type: ignore[arg-type]
    assert isinstance(Session(MemoryJournal(), "s"), Session)


def test_a_per_model_price_table_prices_each_call_after_a_reopen(sql_backend: Backend) -> None:
    """A fallback chain's pricing (``agent_configured``'s ``price`` and ``prices``) is kept
    in the session row: calls written after the journal is reopened are still charged at
    their answering model's row, as the loop's ledger charged them."""
    cheap, dear = ModelPrice(1.0, 1.0), ModelPrice(10.0, 10.0)
    config = LoopConfig(price=dear, prices={"cheap": cheap, "dear": dear})

    def call(model: str, n: int) -> list[Any]:
        return [MessageStart(f"m{n}", model), MessageDelta(usage=Usage(1000, 0))]

    journal, _ = sql_backend.open()
    for event in [AgentConfigured(config.to_wire()), *call("cheap", 1)]:
        journal.append("s", event)
    journal.close()
    journal, snapshots = sql_backend.open()  # the pricing comes back from the database
    for event in [*call("dear", 2), *call("unlisted", 3)]:
        journal.append("s", event)
    journal.sync()
    by_model = {r.key: r.cost for r in Sessions(sql(journal), snapshots).usage("model")}
    assert by_model == {
        "cheap": pytest.approx(0.001),
        "dear": pytest.approx(0.01),
        "unlisted": pytest.approx(0.01),  # not in the table: at the configured price
    }
    journal.close()


def test_session_usage_keeps_the_breakdown_and_prices_audio(sql_backend: Backend) -> None:
    """Image, audio and document tokens and one-hour cache writes come back summed from
    the calls table, and the stored cost charges the audio at the model's audio rate."""
    usages = [
        Usage(1000, 50, cache_write_tokens=400, image_tokens=300, cache_write_1h_tokens=100),
        Usage(2000, 80, audio_tokens=1500, document_tokens=200),
    ]
    price = ModelPrice(input=2.5, output=10.0, input_audio=32.0, cache_write_1h=5.0)

    async def talk() -> None:
        journal, snapshots = sql_backend.open()
        turns = [text_turn(r, usage=u, model="m-audio") for r, u in zip("ab", usages, strict=True)]
        agent = Agent(
            ScriptedDriver(turns),
            session=Sessions(sql(journal), snapshots).session("s", agent_name="voice"),
            price=price,
        )
        for reply in "ab":
            await agent.run(f"say {reply}")
        await agent.aclose()
        journal.close()

    asyncio.run(talk())
    journal, snapshots = sql_backend.open()
    sessions = Sessions(sql(journal), snapshots)
    total = usages[0] + usages[1]
    assert total.audio_tokens == 1500 and total.cache_write_1h_tokens == 100
    info = sessions.get("s")
    assert info is not None and info.usage == total
    (by_model,) = sessions.usage("model")
    assert by_model.usage == total
    by_hand = (
        1000 * 2.5
        + 50 * 10.0
        + 300 * 2.5
        + 100 * 5.0  # 300 five-minute, 100 one-hour writes
        + 500 * 2.5
        + 1500 * 32.0
        + 80 * 10.0  # the audio pays its own rate
    ) / 1e6
    assert info.cost == pytest.approx(by_hand)
    journal.close()
