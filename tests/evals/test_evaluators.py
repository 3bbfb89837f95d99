"""The built-in evaluators, a function of your own, and the LLM judge (scripted; live when
an OpenAI-compatible server is named by AGENTCORE_JUDGE_BASE_URL)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from agentcore import ModelPrice
from agentcore.drivers.scripted import FunctionDriver, ScriptedDriver, text_turn
from agentcore.evals import Case as EvalCase
from agentcore.evals import (
    Judge,
    Score,
    budget,
    contains,
    equals,
    evaluator_of,
    json_schema,
    judge_case,
    regex,
    run_case,
    trajectory,
)

from .helpers import config, recorded_case


def _traces(answer="3"):
    case = recorded_case()

    async def go():
        run = await run_case(case, lambda: config(answer=answer), mode="live")
        result = await judge_case(run)
        return result

    result = asyncio.run(go())
    from agentcore.evals import trace_of

    new = trace_of(result.run.entries, "adder", None)
    recorded = trace_of(case.entries, "adder", None)
    return case, new, recorded


def _check(evaluator, answer="3"):
    case, new, recorded = _traces(answer)
    value = evaluator(case, new, recorded)
    return asyncio.run(value) if asyncio.iscoroutine(value) else value


def test_text_evaluators():
    assert _check(equals("3")).passed
    assert not _check(equals("3"), answer="4").passed
    assert _check(contains("3"), answer="it is 3").passed
    failed = _check(contains("3"), answer="four")
    assert (failed.passed, failed.reason) == (False, "answer 'four' lacks '3'")
    assert _check(regex(r"^\d+$")).passed
    assert not _check(regex(r"^\d+$"), answer="3 apples").passed


def test_json_schema():
    schema = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
    assert _check(json_schema(schema), answer=json.dumps({"sum": 3})).passed
    wrong = _check(json_schema(schema), answer=json.dumps({"sum": "three"}))
    assert not wrong.passed and wrong.reason.startswith("sum: 'three' is not of type")
    assert "not JSON" in _check(json_schema(schema), answer="3 apples").reason


def test_trajectory_matches():
    assert _check(trajectory(["add"])).passed
    assert _check(trajectory()).passed  # against the recording's
    assert not _check(trajectory(["add", "add"])).passed
    assert _check(trajectory([], match="in_order")).passed
    assert not _check(trajectory(["mul"], match="any_order")).passed
    with pytest.raises(ValueError, match="exact, in_order or any_order"):
        trajectory(["add"], match="sometimes")


def test_budget():
    assert _check(budget(max_model_calls=2, max_tokens=100, max_seconds=30)).passed
    over = _check(budget(max_model_calls=1))
    assert (over.passed, over.reason) == (False, "2 model calls > 1")


def test_evaluators_from_data_and_functions_of_your_own():
    case, new, recorded = _traces()
    assert evaluator_of({"contains": "3"})(case, new, recorded).passed
    assert evaluator_of({"trajectory": ["add"], "match": "in_order"})(case, new, recorded).passed
    assert evaluator_of({"max_model_calls": 5})(case, new, recorded).passed

    def same_answer(case, new, recorded):
        return (1.0 if new.final_text == recorded.final_text else 0.0), "answers compared"

    result = asyncio.run(judge_case(asyncio.run(run_case(_with(case, same_answer), config))))
    assert result.scores == (Score("same_answer", 1.0, True, "answers compared"),)
    with pytest.raises(ValueError, match="unknown evaluator"):
        evaluator_of({"smells": "nice"})


def _with(case, *expect):
    return EvalCase(name=case.name, agent_id=case.agent_id, entries=case.entries, expect=expect)


def test_a_failing_evaluator_is_a_failed_score_not_a_crash():
    def broken(case, new, recorded):
        raise KeyError("oops")

    result = asyncio.run(judge_case(asyncio.run(run_case(_with(recorded_case(), broken), config))))
    assert not result.passed
    assert result.scores[0].reason == "the evaluator raised KeyError: 'oops'"


def test_the_judge_runs_on_a_scripted_model_journaled_and_priced():
    seen = []

    def grade(request):
        seen.append(request)
        return text_turn(
            '{"score": 0.8, "reason": "adds correctly"}',
            usage={"input_tokens": 1000, "output_tokens": 50},
        )

    price = ModelPrice(input=1.0, output=4.0)
    judge = Judge("The answer must be the sum.", FunctionDriver(grade), 0.7, {"price": price})
    score = _check(judge)
    assert (score.score, score.passed, score.reason) == (0.8, True, "adds correctly")
    assert score.cost == pytest.approx((1000 * 1.0 + 50 * 4.0) / 1e6)
    prompt = seen[0].messages[-1].content
    assert "The answer must be the sum." in prompt and "tool call: add" in prompt
    lanes = {e.agent_id for e in judge.journal.entries()}
    assert lanes == {"judge/adder/1"}
    low = Judge("x", ScriptedDriver([text_turn('{"score": 0.2, "reason": "no"}')]), threshold=0.5)
    assert not _check(low).passed
    garbled = Judge("x", ScriptedDriver([text_turn("I think it is fine")]))
    assert "did not answer JSON" in _check(garbled).reason


@pytest.mark.live
@pytest.mark.skipif(
    not os.environ.get("AGENTCORE_JUDGE_BASE_URL"),
    reason="set AGENTCORE_JUDGE_BASE_URL (and AGENTCORE_JUDGE_MODEL): an OpenAI-compatible server",
)
def test_the_judge_on_a_live_openai_compatible_server():
    from agentcore.drivers.openai import OpenAIDriver

    model = os.environ.get("AGENTCORE_JUDGE_MODEL", "gpt-4o-mini")
    driver = OpenAIDriver(
        model,
        base_url=os.environ["AGENTCORE_JUDGE_BASE_URL"],
        api_key=os.environ.get("AGENTCORE_JUDGE_API_KEY", "none"),
    )
    score = _check(Judge("The final answer is the number 3.", driver))
    assert 0.0 <= score.score <= 1.0 and score.reason
