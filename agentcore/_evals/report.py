"""Running a dataset and reporting on it.

``run_dataset`` re-runs every case (``run_case``), at most ``concurrency`` at a time,
each into its own journal (in memory, or ``<journal_dir>/<case>.jsonl``), then traces
both runs, diffs them and runs the case's evaluators. A recorded case with no
evaluators is judged by its diff: it passes when the new run does not diverge.

A ``Report`` is the result: ``table()`` (rich, for a terminal), ``to_dict()``/``to_json``
(for CI), and ``compare(previous)``: which cases got better and which regressed (a case
that passed and fails now, or whose score fell). ``agentcore eval run`` exits 1 on a
regression (on any failure without a previous report).
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import attrs

from .._journal.journal import Journal, JsonlJournal, MemoryJournal
from .cases import Case
from .config import Config
from .diff import RunDiff, diff_traces
from .evaluators import Score, evaluate, evaluator_of
from .rerun import Mode, Run, run_case, trace_of

__all__ = ["CaseResult", "Comparison", "Report", "assert_case", "judge_case", "run_dataset"]


@attrs.frozen
class CaseResult:
    """One case's verdict: ``passed``, its ``scores``, the ``diff`` from its recording,
    what the new run cost, and the run itself (``run``, not compared)."""

    name: str
    passed: bool
    scores: tuple[Score, ...]
    diff: RunDiff | None
    cost: float | None
    tokens: int
    model_calls: int
    wall_seconds: float
    error: str | None = None
    run: Run | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def score(self) -> float:
        """The mean of the scores (1.0 or 0.0 by ``passed`` when there are none)."""
        if not self.scores:
            return float(self.passed)
        return sum(s.score for s in self.scores) / len(self.scores)

    @property
    def divergence(self) -> str | None:
        if self.diff is None or self.diff.divergence is None:
            return None
        return str(self.diff.divergence)

    def failure(self) -> str:
        """Why the case failed, readable: the error, failed scores, then the diff."""
        out = [f"case {self.name!r} failed"]
        if self.error:
            out.append(f"error: {self.error}")
        out += [f"{s.name}: {s.reason or 'failed'}" for s in self.scores if not s.passed]
        if self.diff is not None:
            out.append(self.diff.text())
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "score": self.score,
            "scores": [attrs.asdict(s) for s in self.scores],
            "divergence": self.divergence,
            "diff": self.diff.to_dict() if self.diff is not None else None,
            "cost": self.cost,
            "tokens": self.tokens,
            "model_calls": self.model_calls,
            "wall_seconds": self.wall_seconds,
            "error": self.error,
        }


@attrs.frozen
class Comparison:
    """A report against a previous one, by case name."""

    better: tuple[str, ...]
    regressed: tuple[str, ...]
    added: tuple[str, ...]
    missing: tuple[str, ...]

    def text(self) -> str:
        parts = [f"{len(self.better)} better", f"{len(self.regressed)} regressed"]
        if self.added:
            parts.append(f"{len(self.added)} new")
        if self.missing:
            parts.append(f"{len(self.missing)} missing")
        lines = [", ".join(parts)]
        lines += [f"  regressed: {name}" for name in self.regressed]
        lines += [f"  better: {name}" for name in self.better]
        return "\n".join(lines)


@attrs.frozen
class Report:
    """Every case's result (module docstring)."""

    mode: str
    results: tuple[CaseResult, ...]
    wall_seconds: float

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "passed": self.passed,
            "cases": len(self.results),
            "failed": sum(not r.passed for r in self.results),
            "wall_seconds": self.wall_seconds,
            "results": [r.to_dict() for r in self.results],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, default=str)

    def compare(self, previous: Report | Mapping[str, Any]) -> Comparison:
        """What got better and what regressed since ``previous`` (a report or its
        ``to_dict()``)."""
        before = previous.to_dict() if isinstance(previous, Report) else previous
        old = {r["name"]: (bool(r["passed"]), float(r["score"])) for r in before["results"]}
        now = {r.name: (r.passed, r.score) for r in self.results}
        better, regressed = [], []
        for name, (passed, score) in now.items():
            if name not in old:
                continue
            was_passed, was_score = old[name]
            if (was_passed and not passed) or score < was_score - 1e-9:
                regressed.append(name)
            elif (passed and not was_passed) or score > was_score + 1e-9:
                better.append(name)
        return Comparison(
            tuple(better),
            tuple(regressed),
            tuple(n for n in now if n not in old),
            tuple(n for n in old if n not in now),
        )

    def table(self) -> Any:
        """A ``rich.table.Table``: per case pass/fail, scores, cost, first divergence
        (rich is the ``console`` extra)."""
        from rich.table import Table

        table = Table(title=f"agentcore eval ({self.mode}): {self.summary()}")
        for column in ("case", "result", "score", "cost", "calls", "first divergence"):
            table.add_column(column)
        for r in self.results:
            verdict = "[green]pass[/]" if r.passed else "[red]FAIL[/]"
            cost = "-" if r.cost is None else f"${r.cost:.4f}"
            why = r.error or r.divergence or ""
            failed = [s.name for s in r.scores if not s.passed]
            if failed:
                why = f"{', '.join(failed)}; {why}" if why else ", ".join(failed)
            table.add_row(r.name, verdict, f"{r.score:.2f}", cost, str(r.model_calls), why)
        return table

    def summary(self) -> str:
        """``n/m passed in s seconds``."""
        failed = sum(not r.passed for r in self.results)
        return (
            f"{len(self.results) - failed}/{len(self.results)} passed in {self.wall_seconds:.2f} s"
        )


