"""``agentcore code`` as a command, with lines on standard input (not a terminal): the
offline demo, errors before anything starts, listing and resuming sessions.

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
from typing import Any

import pytest

from agentcore._app.code.setup import DEMO, default_model
from agentcore.cli import main

from .tmux import AGENTCORE


def run(tmp_path: pathlib.Path, *args: str, stdin: str = "", cwd: Any = None) -> Any:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "COLUMNS": "200",
    }
    return subprocess.run(
        [AGENTCORE, "code", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or tmp_path,
        timeout=60,
    )


def test_without_a_key_the_demo_fixes_its_sample_project(tmp_path: pathlib.Path) -> None:
    done = run(tmp_path, stdin="fix the failing tests\n/cost\n/quit\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    workspace = pathlib.Path(re.search(r"agentcore code · (\S+) · demo · session", out)[1])  # type: ignore[index]
    assert workspace.name == "calc" and "agentcore-demo-" in str(workspace.parent)
    assert "No API key is set: this is the offline demo" in out
    assert "FAILED (failures=2)" in out and out.rstrip().count("OK") >= 1
    assert "6 +     return a + b" in out
    assert "Fixed: add() returned a - b" in out
    assert "    return a + b\n" in (workspace / "calc.py").read_text()
    tests = subprocess.run(
        [sys.executable, "-m", "unittest"], cwd=workspace, capture_output=True, text=True
    )
    assert tests.returncode == 0
    assert re.search(r"session \S+: [\d,]+ in / [\d,]+ out · \$0\.0000", out)
    listed = run(tmp_path, "--sessions").stdout
    assert "demo" in listed and str(workspace) in listed and "fix the failing tests" in listed


def test_the_demo_explains_through_the_explorer_and_its_force_push_is_blocked(
    tmp_path: pathlib.Path,
) -> None:
    done = run(tmp_path, stdin="explain the project\nforce push it\n/session\n/quit\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "● task  explorer: survey the project" in out
    assert "  ⎿ Three files: README.md" in out and "task_id" not in out
    assert "● bash  $ git push --force origin main" in out
    assert "  ⎿ ⛔ Blocked by the bash guard: git push --force to main" in out
    assert "Allow?" not in out and "exception" not in done.stderr.lower()
    log = pathlib.Path(re.search(r"tool calls logged to (\S+)", out)[1])  # type: ignore[index]
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(c["type"], c["tool_name"]) for c in calls] == [
        ("start", "task"),
        ("end", "task"),
        ("start", "bash"),
        ("end", "bash"),
    ]


def test_errors_before_anything_starts(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)

    def fails(*args: str) -> str:
        assert main(["code", *args]) == 2
        return capsys.readouterr().err

    assert "ANTHROPIC_API_KEY" in fails("--model", "anthropic/claude-sonnet-4-5")
    assert "unknown provider 'nope'" in fails("--model", "nope/x")
    assert "missing.json: cannot read it" in fails("--model", "script/missing.json")
    assert f"no session in {tmp_path} to resume" in fails("--resume")
    assert "no session 'nope'" in fails("--session", "nope")
    assert "is not a directory" in fails("--cwd", str(tmp_path / "absent"), "--model", "demo")
    assert main(["code", "--sessions"]) == 0
    assert capsys.readouterr().out.startswith("no sessions in ")


def test_a_session_is_resumed_with_its_history_and_questions_are_lines(
    tmp_path: pathlib.Path,
) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "replies": [
                    {"when": "hello", "steps": [{"text": "Hello to you."}]},
                    {
                        "when": "push",
                        "steps": [
                            {"tools": [{"name": "bash", "args": {"command": "git push"}}]},
                            {"text": "Not pushed."},
                        ],
                    },
                ]
            }
        )
    )
    first = run(tmp_path, "--model", f"script/{script.name}", stdin="hello\n")
    assert first.returncode == 0 and "Hello to you." in first.stdout
    again = run(tmp_path, "--resume", stdin="push\nn\n")
    assert again.returncode == 0, again.stderr
    out = again.stdout
    assert out.index("> hello") < out.index("Hello to you.") < out.index("(resumed session")
    assert "● bash  $ git push" in out and "risky: git push publishes to a remote" in out
    assert "Allow? [y/n/a]" in out and "[rejected]" in out and "Not pushed." in out


def test_a_session_never_prompted_is_not_kept(tmp_path: pathlib.Path) -> None:
    assert run(tmp_path, "--model", "demo", "--cwd", str(tmp_path), stdin="/quit\n").returncode == 0
    assert run(tmp_path, "--sessions").stdout.startswith("no sessions in ")


@pytest.mark.parametrize(
    ("environ", "model"),
    [
        ({}, DEMO),
        ({"OPENAI_API_KEY": "k"}, "openai/gpt-5"),
        ({"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}, "anthropic/claude-sonnet-4-5"),
        ({"AGENTCORE_MODEL": "ollama/qwen3", "ANTHROPIC_API_KEY": "k"}, "ollama/qwen3"),
    ],
)
def test_default_model(environ: dict[str, str], model: str) -> None:
    assert default_model(environ) == model


def test_the_command_line_loads_no_plugin_and_no_rich() -> None:
    code = (
        "import sys; from agentcore.cli import build_parser; build_parser()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'drivers', "
        "'presenters')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr
