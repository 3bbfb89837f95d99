"""``agentcore eval record`` and ``agentcore eval run``: a case from a SQLite journal, a
report as JSON, and a non-zero exit when a changed configuration regresses."""

from __future__ import annotations

import asyncio
import json
import pathlib
import textwrap

import pytest

from agentcore import Agent
from agentcore.cli import main
from agentcore.journal import SqliteJournal

from .helpers import config

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
        return {"model": ScriptedDriver(turns), "tools": [add], "system_prompt": PROMPT}
    """
)


def _record_session(path: pathlib.Path) -> None:
    async def go() -> None:
        agent = Agent(journal=SqliteJournal(path), agent_id="adder", **config())
        await agent.run("add 1 and 2")
        await agent.aclose()

    asyncio.run(go())


def test_record_then_run_then_a_regression_exits_1(tmp_path, capsys):
    _record_session(tmp_path / "app.db")
    cases = tmp_path / "cases"
    assert (
        main(
            [
                "eval",
                "record",
                str(tmp_path / "app.db"),
                "-o",
                str(cases / "adder.json"),
                "--contains",
                "3",
            ]
        )
        == 0
    )
    assert "recorded 'adder'" in capsys.readouterr().out
    saved = json.loads((cases / "adder.json").read_text())
    assert saved["expect"] == [{"contains": "3"}] and saved["agent_id"] == "adder"

    same = tmp_path / "same.py"
    same.write_text(FACTORY + '\nPROMPT = "You add."\n')
    report = tmp_path / "report.json"
    assert (
        main(["eval", "run", str(cases), "--config", f"{same}:config", "--json", str(report)]) == 0
    )
    first = json.loads(report.read_text())
    assert first["passed"] and first["results"][0]["divergence"] is None
    assert "1/1 passed" in capsys.readouterr().out

    changed = tmp_path / "changed.py"
    changed.write_text(FACTORY + '\nPROMPT = "You multiply."\n')
    status = main(["eval", "run", str(cases), "--config", str(changed), "--compare", str(report)])
    out = capsys.readouterr()
    assert status == 1
    assert "regressed: adder" in out.err
    assert "request at model call 1" in out.out  # the table's first divergence


def test_json_on_stdout_and_a_clear_error_for_a_bad_configuration(tmp_path, capsys):
    _record_session(tmp_path / "app.db")
    case = tmp_path / "adder.json"
    assert main(["eval", "record", str(tmp_path / "app.db"), "-o", str(case)]) == 0
    capsys.readouterr()
    bad = tmp_path / "bad.py"
    bad.write_text("def config():\n    return 42\n")
    assert main(["eval", "run", str(case), "--config", str(bad)]) == 2
    assert "a configuration gives Agent options as a mapping" in capsys.readouterr().err
    good = tmp_path / "good.py"
    good.write_text(FACTORY + '\nPROMPT = "You add."\n')
    assert main(["eval", "run", str(case), "--config", str(good), "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"] == 1 and data["results"][0]["diff"]["changed_layers"] == []


def test_the_run_help_says_what_each_mode_does(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "replay-then-live: replay, then live after a divergence" in text


def test_a_journal_given_as_dataset_or_configuration_says_what_goes_there(tmp_path, capsys):
    journal = tmp_path / "s.jsonl"
    journal.write_text('{"agent_id": "a"}\n{"agent_id": "b"}\n')
    case = tmp_path / "adder.json"
    _record_session(tmp_path / "app.db")
    assert main(["eval", "record", str(tmp_path / "app.db"), "-o", str(case)]) == 0
    capsys.readouterr()
    assert main(["eval", "run", str(journal), "--config", "factory.py"]) == 2
    assert capsys.readouterr().err == (
        f"agentcore eval: {journal} is a journal, not a dataset: save a session of it as a "
        f"case first (agentcore eval record {journal} -o cases/NAME.json)\n"
    )
    assert main(["eval", "run", str(case), "--config", str(journal)]) == 2
    assert capsys.readouterr().err == (
        f"agentcore eval: configuration '{journal}': a file configuration is "
        "file.py[:function] or an agent definition file (.json, .toml, .yaml, .yml)\n"
    )


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_a_concurrency_below_one_is_a_usage_error(value, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["eval", "run", "cases/", "--config", "factory.py", "--concurrency", value])
    assert exited.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.endswith(f"argument --concurrency: must be a whole number from 1, got '{value}'")
