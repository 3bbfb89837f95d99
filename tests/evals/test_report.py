"""Datasets run concurrently under a limit, each case into its own journal; reports
compare with earlier ones."""

from __future__ import annotations

import asyncio
import json

from agentcore import tool
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.evals import Case, Report, run_dataset
from agentcore.journal import read_jsonl

from .helpers import config, recorded_case


def test_cases_run_at_most_concurrency_at_a_time_each_into_its_own_journal(tmp_path):
    running = peak = 0

    @tool
    async def wait() -> str:
        """Wait a moment."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.02)
        running -= 1
        return "waited"

    def reply(request):
        if request.messages[-1].type == "user_message":
            return tool_turn([("w1", "wait", {})])
        return text_turn(f"done: {request.messages[0].content}")

    def make():
        return {"model": FunctionDriver(reply), "tools": [wait]}

    cases = [
        Case(name=f"case {n}", inputs=[f"job {n}"], expect=[{"contains": f"job {n}"}])
        for n in range(6)
    ]
    report = asyncio.run(run_dataset(cases, make, concurrency=2, journal_dir=tmp_path))
    assert report.passed, [r.failure() for r in report.results]
    assert peak == 2
    for n in range(6):
        entries = list(read_jsonl(tmp_path / f"case_{n}.jsonl"))
        assert entries[1].event.messages[0].content == f"job {n}"


def test_a_report_compares_with_an_earlier_one():
    cases = [recorded_case(contains="3")]
    good = asyncio.run(run_dataset(cases, config))
    bad = asyncio.run(run_dataset(cases, lambda: config(answer="4"), mode="live"))
    assert bad.compare(good).regressed == ("adder",)
    earlier = json.loads(bad.to_json())
    better = good.compare(earlier)
    assert (better.better, better.regressed) == (("adder",), ())
    assert "1 better, 0 regressed" in better.text()
    assert isinstance(good, Report) and good.summary().startswith("1/1 passed")


def test_tool_replay_by_name():
    # only 'add' is replayed: the changed adder is not run, nothing diverges
    assert asyncio.run(
        run_dataset([recorded_case()], lambda: config(offset=1), replay_tools={"add"})
    ).passed
    # 'add' is not among the replayed tools: it runs, and its new result diverges
    report = asyncio.run(
        run_dataset([recorded_case()], lambda: config(offset=1), replay_tools={"other"})
    )
    assert report.results[0].divergence.startswith("tool at model call 1: result of add")