async def judge_case(run: Run, *, judge_model: Any = None) -> CaseResult:
    """Trace ``run`` and its recording, diff them and run the case's evaluators."""
    case = run.case
    new = trace_of(run.entries, run.agent_id, run.prices, run.loop)
    recorded = run.recorded
    if recorded is None and case.recorded:
        recorded = trace_of(case.entries, case.agent_id, run.prices, run.loop)
    diff = diff_traces(recorded, new) if recorded is not None else None
    if diff is not None and diff.divergence is None and run.divergence is not None:
        diff = attrs.evolve(diff, divergence=run.divergence)
    evaluators = [evaluator_of(e, judge_model=judge_model) for e in case.expect]
    scores = tuple([await evaluate(e, case, new, recorded) for e in evaluators])
    if not evaluators and diff is not None:
        passed = diff.divergence is None
    else:
        passed = all(s.passed for s in scores)
    return CaseResult(
        case.name,
        passed and run.error is None,
        scores,
        diff,
        new.cost,
        new.tokens,
        len(new.model_steps),
        run.wall_seconds,
        run.error,
        run,
    )


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "case"


async def run_dataset(
    cases: Iterable[Case],
    config: Config,
    *,
    mode: Mode = "replay",
    concurrency: int = 4,
    replay_tools: bool | Collection[str] = True,
    journal_dir: str | os.PathLike[str] | None = None,
    judge_model: Any = None,
) -> Report:
    """Re-run and judge every case (module docstring)."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    limit = asyncio.Semaphore(concurrency)
    folder = pathlib.Path(journal_dir) if journal_dir is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)

    async def one(case: Case) -> CaseResult:
        async with limit:
            journal: Journal
            if folder is None:
                journal = MemoryJournal()
            else:
                path = folder / f"{_file_name(case.name)}.jsonl"
                path.unlink(missing_ok=True)
                journal = JsonlJournal(path)
            try:
                run = await run_case(
                    case, config, mode=mode, replay_tools=replay_tools, journal=journal
                )
            finally:
                journal.close()
            return await judge_case(run, judge_model=judge_model)

    started = time.perf_counter()
    results: Sequence[CaseResult] = await asyncio.gather(*(one(case) for case in cases))
    return Report(mode, tuple(results), time.perf_counter() - started)


def assert_case(
    case: Case,
    config: Config,
    *,
    mode: Mode = "replay",
    replay_tools: bool | Collection[str] = True,
    judge_model: Any = None,
) -> CaseResult:
    """Run and judge ``case`` in a (synchronous) test: raise ``AssertionError`` whose
    message is the failure and the layer diff, or return the result. With
    ``@pytest.mark.parametrize("case", load_dataset(path), ids=lambda c: c.name)`` each
    case of a dataset is a test of its own."""

    async def go() -> CaseResult:
        run = await run_case(case, config, mode=mode, replay_tools=replay_tools)
        return await judge_case(run, judge_model=judge_model)

    result = asyncio.run(go())
    if not result.passed:
        raise AssertionError(result.failure())
    return result
