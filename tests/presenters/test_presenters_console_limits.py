"""ConsolePresenter: a run stopped by a limit says so, why and how to go on (the new
user's repro: the transcript just ended after the last tool result)."""

from __future__ import annotations

import asyncio
import io

from rich.console import Console

from agentcore import Agent, tool
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.loop import AgentEnd
from agentcore.presenters.console import Block, ConsolePresenter, encode
from agentcore.presenters.console import View as ConsoleView


@tool
def ls() -> str:
    """List files."""
    return "a.txt"


def _shown(max_iterations: int) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=False)
    script = [tool_turn([(f"c{i}", "ls", {})]) for i in range(3)] + [text_turn("done")]
    agent = Agent(
        ScriptedDriver(script),
        tools=[ls],
        presenters=[ConsolePresenter(console=console)],
        max_iterations=max_iterations,
    )
    asyncio.run(agent.prompt("list"))
    return out.getvalue()


def test_a_run_stopped_at_max_iterations_says_so_and_how_to_go_on() -> None:
    shown = _shown(2)
    assert (
        "[stopped: stopped after 2 model calls (max_iterations=2); raise the limit or "
        "continue_() to go on]" in shown
    )
    assert "done" not in shown
    assert "stopped" not in _shown(10)


def test_each_limit_is_named_and_other_ends_show_nothing() -> None:
    for code in ("MAX_TOKENS_EXCEEDED", "MAX_COST_EXCEEDED", "TIMEOUT"):
        _, ops = encode(ConsoleView(), AgentEnd("error", code, f"{code} hit; go on"))
        notes = [op.renderable.plain for op in ops if isinstance(op, Block)]
        assert notes == [f"[stopped: {code} hit; go on]"]
    for end in (AgentEnd("completed"), AgentEnd("error", "PROVIDER_ERROR", "shown already")):
        assert encode(ConsoleView(), end)[1] == []
