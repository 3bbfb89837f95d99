"""make run: the demo replays the shipped session offline and shows all four layers."""

from __future__ import annotations

import io
import pathlib
import subprocess
import sys

import pytest

from agentcore import demo
from agentcore.events import TextDelta


def test_demo_runs_an_agent_shows_every_layer_and_replays_its_journal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = io.StringIO()
    demo.main(out=out)
    text = out.getvalue()
    console = capsys.readouterr().out
    assert console.count("> Should I pack an umbrella?") == 1
    assert "An agent on the recorded model of weather.jsonl" in text
    layered = text.split("== Every layer, in order ==")[1].split("== The journal")[0]
    lines = [line for line in layered.splitlines() if line.strip()]
    assert {line.split()[0] for line in lines} == {"stream", "message", "state", "turn", "loop"}
    assert any("tool_failed" in line for line in lines)  # London's lookup failed, live
    assert any("thinking_delta" in line for line in lines)
    assert "exactly those delivered: True" in text
    # the driver names the recorded model, so the agent's price gives each turn a cost
    assert "$0.0053" in console and "cost=0.005256" in text


def test_layer_lines_fold_runs_of_deltas() -> None:
    events = [TextDelta(text="ab", index=0), TextDelta(text="c", index=0)]
    assert demo.layer_lines(events) == ["stream   text_delta x2            text='abc'"]


def test_the_shipped_session_is_what_make_session_writes(tmp_path: pathlib.Path) -> None:
    script = pathlib.Path(__file__).parents[2] / "examples" / "make_session.py"
    out = tmp_path / "again.jsonl"
    subprocess.run([sys.executable, str(script), str(out)], check=True, timeout=60)
    assert out.read_bytes() == demo.SESSION.read_bytes()
