"""A scripted model fixes a failing test in a small project with read, edit and bash,
through a real ``Agent`` running the coding tools."""

from __future__ import annotations

import asyncio
import pathlib
import shlex
import sys

from agentcore import ModelRequest
from agentcore.agent import Agent
from agentcore.coding import create_coding_tools
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import ToolResultMessage


def _project(root: pathlib.Path) -> None:
    (root / "calc.py").write_text(
        "def add(a, b):\n"
        "    # Add two numbers \u2014 don\u2019t round.\n"
        "    return a - b\n"
        "\n"
        "# \u201cUntouched\u201d \u2014 stays as it is.\n"
    )
    (root / "test_calc.py").write_text(
        "from calc import add\n\nassert add(2, 3) == 5, add(2, 3)\nprint('all tests passed')\n"
    )


def test_a_scripted_model_fixes_the_failing_test(tmp_path: pathlib.Path) -> None:
    _project(tmp_path)
    run_tests = f"{shlex.quote(sys.executable)} test_calc.py"
    script = [
        tool_turn([("c1", "bash", {"command": run_tests})]),
        tool_turn([("c2", "read", {"path": "calc.py"})]),
        tool_turn(
            [
                (
                    "c3",
                    "edit",
                    {  # a plain dash and quote where the file has typographic ones
                        "path": "calc.py",
                        "old_text": "    # Add two numbers - don't round.\n    return a - b",
                        "new_text": "    # Add two numbers - don't round.\n    return a + b",
                    },
                )
            ]
        ),
        tool_turn([("c4", "bash", {"command": run_tests})]),
        text_turn("Fixed: add() subtracted instead of adding."),
    ]
    agent = Agent(ScriptedDriver(script), tools=create_coding_tools(str(tmp_path)))
    result = asyncio.run(agent.run("The tests fail; fix the bug."))

    assert result.output == "Fixed: add() subtracted instead of adding."
    results = {m.tool_call_id: m for m in result.messages if isinstance(m, ToolResultMessage)}
    assert results["c1"].is_error and "AssertionError: -1" in results["c1"].result
    assert results["c1"].details["exit_code"] == 1
    assert "return a - b" in results["c2"].result
    assert not results["c3"].is_error and results["c3"].details["first_changed_line"] == 2
    assert not results["c4"].is_error and results["c4"].result == "all tests passed"
    assert results["c3"].details["fuzzy"]
    assert (tmp_path / "calc.py").read_text() == (
        "def add(a, b):\n"
        "    # Add two numbers - don't round.\n"
        "    return a + b\n"
        "\n"
        "# \u201cUntouched\u201d \u2014 stays as it is.\n"
    )


def test_details_stay_out_of_what_the_providers_are_sent(tmp_path: pathlib.Path) -> None:
    """The history the fix left, as the Anthropic and OpenAI drivers would send it: the
    tools' details (diff, exit code, line numbers) are for user interfaces only."""
    from agentcore.drivers.anthropic.request import build_messages as anthropic_messages
    from agentcore.drivers.openai.request import build_messages as openai_messages

    _project(tmp_path)
    tools = create_coding_tools(str(tmp_path))
    edit = {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}
    script = [
        tool_turn([("c1", "bash", {"command": "exit 4"}), ("c2", "edit", edit)]),
        text_turn("Done."),
    ]
    result = asyncio.run(Agent(ScriptedDriver(script), tools=tools).run("fix it"))
    details = [m.details for m in result.messages if isinstance(m, ToolResultMessage)]
    assert details[0]["exit_code"] == 4 and "@@" in details[1]["diff"]
    history = tuple(result.messages)
    for sent in (
        anthropic_messages(history),
        openai_messages(ModelRequest(history), "gpt-5", "developer"),
    ):
        text = repr(sent)
        assert "Command exited with code 4." in text  # the result is sent
        for key in ("exit_code", "first_changed_line", "diff", "details"):
            assert key not in text, key
        assert "@@" not in text


def test_a_pdf_read_by_the_agent_reaches_the_model_as_a_document(tmp_path: pathlib.Path) -> None:
    from agentcore.events import DocumentContent
    from tests.coding.test_file_tools import PDF

    (tmp_path / "invoice.pdf").write_bytes(PDF)
    driver = ScriptedDriver(
        [tool_turn([("c1", "read", {"path": "invoice.pdf"})]), text_turn("It is an invoice.")]
    )
    agent = Agent(driver, tools=create_coding_tools(str(tmp_path)))
    result = asyncio.run(agent.run("What is invoice.pdf?"))
    assert result.output == "It is an invoice."
    (answer,) = [m for m in driver.requests[1].messages if isinstance(m, ToolResultMessage)]
    document = answer.result[1]
    assert isinstance(document, DocumentContent) and document.to_bytes() == PDF
    assert document.title == "invoice.pdf"
