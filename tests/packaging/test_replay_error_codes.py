"""``agentcore replay --layer`` shows every error code the same way, as its value
(repros/newuser/replay_mixed_code_repr.py: a provider's code printed as ``'PROVIDER_ERROR'``
beside a limit's ``<ErrorCode.MAX_ITERATIONS_EXCEEDED: 'MAX_ITERATIONS_EXCEEDED'>``)."""

from __future__ import annotations

import asyncio
import pathlib
import re
import subprocess
import sys

from agentcore import Agent, ErrorCode, JsonlJournal, tool
from agentcore.drivers.scripted import ScriptedDriver, tool_turn
from agentcore.events import ErrorReceived, MessageStart


@tool
def ls() -> str:
    """List."""
    return "a"


def test_codes_of_errors_and_limits_print_alike(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"

    async def main() -> None:
        turns = [
            [MessageStart("m", "x"), ErrorReceived("boom", "PROVIDER_ERROR")],
            tool_turn([("c1", "ls", {})]),
            tool_turn([("c2", "ls", {})]),
        ]
        agent = Agent(ScriptedDriver(turns), tools=[ls], journal=JsonlJournal(path), agent_id="a")
        await agent.prompt("one")
        await agent.prompt("two", max_iterations=1)
        await agent.aclose()

    asyncio.run(main())
    out = subprocess.run(
        [sys.executable, "-m", "agentcore", "replay", "--layer", "loop", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    codes = re.findall(r"agent_end .*? code=(\S+)", out)
    assert codes == ["'PROVIDER_ERROR'", f"'{ErrorCode.MAX_ITERATIONS_EXCEEDED.value}'"]
