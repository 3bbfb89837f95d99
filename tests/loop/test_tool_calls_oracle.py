"""The tool calls' steps decide as they did before a batch moved on in one new state.

``agentcore._loop.tool_calls`` starts a reply's calls, and moves a batch on after a
result or an approval, building the state once (``advance``/``close`` take the batch and
the state's other changes). Differential: over random sequences of any input at any time
(the phase table test's), the policy makes the same states and outputs as the old
policy (``reference_policy.py``) running the old steps (``reference_tool_calls.py``,
the module as it was, kept as the oracle), approvals and deadlines included.

Tests the private module ``agentcore._loop.tool_calls``: its steps against the old ones.
"""

from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentcore._loop.tool_calls as tool_calls
from agentcore import ModelPrice, Summarise
from agentcore.loop import Limits, LoopConfig, initial_loop_state, loop_processor

from .test_phase_table import TOOLS, _event, _fold, _without_refusals

HERE = pathlib.Path(__file__).parent


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"{name}_oracle", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OLD_STEPS = _load("reference_tool_calls")
OLD_POLICY = _load("reference_policy")
OLD_POLICY.tool_calls = OLD_STEPS  # the old policy, calling the old steps


def test_the_oracle_runs_the_old_steps() -> None:
    assert OLD_POLICY.tool_calls is OLD_STEPS is not tool_calls
    assert OLD_STEPS.advance is not tool_calls.advance


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_steps_decide_as_the_old_ones_did(data: st.DataObject) -> None:
    config = LoopConfig(
        tools=TOOLS,
        limits=Limits(
            max_iterations=data.draw(st.integers(1, 5), "max_iterations"),
            timeout_ms=data.draw(st.sampled_from([None, 60, 200]), "timeout"),
        ),
        steering_policy=data.draw(st.sampled_from(["skip", "run"]), "policy"),
        tool_execution=data.draw(st.sampled_from(["parallel", "sequential"]), "execution"),
        price=ModelPrice(1.0, 1.0, context_window=data.draw(st.sampled_from([40, 4000]), "w")),
        compaction=data.draw(st.sampled_from([None, Summarise(1)]), "compaction"),
        model_retries=data.draw(st.integers(0, 2), "retries"),
        retry_delay_ms=10,
    )
    new = old = initial_loop_state(config)
    for n in range(data.draw(st.integers(1, 60), "steps")):
        event = _event(data, new, n, ts=10 * (n + 1))
        new, out_new = _fold(loop_processor, new, event)
        old, out_old = _fold(OLD_POLICY.loop_processor, old, event)
        assert _without_refusals(out_new) == _without_refusals(out_old), event
        assert new == old, event
