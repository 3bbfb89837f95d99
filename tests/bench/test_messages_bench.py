"""The whole-message bench (``python -m bench messages``) does not rot: its traces are
valid turns the machine folds into whole messages, with no protocol error."""

from __future__ import annotations

import importlib
import pathlib

import pytest

from agentcore.events import AssistantMessage, ErrorMessage, TurnResponse
from agentcore.machine import create_mealy_machine

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("tools", [False, True])
def test_each_turn_of_the_trace_is_whole(monkeypatch: pytest.MonkeyPatch, tools: bool) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    bench = importlib.import_module("bench.bench_messages")
    machine = create_mealy_machine()
    outputs = [o for e in bench.trace(3, tools=tools) for o in machine.process("a", e)]
    assert not [o for o in outputs if type(o) is ErrorMessage]
    assert sum(type(o) is AssistantMessage for o in outputs) == 3 * (2 if tools else 1)
    assert sum(type(o) is TurnResponse for o in outputs) == 3
    figures = bench.measure(turns=3, runs=1)
    assert set(figures) == {"text_turn_us", "text_input_us", "tool_turn_us", "tool_input_us"}
