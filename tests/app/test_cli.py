"""The agentcore command: replay (console, layers, JSON) and inspect, on the shipped session."""

from __future__ import annotations

import json
import pathlib

import pytest

from agentcore.cli import describe, main
from agentcore.events import (
    LAYERS,
    MessageStart,
    MessageStop,
    TextDelta,
    TurnResponse,
    UserMessage,
)
from agentcore.journal import JsonlJournal, read_jsonl, replay, state_at

SESSION = pathlib.Path(__file__).parents[2] / "agentcore" / "_app" / "data" / "weather.jsonl"


def test_replay_json_lines_are_the_commands_and_every_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(SESSION), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    commands = [e for e in read_jsonl(SESSION) if LAYERS[e.event.type] == "loop"]
    outputs = list(replay(SESSION))
    assert len(records) == len(commands) + len(outputs)  # stream inputs are outputs too
    assert {r["layer"] for r in records} == {"stream", "message", "state", "turn", "loop"}
    assert records[0]["event"]["type"] == "agent_configured" and records[0]["seq"] == 1


def test_replay_one_layer_prints_one_line_per_event(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(SESSION), "--layer", "turn"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines] == ["turn_request", "turn_response"] * 2


def test_replay_on_the_console_shows_the_conversation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(SESSION)]) == 0
    out = capsys.readouterr().out
    assert "pack a small umbrella" in out and "get_weather" in out


def test_inspect_prints_the_state_after_event_n(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(SESSION), "--seq", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("agent weather-demo after seq 5 (")
    assert "core:" in out and "activity" in out and "loop:" in out and "phase: model" in out
    assert "history (1 messages)" in out and "user_message" in out
    assert state_at(SESSION, "weather-demo", 5).loop.phase == "model"


def test_errors_are_one_clear_line(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    assert main(["inspect", str(SESSION), "--seq", "999"]) == 1
    assert "cannot give the state after seq 999" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"nope": 1}\n{"agent_id": "a", "seq": 1, "event": {"type": "x"}}\n')
    assert main(["replay", str(bad), "--json"]) == 1
    assert "bad.jsonl:1: corrupt journal line" in capsys.readouterr().err


def test_summed_costs_print_as_short_numbers() -> None:
    response = TurnResponse(turn_id="turn-1", duration_ms=5, cost=0.1 + 0.2)
    assert repr(response.cost) == "0.30000000000000004"
    line = describe(response)
    assert line.endswith(" cost=0.3") and "duration_ms=5" in line


def test_a_presenter_file_is_named_as_such_and_shown_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    from agentcore.presenters.jsonl import JsonlPresenter

    path = tmp_path / "presented.jsonl"
    presenter = JsonlPresenter(str(path))
    outputs = [o for _, o in replay(SESSION)]
    for output in outputs:
        presenter.present("weather-demo", output)
    presenter.close()
    assert main(["replay", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert "is a presenter's output" in captured.err and "not replayed" in captured.err
    shown = [json.loads(line)["event"]["type"] for line in captured.out.splitlines()]
    assert shown == [o.type for o in outputs]
    assert main(["inspect", str(path), "--seq", "3"]) == 1
    assert "holds the outputs, not the inputs" in capsys.readouterr().err


def test_replay_shows_escape_sequences_from_the_model_escaped(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hostile text in a journal (clear screen, an OSC title) never reaches the terminal."""
    path = tmp_path / "hostile.jsonl"
    journal = JsonlJournal(path)
    for event in [
        UserMessage("u1", "hi"),
        MessageStart("m1", "evil\x1b]0;owned\x07model"),
        TextDelta("before\x1b[2Jafter", 0),
        MessageStop("end_turn"),
    ]:
        journal.append("a", event)
    journal.close()
    for args in (["replay", str(path)], ["replay", str(path), "--layer", "stream"]):
        assert main(args) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x07" not in out
        assert "before" in out and "after" in out
