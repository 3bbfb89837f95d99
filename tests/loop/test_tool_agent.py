"""Tools through a whole Agent with a JSONL journal: what used to leave it stuck (details
that are not JSON, a tool that will not stop) now answers the call and the agent goes on."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import pathlib
import time
from typing import Any

from agentcore.agent import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import ToolResult, ToolResultMessage
from agentcore.journal import JsonlJournal
from agentcore.tools import ToolContext, ToolOutput, tool


@tool
def stamped(n: int) -> ToolOutput:
    """A sync tool whose details hold a date (not JSON)."""
    return ToolOutput(n * 2, details={"at": datetime.date(2024, 1, 1)})


@tool
def measured(values: list[float]) -> ToolOutput:
    """A sync tool returning NaN to the model and JSON-native details."""
    return ToolOutput({"mean": float("nan")}, details={"n": len(values), "range": (0, 1)})


@tool(timeout=0.05)
async def stubborn() -> str:
    """Swallows its cancellation and goes on."""
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(10)
    await asyncio.sleep(0.5)
    return "late"


@tool(timeout=0.05)
def sleeper() -> str:
    """A sync tool that overruns its deadline."""
    time.sleep(0.5)
    return "late"


def _results(agent: Agent) -> dict[str, ToolResultMessage]:
    return {m.tool_call_id: m for m in agent.state.messages if isinstance(m, ToolResultMessage)}


def test_the_agent_goes_on_after_bad_details_nan_and_stubborn_tools(
    tmp_path: pathlib.Path,
) -> None:
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("c1", "stamped", {"n": 2}),
        ("c2", "measured", {"values": [1.0, 2.0]}),
        ("c3", "stubborn", {}),
        ("c4", "sleeper", {}),
        ("c5", "stamped", {"n": 2.0}),  # not an integer
    ]
    driver = ScriptedDriver([tool_turn(calls), text_turn("done"), text_turn("again")])
    journal = JsonlJournal(tmp_path / "journal.jsonl")
    agent = Agent(driver, tools=[stamped, measured, stubborn, sleeper], journal=journal)

    async def main() -> float:
        start = time.perf_counter()
        await agent.prompt("go")
        elapsed = time.perf_counter() - start
        await agent.prompt("and again")  # not stuck, not busy
        return elapsed

    assert asyncio.run(main()) < 0.45  # no call waited for a tool past its deadline
    results = _results(agent)
    assert results["c1"].is_error and "details that are not JSON: at $.at: date" in str(
        results["c1"].result
    )
    assert (results["c2"].result, results["c2"].is_error) == ('{"mean": "NaN"}', False)
    assert results["c3"].result == "Tool 'stubborn' timed out after 0.05 s."
    assert results["c4"].result == "Tool 'sleeper' timed out after 0.05 s."
    assert "at $.n: 2.0 is not of type 'integer'" in str(results["c5"].result)
    assert results["c2"].details == {"n": 2, "range": [0, 1]}
    journal.close()
    journaled = {
        entry.event.tool_call_id: entry.event
        for entry in JsonlJournal(tmp_path / "journal.jsonl").entries()
        if isinstance(entry.event, ToolResult)
    }
    # every tool's answer was written and reads back; c5, answered by the loop itself (its
    # arguments never validated), is an output of the fold, not an input
    assert sorted(journaled) == ["c1", "c2", "c3", "c4"]
    for call_id, event in journaled.items():
        assert (event.result, event.is_error, event.details) == (
            results[call_id].result,
            results[call_id].is_error,
            results[call_id].details,
        )


def test_a_tool_reaches_deps_given_in_its_context() -> None:
    """Without Agent wiring, deps reach a tool through the context it is run with."""
    from agentcore.tools import AbortSignal, run_tool

    @tool
    async def whoami(ctx: ToolContext[dict[str, str]]) -> str:
        return ctx.deps["user"]

    ctx = ToolContext("c", "whoami", AbortSignal(), (), print, deps={"user": "ada"})
    assert asyncio.run(run_tool(whoami, {}, ctx)).content == "ada"
