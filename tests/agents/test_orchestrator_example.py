"""examples/orchestrator: the planner, the file finder and the editor on scripted models
(and on a real provider, in the ``live`` tests, when a key is set)."""

from __future__ import annotations

import importlib.util
import io
import os
import pathlib
from typing import Any

import pytest

from agentcore.agents import SubagentEvent, node_of, replay_tree
from agentcore.loop import history_problems
from agentcore.presenters.recording import RecordingPresenter

PATH = pathlib.Path(__file__).parents[2] / "examples" / "orchestrator" / "orchestrator.py"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("orchestrator_example", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_the_planner_runs_the_finder_and_the_editor_in_parallel() -> None:
    example = _example()
    workspace = example.demo_workspace()
    recorder, printed = RecordingPresenter(), io.StringIO()
    agent, journal = await example.run(
        workspace, example.DEFAULT_REQUEST, None, [recorder, example.TreeView(out=printed)]
    )
    assert agent.state.error is None
    assert "def welcome(name):" in (workspace / "src" / "app.py").read_text()
    answer = agent.state.messages[-1].text
    assert answer == (
        "Renamed greet to welcome in src/app.py. The files with a TODO: src/app.py, src/util.py."
    )
    lanes = [o.agent_id for o in recorder.outputs() if isinstance(o, SubagentEvent)]
    assert set(lanes) == {"planner/spawn_1.0", "planner/spawn_1.1"}
    first_editor = lanes.index("planner/spawn_1.1")
    assert "planner/spawn_1.0" in lanes[first_editor:], "the two ran at the same time"
    lines = printed.getvalue().splitlines()
    assert "    File finder -> set_output" in "\n".join(lines)
    assert lines[-1].startswith("planner: Renamed greet")
    for node in node_of(agent).walk():
        assert history_problems(node.agent.state.messages) == []
    assert [o for _, o in replay_tree(journal, "planner")] == recorder.outputs()


def test_the_models_follow_the_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    example = _example()
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert example.choose_model(None, False) is None
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    assert example.choose_model(None, False) == "openai/gpt-4.1"
    assert example.choose_model("anthropic/claude-haiku-4-5", False) == "anthropic/claude-haiku-4-5"
    assert example.choose_model("anthropic/claude-haiku-4-5", True) is None


@pytest.mark.live
@pytest.mark.skipif(
    not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("OPENAI_API_KEY")),
    reason="needs ANTHROPIC_API_KEY or OPENAI_API_KEY",
)
async def test_the_example_on_a_real_provider() -> None:
    example = _example()
    workspace = example.demo_workspace()
    model = example.choose_model(None, False)
    agent, _ = await example.run(workspace, example.DEFAULT_REQUEST, model, [])
    assert agent.state.error is None
    assert "def welcome(" in (workspace / "src" / "app.py").read_text()
