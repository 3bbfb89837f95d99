"""``agentcore code`` in a real terminal: tmux runs it, the test types and reads the screen.

The model is a script (``--model script/FILE``) so the runs are deterministic and
offline; the tools, the journal, the terminal and the process are real. The project is a
git repository in a temporary directory.
"""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from .tmux import AGENTCORE, Tmux

TESTS = f"{shlex.quote(sys.executable)} -m unittest"


@pytest.fixture
def tmux(tmp_path: pathlib.Path) -> Iterator[Tmux]:
    server = Tmux(tmp_path)
    yield server
    server.close()


@pytest.fixture
def repo(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "test_calc.py").write_text(
        "import unittest\n\nfrom calc import add\n\n\n"
        "class T(unittest.TestCase):\n"
        "    def test_add(self):\n"
        "        self.assertEqual(add(2, 3), 5)\n"
    )
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=root, check=True)
    return root


def _env(tmp_path: pathlib.Path) -> dict[str, str]:
    """No provider key; sessions under the test's directory; a terminal tmux provides."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TERM": "tmux-256color",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _script(tmp_path: pathlib.Path, replies: list[dict[str, Any]], **extra: Any) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"replies": replies, **extra}))
    return f"script/{path}"


def _bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "args": {"command": command}}


def _code(model: str, repo: pathlib.Path, *more: str) -> list[str]:
    return [AGENTCORE, "code", "--model", model, "--cwd", str(repo), *more]


FIX = {
    "when": "fix",
    "steps": [
        {"text": "Running the tests.", "tools": [_bash(TESTS)]},
        {"tools": [{"name": "read", "args": {"path": "calc.py"}}]},
        {
            "text": "add subtracts.",
            "tools": [
                {
                    "name": "edit",
                    "args": {
                        "path": "calc.py",
                        "old_text": "return a - b",
                        "new_text": "return a + b",
                    },
                }
            ],
        },
        {"tools": [_bash(TESTS)]},
        {"text": "Fixed: add adds now."},
    ],
}


def test_a_scripted_model_fixes_the_failing_test_on_screen(
    tmux: Tmux, repo: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    model = _script(tmp_path, [FIX], delay=0.005)
    tmux.start(_code(model, repo), _env(tmp_path))
    tmux.wait_for("/help for commands")
    tmux.type("please fix the failing test")
    tmux.send("Enter")
    screen = tmux.wait_for("Fixed: add adds now.")
    assert "> please fix the failing test" in screen
    assert "● bash  $ " in screen and "FAILED (failures=1)" in screen
    assert "● read  calc.py" in screen and "⎿ 2 lines" in screen
    assert "2 -     return a - b" in screen and "2 +     return a + b" in screen
    assert screen.rstrip().count("OK") >= 1
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    diff = subprocess.run(["git", "diff", "--stat"], cwd=repo, capture_output=True, text=True)
    assert diff.stdout.strip().splitlines()[-1].startswith(" 1 file changed, 1 insertion(+)")
    tmux.type("/quit")
    tmux.send("Enter")
    assert tmux.exit_status() == 0
    assert "continue it with: agentcore code --session" in tmux.screen()


SLOW = "one two three four five six seven eight nine ten eleven twelve. The end."


def test_steering_while_it_streams_then_an_approval_then_ctrl_c(
    tmux: Tmux, repo: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    replies = [
        {"when": "count", "steps": [{"text": SLOW, "delay": 0.15}]},
        {
            "when": "push",
            "steps": [
                {"text": "Pushing.", "tools": [_bash("git push --force origin main")]},
                {"text": "Blocked; a plain push then.", "tools": [_bash("git push origin main")]},
                {"text": "The push was refused; I left it."},
            ],
        },
        {"when": "story", "steps": [{"text": "Once upon a time " * 40, "delay": 0.2}]},
    ]
    tmux.start(_code(_script(tmp_path, replies), repo), _env(tmp_path))
    tmux.wait_for("/help for commands")
    tmux.type("count slowly")
    tmux.send("Enter")
    tmux.wait_for("one two")
    tmux.type("then push it")  # typed while the reply streams: a steering message
    tmux.send("Enter")
    screen = tmux.wait_for("↳ queued: then push it", visible=True)
    assert "The end." not in screen
    # delivered after the reply: the model answers it with a force push the bash guard
    # blocks unasked, then a plain push, which is risky: the user is asked
    screen = tmux.wait_for("Allow? [y]es  [n]o  [a]lways allow bash", visible=True)
    assert "● bash  $ git push --force origin main" in screen
    assert "⛔ Blocked by the bash guard: git push --force to main" in screen
    assert "● bash  $ git push origin main" in screen
    assert "risky: git push publishes to a remote" in screen
    assert "one two three four five six seven eight nine ten eleven twelve. The end." in screen
    assert screen.index("The end.") < screen.index("> then push it")
    tmux.type("n")
    screen = tmux.wait_for("The push was refused; I left it.")
    assert "[rejected]" in screen and "The user rejected this call" in screen
    assert screen.count("[rejected]") == 1  # the blocked push was never asked about
    # Ctrl-C in the middle of a reply ends the run, not the app
    tmux.type("tell a story")
    tmux.send("Enter")
    tmux.wait_for("Once upon a time Once upon")
    tmux.send("C-c")
    screen = tmux.wait_for("⏹ interrupted")
    assert "press Ctrl-C again to quit" in tmux.visible()
    assert screen.count("Once upon a time") < 40
    tmux.send("C-c")
    assert tmux.exit_status() == 0
    assert "session" in tmux.screen().split("⏹ interrupted")[-1]


def test_a_session_killed_mid_reply_resumes_where_it_stopped(
    tmux: Tmux, repo: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    replies = [
        {
            "when": "note",
            "steps": [
                {"tools": [{"name": "write", "args": {"path": "notes.txt", "content": "a\n"}}]},
                {"text": "Wrote the note."},
            ],
        },
        {"when": "slow", "steps": [{"text": "Slowly, " * 12 + "done slowly.", "delay": 0.25}]},
        {
            "when": "more",
            "steps": [
                {
                    "tools": [
                        {
                            "name": "edit",
                            "args": {"path": "notes.txt", "old_text": "a", "new_text": "a\nb"},
                        }
                    ]
                },
                {"text": "Added b."},
            ],
        },
    ]
    model, env = _script(tmp_path, replies), _env(tmp_path)
    tmux.start(_code(model, repo), env)
    tmux.wait_for("/help for commands")
    tmux.type("write a note")
    tmux.send("Enter")
    tmux.wait_for("Wrote the note.")
    tmux.type("now slow")
    tmux.send("Enter")
    tmux.wait_for("Slowly, Slowly,")
    tmux.kill_program()  # SIGKILL in the middle of the streamed reply
    assert "done slowly." not in tmux.screen()

    tmux.start([AGENTCORE, "code", "--resume", "--cwd", str(repo)], env, name="again")
    screen = tmux.wait_for("done slowly.")
    assert "> write a note" in screen and "● write  notes.txt (1 lines)" in screen
    assert "Wrote the note." in screen and "> now slow" in screen
    assert "(resumed session" in screen
    tmux.type("one more line")
    tmux.send("Enter")
    screen = tmux.wait_for("Added b.")
    assert "● edit  notes.txt" in screen and "2 + b" in screen
    assert (repo / "notes.txt").read_text() == "a\nb\n"
    tmux.send("C-d")
    assert tmux.exit_status() == 0


def test_a_task_shows_what_its_explorer_does_then_its_answer(
    tmux: Tmux, repo: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    task = {"description": "find add", "subagent_type": "explorer", "prompt": "Survey: add?"}
    replies = [
        {
            "when": "survey",  # the explorer runs on the same scripted model
            "steps": [
                {"tools": [{"name": "grep", "args": {"pattern": "def add"}}]},
                {"text": "add is in calc.py:1.", "pause": 1.5},
            ],
        },
        {
            "when": "where",
            "steps": [{"tools": [{"name": "task", "args": task}]}, {"text": "Found it."}],
        },
    ]
    tmux.start(_code(_script(tmp_path, replies), repo), _env(tmp_path))
    tmux.wait_for("/help for commands")
    tmux.type("where is add?")
    tmux.send("Enter")
    live = tmux.wait_for("running task · Explorer: grep 'def add'", visible=True)
    assert "● task  explorer: find add" in live
    screen = tmux.wait_for("Found it.")
    assert "  ⎿ add is in calc.py:1." in screen and "running task" not in tmux.visible()
    tmux.send("C-d")
    assert tmux.exit_status() == 0
