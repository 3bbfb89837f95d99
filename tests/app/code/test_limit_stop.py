"""A run of ``agentcore code`` stopped by a limit says so, why, and how to go on, and
``/continue`` goes on (the new user's repro: the transcript just ended).

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import json
import pathlib

from agentcore._app.code.view import View, present
from agentcore.loop import AgentEnd

from .test_cli import run


def _step(text: str) -> dict[str, object]:
    return {"text": text, "tools": [{"name": "ls", "args": {"path": "."}}]}


def test_a_run_cut_by_max_iterations_says_so_and_continue_goes_on(
    tmp_path: pathlib.Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("hi\n")
    steps = [_step("Looking."), _step("Again."), _step("And again."), {"text": "Done."}]
    (work / "loop.json").write_text(
        json.dumps({"delay": 0, "replies": [{"when": [""], "steps": steps}]})
    )
    args = ("--model", "script/loop.json", "--max-iterations", "2")
    done = run(tmp_path, *args, stdin="list the files\n/continue\n", cwd=work)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())  # lines wrap at the terminal's width
    stopped = out.index("⏹ stopped: stopped after 2 model calls (max_iterations=2)")
    assert "/continue goes on from here (--max-iterations raises the limit)" in out
    assert out.index("Again.") < stopped < out.index("And again.") < out.index("Done.")
    assert "continue_()" not in out  # the Python hint is for the API, not this app


def test_every_limit_is_named_and_other_ends_add_nothing() -> None:
    limits = {
        "MAX_TOKENS_EXCEEDED": "used 900 tokens (max_tokens=500)",
        "MAX_COST_EXCEEDED": "spent $0.300000 (max_cost=$0.1)",
        "TIMEOUT": "the run took longer than 1000 ms (timeout)",
    }
    for code, why in limits.items():
        end = AgentEnd("error", code, f"{why}; raise the limit or continue_() to go on")
        _, lines = present(View(), end)
        text = "\n".join("".join(span for span, _ in line) for line in lines)
        assert f"⏹ stopped: {why}\n" in text and "/continue goes on" in text
        assert "--max-iterations" not in text
    for end in (AgentEnd("completed"), AgentEnd("error", "PROVIDER_ERROR", "boom")):
        assert present(View(), end)[1] == []
