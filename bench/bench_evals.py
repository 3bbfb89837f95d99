"""Evals: ``agentcore eval run`` over 200 recorded cases in ``replay`` mode.

Each case is a real recorded session (an agent's journal): a prompt, three model calls
of which two ask for tools (two calls in parallel, then one), a streamed answer of
about 60 deltas; about 50 journal entries each. The cases are written as a dataset
folder; the figure is the whole command (``agentcore eval run DATASET --config ...``
in-process: loading the dataset, re-running every case into its own journal, tracing
both runs, diffing every layer, the evaluators, the report), the best of three rounds
(the target: under 10 s on a 2-core machine). Run with ``python -m bench evals`` (or
``make bench BENCH=evals``).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import pathlib
import tempfile
import time
from typing import Any

from agentcore import Agent, tool
from agentcore._app.cli import main as cli
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.evals import record_case, save_case
from agentcore.journal import MemoryJournal

CASES = 200
ROUNDS = 3


@tool
def lookup(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@tool
def convert(celsius: int) -> str:
    """Celsius to Fahrenheit."""
    return f"{celsius * 9 / 5 + 32:.0f} F"


def turns(n: int) -> list[Any]:
    answer = f"Case {n}: it is sunny in Paris and Rome, and 21 C is 70 F. " * 4
    return [
        tool_turn([(f"a{n}", "lookup", {"city": "Paris"}), (f"b{n}", "lookup", {"city": "Rome"})]),
        tool_turn([(f"c{n}", "convert", {"celsius": 21})]),
        text_turn(answer, chunk=4),
    ]


def config() -> dict[str, Any]:
    """The configuration the dataset is re-run on (``--config``): every case's script
    (only its model calls' count matters in replay mode; the recording answers)."""
    return {"model": ScriptedDriver([]), "tools": [lookup, convert], "system_prompt": "Weather."}


async def _record(folder: pathlib.Path) -> int:
    entries = 0
    for n in range(CASES):
        journal = MemoryJournal()
        options = {**config(), "model": ScriptedDriver(turns(n))}
        agent = Agent(journal=journal, agent_id=f"case{n}", **options)
        await agent.run(f"weather, case {n}")
        await agent.aclose()
        case = record_case(journal, expect=[{"contains": "sunny"}, {"max_model_calls": 3}])
        save_case(case, folder / f"case{n:03}.json")
        entries += len(case.entries)
    return entries


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        folder = pathlib.Path(directory) / "cases"
        entries = asyncio.run(_record(folder))
        factory = pathlib.Path(directory) / "factory.py"
        factory.write_text("from bench.bench_evals import config\n")
        best = float("inf")
        for _ in range(ROUNDS):
            out = io.StringIO()
            started = time.perf_counter()
            with contextlib.redirect_stdout(out):
                status = cli(["eval", "run", str(folder), "--config", str(factory), "--json", "-"])
            best = min(best, time.perf_counter() - started)
            assert status == 0, out.getvalue()[-2000:]
            assert '"failed": 0' in out.getvalue()
    print(
        f"  agentcore eval run, {CASES} recorded cases ({entries} journal entries), replay: "
        f"{best:.2f} s ({best / CASES * 1000:.1f} ms per case; target < 10 s)"
    )


if __name__ == "__main__":
    main()
