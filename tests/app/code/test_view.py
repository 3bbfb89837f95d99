"""The transcript view: what each output prints, however the text was streamed, and the
same lines for a conversation read back from its journal.

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._app.code.view import (
    View,
    call_summary,
    history,
    present,
    result_lines,
)
from agentcore.agent import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import ErrorMessage, TextDelta, ThinkingDelta, ToolResultMessage
from agentcore.loop import AgentEnd, ModelCallRetry
from agentcore.tools import ToolOutput, tool


def plain(lines: list[Any]) -> list[str]:
    return ["".join(text for text, _ in line) for line in lines]


def test_call_summaries() -> None:
    assert call_summary("bash", {"command": "pytest -q\nmore"}) == "$ pytest -q…"
    assert call_summary("read", {"path": "a.py", "offset": 10, "limit": 5}) == "a.py:10 (+5)"
    assert call_summary("write", {"path": "b.txt", "content": "1\n2\n"}) == "b.txt (2 lines)"
    assert call_summary("edit", {"path": "c.py"}) == "c.py"
    assert call_summary("ls", {}) == "."
    assert call_summary("grep", {"pattern": "def", "glob": "*.py"}) == "'def' *.py"
    assert call_summary("todo_write", {"todos": [{}, {}]}) == "2 items"
    assert call_summary("other", {"b": 1, "a": "x"}) == '{"a": "x", "b": 1}'
    assert len(call_summary("bash", {"command": "x" * 500})) == 102  # "$ " and 100


def _result(name: str, text: str, details: Any = None, error: bool = False) -> ToolResultMessage:
    return ToolResultMessage("c1", name, text, is_error=error, details=details)


def test_result_lines() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -9,3 +9,3 @@\n a\n-b\n+B\n c\n@@ -40,1 +40,1 @@\n-x\n+y"
    edit = plain(result_lines(_result("edit", "Edited f.", {"diff": diff})))
    assert edit == [
        "  ⎿ Edited f.",
        "    9   a",
        "   10 - b",
        "   10 + B",
        "   11   c",
        "    ⋮",
        "   40 - x",
        "   40 + y",
    ]
    output = "\n".join(f"line {i}" for i in range(1, 21)) + "\n\nCommand exited with code 2."
    bash = plain(result_lines(_result("bash", output, {"exit_code": 2}, error=True)))
    assert bash[0] == "  ⎿ … 15 lines above" and bash[-1] == "    Command exited with code 2."
    assert [style for _, style in result_lines(_result("bash", output, error=True))[1]] == [
        "dim",
        "red",
    ]
    read = _result("read", "a\nb", {"total_lines": 2})
    assert plain(result_lines(read)) == ["  ⎿ 2 lines"]
    partial = _result("read", "a\nb\n[Showing lines 1-2...]", {"total_lines": 9})
    assert plain(result_lines(partial)) == ["  ⎿ 3 of 9 lines"]
    todos = {"todos": [{"content": "a", "status": "completed"}, {"content": "b"}]}
    assert plain(result_lines(_result("todo_write", "{}", todos))) == ["  ⎿ ☑ a", "    ☐ b"]
    assert plain(result_lines(_result("bash", ""))) == ["  ⎿ (no output)"]
    many = "\n".join(str(i) for i in range(10))
    assert plain(result_lines(_result("ls", many)))[-1] == "    … 4 more lines"


@given(
    st.text(st.sampled_from("ab \n"), max_size=60),
    st.lists(st.integers(1, 7), min_size=1, max_size=10),
    st.booleans(),
)
def test_streamed_text_prints_its_lines_however_it_was_chunked(
    text: str, sizes: list[int], thinking: bool
) -> None:
    chunks, at = [], 0
    while at < len(text):
        size = sizes[len(chunks) % len(sizes)]
        chunks.append(text[at : at + size])
        at += size
    view, printed = View(), []
    kind = ThinkingDelta if thinking else TextDelta
    for chunk in chunks:
        view, lines = present(view, kind(text=chunk, index=0))
        printed += lines
    view, lines = present(view, kind(text="x", index=1))  # the next block flushes it
    printed += lines
    expected = text.split("\n")
    if not expected[-1]:
        expected.pop()
    assert plain(printed) == expected
    assert all(line[0][1] == ("dim italic" if thinking else "") for line in printed)


@tool
async def echo(text: str) -> ToolOutput:
    """Say it back."""
    if text == "fail":
        return ToolOutput("it failed\nbadly", is_error=True)
    return ToolOutput(text, details={"said": text})


TEXT = st.text(st.sampled_from("ab \n"), min_size=1, max_size=30)
TURN = st.one_of(
    st.tuples(st.just("text"), TEXT, st.one_of(st.none(), TEXT)),
    st.tuples(st.just("tools"), st.lists(st.sampled_from(["hi", "fail", "a\nb"]), max_size=3)),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(TEXT, st.lists(TURN, max_size=3)), min_size=1, max_size=3))
def test_the_live_transcript_is_the_history_read_back(conversation: list[Any]) -> None:
    """What was printed while the agent ran equals ``history`` of its messages."""
    turns: list[Any] = []
    calls = 0
    for _, replies in conversation:
        for reply in replies:
            if reply[0] == "text":
                turns.append(text_turn(reply[1], thinking=reply[2], chunk=3))
            else:
                batch = [(f"c{calls + i}", "echo", {"text": t}) for i, t in enumerate(reply[1])]
                calls += len(batch)
                turns.append(tool_turn(batch, text="calling"))
        turns.append(text_turn("done"))
    printed: list[Any] = []
    view = View()

    def show(_: str, output: Any) -> None:
        nonlocal view
        view, lines = present(view, output)
        printed.extend(lines)

    class Presenter:
        present = staticmethod(show)

    agent = Agent(
        ScriptedDriver(turns),
        tools=[echo],
        presenters=[Presenter()],
        max_iterations=None,
    )

    async def main() -> None:
        for prompt, _ in conversation:
            await agent.prompt(prompt)

    asyncio.run(main())
    lines, usage = history(agent.state.messages)
    assert plain(printed) == plain(lines)
    assert printed == lines
    assert view.usage == usage


def test_parallel_results_each_sit_under_their_call_and_running_calls_are_kept() -> None:
    agent_outputs: list[Any] = []

    class Presenter:
        def present(self, _: str, output: Any) -> None:
            agent_outputs.append(output)

    turns = [tool_turn([("a", "echo", {"text": "one"}), ("b", "echo", {"text": "two"})])]
    agent = Agent(ScriptedDriver([*turns, text_turn("ok")]), tools=[echo], presenters=[Presenter()])
    asyncio.run(agent.prompt("go"))
    view, printed, most = View(), [], 0
    for output in agent_outputs:
        view, lines = present(view, output)
        printed += lines
        most = max(most, len(view.running))
    assert most == 2 and view.running == ()
    shown = plain(printed)
    assert shown[-5:] == [
        '● echo  {"text": "one"}',
        "  ⎿ one",
        '● echo  {"text": "two"}',
        "  ⎿ two",
        "ok",
    ]


def test_errors_interrupts_and_retries_are_shown() -> None:
    view, lines = present(View(), TextDelta(text="half a li", index=0))
    assert lines == [] and view.partial == "half a li"
    view, lines = present(view, ErrorMessage("overloaded\ntry later", "PROVIDER_ERROR"))
    assert plain(lines) == ["half a li", "✗ PROVIDER_ERROR: overloaded", "  try later"]
    assert lines[1][1][1] == "red" and view.partial == ""
    _, lines = present(view, AgentEnd("aborted", "ABORTED"))
    assert plain(lines) == ["⏹ interrupted"]
    _, lines = present(view, AgentEnd("completed"))
    assert lines == []
    _, lines = present(view, ModelCallRetry(2, 500, "OVERLOADED", "busy"))
    assert plain(lines) == ["↻ OVERLOADED: retrying (attempt 2) in 500 ms"]
