"""Evaluators: functions of ``(case, new run, recorded run)`` that return a ``Score``.

The runs are ``Trace``s (``recorded`` is None for a hand-written case). An evaluator is
any callable, plain or async, returning a ``Score``, a ``(score, reason)`` pair, a bool
or a number in [0, 1] (passed at 1 for a bool, at ``threshold`` for a number). The
built-in ones: ``equals``, ``contains``, ``regex`` (on the final answer),
``json_schema`` (the final answer parses as JSON and fits), ``trajectory`` (tool names:
``exact``, ``in_order`` subset, ``any_order``), ``budget`` (cost, tokens, model calls,
wall time), ``Judge`` (an LLM with a rubric, on any driver; its calls journaled and
priced). ``evaluator_of`` reads one from data (``{"contains": "Paris"}``...).
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs
import jsonschema

from .._core.errors import ConfigurationError
from .._journal.journal import Journal, MemoryJournal
from .._runtime.agent import Agent
from .cases import Case
from .config import _function
from .trace import Trace

__all__ = [
    "Judge",
    "Score",
    "budget",
    "contains",
    "equals",
    "evaluate",
    "evaluator_of",
    "json_schema",
    "regex",
    "trajectory",
]


@attrs.frozen
class Score:
    """An evaluator's verdict: ``name``, ``score`` in [0, 1], ``passed``, ``reason``;
    ``cost`` is what the evaluator spent (a judge's model calls), in USD."""

    name: str
    score: float
    passed: bool
    reason: str = ""
    cost: float | None = None


def _named(name: str, check: Callable[..., Any]) -> Callable[..., Any]:
    check.__name__ = check.__qualname__ = name
    return check


def equals(expected: str) -> Callable[..., Score]:
    """The final answer is ``expected`` (surrounding whitespace aside)."""

    def check(case: Case, new: Trace, recorded: Trace | None) -> Score:
        got = new.final_text.strip()
        ok = got == expected.strip()
        return Score(f"equals({expected!r})", float(ok), ok, "" if ok else f"answer was {got!r}")

    return _named("equals", check)


def contains(expected: str) -> Callable[..., Score]:
    """The final answer contains ``expected``."""

    def check(case: Case, new: Trace, recorded: Trace | None) -> Score:
        ok = expected in new.final_text
        reason = "" if ok else f"answer {new.final_text!r} lacks {expected!r}"
        return Score(f"contains({expected!r})", float(ok), ok, reason)

    return _named("contains", check)


def regex(pattern: str) -> Callable[..., Score]:
    """The final answer matches ``pattern`` (``re.search``)."""
    compiled = re.compile(pattern)

    def check(case: Case, new: Trace, recorded: Trace | None) -> Score:
        ok = compiled.search(new.final_text) is not None
        reason = "" if ok else f"answer {new.final_text!r} does not match /{pattern}/"
        return Score(f"regex({pattern!r})", float(ok), ok, reason)

    return _named("regex", check)


def json_schema(schema: Mapping[str, Any]) -> Callable[..., Score]:
    """The final answer is JSON that fits ``schema`` (a typed output)."""
    validator = jsonschema.Draft202012Validator(schema)

    def check(case: Case, new: Trace, recorded: Trace | None) -> Score:
        try:
            value = json.loads(new.final_text)
        except ValueError as exc:
            return Score("json_schema", 0.0, False, f"the answer is not JSON: {exc}")
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "the answer"
            return Score("json_schema", 0.0, False, f"{where}: {errors[0].message}")
        return Score("json_schema", 1.0, True)

    return _named("json_schema", check)


Match = Literal["exact", "in_order", "any_order"]


def trajectory(
    expected: Sequence[str] | None = None, match: Match = "exact"
) -> Callable[..., Score]:
    """The tool calls' names: ``exact`` (the same list), ``in_order`` (``expected`` is a
    subsequence), ``any_order`` (each expected call made, as often). Without
    ``expected``: the recorded run's trajectory."""
    if match not in ("exact", "in_order", "any_order"):
        raise ConfigurationError(f"trajectory match is exact, in_order or any_order, got {match!r}")

    def check(case: Case, new: Trace, recorded: Trace | None) -> Score:
        want = list(expected) if expected is not None else (recorded.trajectory if recorded else [])
        got = new.trajectory
        if match == "exact":
            ok = got == want
        elif match == "in_order":
            calls = iter(got)
            ok = all(name in calls for name in want)
        else:
            ok = all(got.count(name) >= want.count(name) for name in set(want))
        reason = "" if ok else f"tool calls {got} do not match {want} ({match})"
        return Score(f"trajectory({match})", float(ok), ok, reason)

    return _named("trajectory", check)


def budget(
    *,
    max_cost: float | None = None,
    max_tokens: int | None = None,
    max_model_calls: int | None = None,
    max_seconds: float | None = None,
) -> Callable[..., Score]:
    """The new run stayed within each limit given (cost in USD, input plus output
    tokens, model calls, wall time from its first entry to its last)."""

    def check(case: Case, new: Trace, recorded: Trace | None) -> Score:
        over = []
        if max_cost is not None and (new.cost or 0.0) > max_cost:
            over.append(f"cost ${new.cost:.6f} > ${max_cost}")
        if max_tokens is not None and new.tokens > max_tokens:
            over.append(f"{new.tokens} tokens > {max_tokens}")
        calls = len(new.model_steps)
        if max_model_calls is not None and calls > max_model_calls:
            over.append(f"{calls} model calls > {max_model_calls}")
        if max_seconds is not None and new.duration_ms / 1000 > max_seconds:
            over.append(f"{new.duration_ms / 1000:.3f} s > {max_seconds} s")
        return Score("budget", float(not over), not over, "; ".join(over))

    return _named("budget", check)


JUDGE_PROMPT = (
    "You grade an AI agent's conversation against a rubric. Answer with one JSON object "
    'and nothing else: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}.'
)


@attrs.define
class Judge:
    """An LLM judge: ``model`` (a driver or ``"provider/model"``) grades the new run's
    conversation against ``rubric``; passed at ``threshold``. Each grading is an agent
    run journaled in ``journal`` (lane ``judge/<case>/<n>``) and priced like any run
    (``options`` are more ``Agent`` options: ``price``, ``base_url``...)."""

    rubric: str
    model: Any
    threshold: float = 0.5
    options: Mapping[str, Any] = attrs.field(factory=dict)
    journal: Journal = attrs.field(factory=MemoryJournal)
    name: str = "judge"
    _count: int = attrs.field(default=0, init=False)

    async def __call__(self, case: Case, new: Trace, recorded: Trace | None) -> Score:
        self._count += 1
        agent = Agent(
            self.model,
            system_prompt=JUDGE_PROMPT,
            journal=self.journal,
            agent_id=f"judge/{case.name}/{self._count}",
            max_iterations=1,
            **self.options,
        )
        transcript = "\n".join(_transcript(new))
        prompt = f"Rubric:\n{self.rubric}\n\nConversation:\n{transcript}"
        try:
            result = await agent.run(prompt)
        finally:
            await agent.aclose()
        cost = result.cost
        try:
            verdict = json.loads(_json_part(result.text))
            score = float(verdict["score"])
            reason = str(verdict.get("reason", ""))
        except (ValueError, KeyError, TypeError):
            return Score(
                self.name, 0.0, False, f"the judge did not answer JSON: {result.text!r}", cost
            )
        score = min(1.0, max(0.0, score))
        return Score(self.name, score, score >= self.threshold, reason, cost)


def _json_part(text: str) -> str:
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if start >= 0 and end > start else text


def _transcript(trace: Trace) -> list[str]:
    lines = []
    for output in trace.layer("message"):
        kind = output.type
        if kind == "user_message":
            lines.append(f"user: {output.content}")
        elif kind == "assistant_message" and output.text:
            lines.append(f"assistant: {output.text}")
        elif kind == "tool_call_message":
            lines.append(
                f"tool call: {output.tool_call.tool_name}({json.dumps(output.tool_call.input)})"
            )
        elif kind == "tool_result_message":
            lines.append(f"tool result: {output.result!r}"[:400])
    return lines


# -- running and reading evaluators --------------------------------------------------------


def _name(evaluator: Any) -> str:
    return str(
        getattr(evaluator, "name", None) or getattr(evaluator, "__name__", None) or repr(evaluator)
    )


async def evaluate(evaluator: Any, case: Case, new: Trace, recorded: Trace | None) -> Score:
    """Run one evaluator; what it returns becomes a ``Score``; a raise is a failure that
    says so (never a crash of the whole eval)."""
    try:
        value = evaluator(case, new, recorded)
        if inspect.isawaitable(value):
            value = await value
    except Exception as exc:
        return Score(
            _name(evaluator), 0.0, False, f"the evaluator raised {type(exc).__name__}: {exc}"
        )
    if isinstance(value, Score):
        return value
    if isinstance(value, bool):
        return Score(_name(evaluator), float(value), value)
    if isinstance(value, int | float):
        return Score(_name(evaluator), float(value), value >= 0.5)
    if isinstance(value, tuple) and len(value) == 2:
        score, reason = value
        return Score(_name(evaluator), float(score), float(score) >= 0.5, str(reason))
    return Score(_name(evaluator), 0.0, False, f"the evaluator returned {value!r}, not a score")


_BUDGET_KEYS = ("max_cost", "max_tokens", "max_model_calls", "max_seconds")


def evaluator_of(data: Any, *, judge_model: Any = None) -> Any:
    """An evaluator from data (``{"equals": ...}``, ``{"contains": ...}``, ``{"regex":
    ...}``, ``{"json_schema": {...}}``, ``{"trajectory": [...], "match": ...}``, budget
    keys, ``{"judge": rubric, "threshold": 0.7}``, ``{"function": "module:name"}``); an
    evaluator object passes as it is. Raises ``ConfigurationError`` for anything else."""
    if not isinstance(data, Mapping):
        if callable(data):
            return data
        raise ConfigurationError(f"an evaluator is a function or a mapping, got {data!r}")
    if "equals" in data:
        return equals(str(data["equals"]))
    if "contains" in data:
        return contains(str(data["contains"]))
    if "regex" in data:
        return regex(str(data["regex"]))
    if "json_schema" in data:
        return json_schema(data["json_schema"])
    if "trajectory" in data:
        return trajectory(data["trajectory"], data.get("match", "exact"))
    if any(key in data for key in _BUDGET_KEYS):
        return budget(**{k: data[k] for k in _BUDGET_KEYS if k in data})
    if "judge" in data:
        model = data.get("model", judge_model)
        if model is None:
            raise ConfigurationError("a judge evaluator needs a model: 'model' or --judge-model")
        return Judge(str(data["judge"]), model, float(data.get("threshold", 0.5)))
    if "function" in data:
        return _function(str(data["function"]))
    raise ConfigurationError(f"unknown evaluator {dict(data)!r}")
