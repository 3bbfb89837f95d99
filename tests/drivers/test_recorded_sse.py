"""Provider SSE fixtures double as recorded sessions for ``agentcore replay``."""

from __future__ import annotations

import asyncio
import json
import pathlib
import runpy

import pytest

from agentcore.cli import main as cli_main
from agentcore.drivers.recorded_sse import recorded_call, sse_provider
from agentcore.errors import ConfigurationError
from agentcore.events import MessageStart

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
ALL = sorted(FIXTURES.glob("*/*.sse"))
EXAMPLES = pathlib.Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_replays_through_its_driver(path: pathlib.Path) -> None:
    assert sse_provider(path.read_bytes()) == path.parent.name
    events = asyncio.run(recorded_call(path))
    assert isinstance(events[0], MessageStart)
    assert events[-1].type in ("message_stop", "error_received")


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_cli_replays_a_recording_into_an_assembled_message(
    provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = FIXTURES / provider / "parallel_tools.sse"
    assert cli_main(["replay", str(path), "--json", "--layer", "message"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (message,) = [r["event"] for r in records if r["event"]["type"] == "assistant_message"]
    calls = [p for p in message["data"]["parts"] if p["type"] == "tool_call"]
    assert len(calls) == 3
    assert all(c["input_error"] is None and c["input"] for c in calls)


def test_something_else_is_refused_with_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="not a recognised provider SSE recording"):
        sse_provider(b"data: hello\n\n")


def test_inspect_reads_a_recording(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "openai" / "text.sse"
    assert cli_main(["inspect", str(path), "--seq", "1"]) == 0
    assert "agent recorded after seq 1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("model", "fixture", "code"),
    [
        ("openai/gpt-4.1", "openai/text.sse", 0),
        ("anthropic/claude-test", "anthropic/text.sse", 0),
        ("anthropic/claude-test", "anthropic/error_mid_stream.sse", 1),
    ],
)
def test_the_stream_any_provider_example_runs_on_a_recording(
    model: str, fixture: str, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    example = runpy.run_path(str(EXAMPLES / "stream_any_provider.py"))
    argv = ["--model", model, "--replay", str(FIXTURES / fixture), "hi"]
    assert asyncio.run(example["main"](argv)) == code
    out = capsys.readouterr()
    assert "> hi" in out.out
    assert ("OVERLOADED" in out.err) == (code == 1)
