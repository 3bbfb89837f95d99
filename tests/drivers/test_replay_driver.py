"""RecordingDriver writes what a driver yields; ReplayDriver plays it back call by call."""

from __future__ import annotations

import asyncio
import contextlib
import pathlib

import attrs

from agentcore import ModelRequest
from agentcore.drivers.replay import RecordingDriver, ReplayDriver, model_calls
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.engine import create_agent
from agentcore.events import (
    ErrorReceived,
    MessageStart,
    TextDelta,
    UserMessage,
)
from agentcore.journal import JsonlJournal, MemoryJournal
from agentcore.presenters.recording import RecordingPresenter

REQUEST = ModelRequest(messages=(UserMessage(message_id="u", content="hi"),))


async def _play(driver: object, times: int) -> list[list[object]]:
    return [[e async for e in driver.receive(REQUEST)] for _ in range(times)]  # type: ignore[attr-defined]


def test_recorded_calls_replay_identically(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "rec.jsonl"
    journal = JsonlJournal(path)
    inner = ScriptedDriver([text_turn("one", chunk=1), text_turn("two")], clock=lambda: 5)
    recorder = RecordingDriver(inner, journal)
    assert recorder.name == "scripted"
    live = asyncio.run(_play(recorder, 2))
    journal.close()
    assert [list(c) for c in recorder.calls()] == live
    replayed = asyncio.run(_play(ReplayDriver(path), 2))
    assert replayed == live


def test_recording_scrubs_secrets() -> None:
    key = "sk-ant-api03-THISISASECRETKEYTHATMUSTNOTLEAK00"
    journal = MemoryJournal()
    recorder = RecordingDriver(ScriptedDriver([text_turn(f"key {key}", chunk=100)]), journal)
    asyncio.run(_play(recorder, 1))
    texts = [e.event.text for e in journal.entries() if isinstance(e.event, TextDelta)]
    assert texts == ["key [REDACTED]"]


def test_model_calls_split_an_engine_journal_at_call_boundaries() -> None:
    journal = MemoryJournal()
    boom = ConnectionError("x")
    turns = [text_turn("a"), [*text_turn("b")[:2], boom], text_turn("c")]
    engine = create_agent(ScriptedDriver(turns), journal=journal, agent_id="e")

    async def run() -> None:
        for text in ("1", "2", "3"):
            with contextlib.suppress(Exception):
                await engine.receive(text)

    asyncio.run(run())
    calls = model_calls(journal)
    assert len(calls) == 3
    assert all(isinstance(c[0], MessageStart) for c in calls)
    assert isinstance(calls[1][-1], ErrorReceived)  # the failure is replayed as an event


def test_an_engine_on_a_replay_driver_reproduces_the_conversation() -> None:
    journal = MemoryJournal()
    live = RecordingPresenter()
    engine = create_agent(
        ScriptedDriver([text_turn("hello", chunk=2), text_turn("again")]),
        [live],
        journal=journal,
        agent_id="a",
        clock=lambda: 5,
    )
    again = RecordingPresenter()

    async def run() -> None:
        replaying = None
        for engine_ in (engine, None):
            if engine_ is None:  # the recording is complete: replay it
                engine_ = replaying = create_agent(
                    ReplayDriver(journal), [again], agent_id="a", clock=lambda: 5
                )
            await engine_.receive(UserMessage(message_id="u1", content="one", timestamp=1))
            await engine_.receive(UserMessage(message_id="u2", content="two", timestamp=2))
        assert replaying is not None

    asyncio.run(run())
    assert again.records == live.records


def test_restamp_stamps_events_as_played_and_model_names_the_recording() -> None:
    recorded = [text_turn("one", chunk=1, model="m-1"), text_turn("two", model="m-2")]
    journal = MemoryJournal()
    asyncio.run(_play(RecordingDriver(ScriptedDriver(recorded, clock=lambda: 5), journal), 2))
    kept = ReplayDriver(journal)
    assert kept.model == "m-1"
    assert {e.timestamp for call in asyncio.run(_play(kept, 2)) for e in call} == {5}
    ticks = iter(range(1000, 2000))
    played = asyncio.run(_play(ReplayDriver(journal, restamp=True, clock=lambda: next(ticks)), 2))
    stamps = [[e.timestamp for e in call] for call in played]
    assert stamps == [[1000] * len(played[0]), [1001] * len(played[1])]  # a read per batch
    as_recorded = [[attrs.evolve(e, timestamp=5) for e in call] for call in played]
    assert as_recorded == model_calls(journal)
    assert ReplayDriver([]).model is None
