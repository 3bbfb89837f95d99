"""The pytest plugin, run in a pytest of its own: a dataset file's cases are tests, and a
failing one reports its diff."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from agentcore.evals import case_data

from .helpers import recorded_case

FACTORY = textwrap.dedent(
    """
    from agentcore import tool
    from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn


    @tool
    def add(a: int, b: int) -> int:
        \"\"\"Add two numbers.\"\"\"
        return a + b


    def config():
        turns = [tool_turn([("c1", "add", {"a": 1, "b": 2})]), text_turn("3")]
        return {"model": ScriptedDriver(turns), "tools": [add], "system_prompt": "You add."}


    def changed():
        return {**config(), "system_prompt": "You multiply."}
    """
)


def _pytest(folder, *args):
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "agentcore.pytest_evals",
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(folder),
        str(folder),
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=120)


def test_each_case_is_a_test_failing_with_its_diff(tmp_path):
    case = recorded_case(contains="3")
    data = case_data(case)
    (tmp_path / "adder.eval.json").write_text(
        json.dumps({"cases": [data, {**data, "name": "again"}]})
    )
    (tmp_path / "factory.py").write_text(FACTORY)
    passed = _pytest(tmp_path, "--eval-config", f"{tmp_path / 'factory.py'}:config")
    assert "2 passed" in passed.stdout, passed.stdout + passed.stderr
    failed = _pytest(tmp_path, "--eval-config", f"{tmp_path / 'factory.py'}:changed")
    assert "2 failed" in failed.stdout
    assert (
        "first divergence: request at model call 1: request changed: system_prompt" in failed.stdout
    )
    assert "--- layer outcome ---" in failed.stdout
    nothing = _pytest(tmp_path)  # no configuration: nothing collected
    assert "no tests ran" in nothing.stdout


def test_a_wrong_configuration_fails_each_case_in_one_line(tmp_path):
    (tmp_path / "adder.eval.json").write_text(json.dumps(case_data(recorded_case())))
    wrong = _pytest(tmp_path, "--eval-config", "missing.py:config")
    assert "FAILED adder.eval.json::adder - no configuration file missing.py" in wrong.stdout
    assert "Traceback" not in wrong.stdout and "CallInfo" not in wrong.stdout
    helped = _pytest(tmp_path, "--help")
    assert "replay (default), live or replay-then-live" in helped.stdout


def test_a_dataset_that_cannot_be_read_is_a_one_line_collection_error(tmp_path):
    (tmp_path / "bad.eval.json").write_text(json.dumps({"cases": [{"name": "x"}]}))
    (tmp_path / "factory.py").write_text(FACTORY)
    done = _pytest(tmp_path, "--eval-config", "factory.py:config")
    assert "bad.eval.json case #1: a case needs entries, journal or inputs" in done.stdout
    assert "Traceback" not in done.stdout and "cases.py" not in done.stdout
