"""MealyMachine: per-agent state, failure atomicity, re-feeding and shell-side observers."""

from __future__ import annotations

import pathlib
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore import MemoryStore
from agentcore.combinators import with_logging
from agentcore.errors import ErrorCode, LimitExceededError
from agentcore.events import (
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResult,
    ToolUseStart,
    ToolUseStop,
    TurnResponse,
    UserMessage,
)
from agentcore.machine import DEFAULT_MAX_DEPTH, MealyMachine, Step, create_mealy_machine
from agentcore.pricing import ModelPrice
from agentcore.processors import agent_processor, create_initial_agent_engine_state

Out = tuple[Any, tuple[Any, ...]]


def running_sum(state: int, event: int) -> Out:
    total = state + event
    return total, (total,)


def countdown(state: tuple[int, ...], event: int) -> Out:
    """Remembers every event; answers n with n - 1 until 0 (a re-feed chain of depth n)."""
    return (*state, event), ((event - 1,) if event > 0 else ())


def fails_on_negative(state: int, event: int) -> Out:
    if event < 0:
        raise ValueError("negative")
    return running_sum(state, event)


class CountingStore(MemoryStore):
    """A MemoryStore that counts calls, to pin the hot path to one get and one set."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def get(self, agent_id: str) -> Any | None:
        self.calls.append("get")
        return super().get(agent_id)

    def set(self, agent_id: str, state: Any) -> None:
        self.calls.append("set")
        super().set(agent_id, state)


def test_first_event_starts_from_a_fresh_initial_state_per_agent() -> None:
    made: list[int] = []

    def initial() -> int:
        made.append(1)
        return 100

    machine = MealyMachine(running_sum, initial)
    assert machine.process("a", 1) == (101,)
    assert machine.process("a", 1) == (102,)
    assert machine.process("b", 5) == (105,)
    assert len(made) == 2
    assert machine.state_of("a") == 102
    assert machine.has_state("b") and not machine.has_state("c")


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(-9, 9)), max_size=40))
def test_agents_are_independent(steps: list[tuple[str, int]]) -> None:
    shared = MealyMachine(running_sum, lambda: 0)
    outputs = {agent: [shared.process(agent, e) for a, e in steps if a == agent] for agent in "abc"}
    for agent in "abc":
        alone = MealyMachine(running_sum, lambda: 0)
        assert [alone.process(agent, e) for a, e in steps if a == agent] == outputs[agent]


def test_hot_path_is_one_get_and_one_set() -> None:
    store = CountingStore()
    machine = MealyMachine(running_sum, lambda: 0, store)
    machine.process("a", 1)
    machine.process("a", 2)
    assert store.calls == ["get", "set", "get", "set"]
    assert machine.store is store


def test_a_raising_processor_leaves_state_untouched_and_propagates() -> None:
    machine = MealyMachine(fails_on_negative, lambda: 0)
    machine.process("a", 5)
    with pytest.raises(ValueError, match="negative"):
        machine.process("a", -1)
    assert machine.state_of("a") == 5
    with pytest.raises(ValueError):
        machine.process("new", -1)
    assert not machine.has_state("new")


def test_clear_state_restarts_from_initial_and_is_idempotent() -> None:
    machine = MealyMachine(running_sum, lambda: 0)
    machine.process("a", 7)
    machine.clear_state("a")
    machine.clear_state("a")
    assert not machine.has_state("a")
    with pytest.raises(KeyError, match="'a'"):
        machine.state_of("a")
    assert machine.process("a", 1) == (1,)


def test_refeed_is_depth_first_and_returns_every_output() -> None:
    machine = MealyMachine(countdown, tuple, refeed=True)
    assert machine.process("a", 3) == (2, 1, 0)
    assert machine.state_of("a") == (3, 2, 1, 0)


def test_refeed_order_is_depth_first_across_siblings() -> None:
    def fan(state: tuple[str, ...], event: str) -> Out:
        children = {"root": ("a", "b"), "a": ("a1",), "b": ("b1",)}.get(event, ())
        return (*state, event), children

    machine = MealyMachine(fan, tuple, refeed=True)
    assert machine.process("x", "root") == ("a", "a1", "b", "b1")
    assert machine.state_of("x") == ("root", "a", "a1", "b", "b1")


def test_refeed_predicate_chooses_what_goes_back() -> None:
    machine = MealyMachine(countdown, tuple, refeed=lambda o: o % 2 == 0)
    assert machine.process("a", 5) == (4, 3)  # 4 is re-fed and answers 3; 3 is not re-fed
    assert machine.state_of("a") == (5, 4)


def test_refeed_within_max_depth_is_fine() -> None:
    # 3 answers 2 (depth 1), 2 answers 1 (depth 2), 1 answers 0 (depth 3), 0 answers nothing
    machine = MealyMachine(countdown, tuple, refeed=True, max_depth=3)
    assert machine.process("a", 3) == (2, 1, 0)
    # 4 needs a fourth round (re-feeding the 0): beyond max_depth
    with pytest.raises(LimitExceededError):
        machine.process("a", 4)


def test_runaway_refeed_raises_and_discards_the_whole_step() -> None:
    machine = MealyMachine(countdown, tuple, refeed=True, max_depth=3)
    machine.process("a", 0)
    with pytest.raises(LimitExceededError, match="max_depth=3") as info:
        machine.process("a", 5)
    assert info.value.code is ErrorCode.MAX_ITERATIONS_EXCEEDED
    assert machine.state_of("a") == (0,)


def test_default_max_depth_stops_an_endless_echo() -> None:
    def echo(state: int, event: str) -> Out:
        return state + 1, (event,)

    machine = MealyMachine(echo, lambda: 0, refeed=True)
    with pytest.raises(LimitExceededError):
        machine.process("a", "again")
    assert not machine.has_state("a")
    assert DEFAULT_MAX_DEPTH >= 1


def test_without_refeed_outputs_are_not_fed_back() -> None:
    machine = MealyMachine(countdown, tuple)
    assert machine.process("a", 3) == (2,)
    assert machine.state_of("a") == (3,)


def test_with_logging_logs_each_committed_step_from_the_machine() -> None:
    logged: list[Step] = []
    also: list[Step] = []
    processor = with_logging(with_logging(fails_on_negative, logged.append), also.append)
    machine = MealyMachine(processor, lambda: 0)
    assert machine.process("a", 2) == (2,)
    with pytest.raises(ValueError):
        machine.process("a", -1)
    assert logged == also == [Step("a", 2, (2,))]
    assert machine.processor is processor


def test_on_step_sees_refed_outputs_after_state_is_stored() -> None:
    seen: list[tuple[Step, Any]] = []
    machine: MealyMachine

    def observe(step: Step) -> None:
        seen.append((step, machine.state_of(step.agent_id)))

    machine = MealyMachine(countdown, tuple, refeed=True, on_step=observe)
    machine.process("a", 2)
    assert seen == [(Step("a", 2, (1, 0)), (2, 1, 0))]


def test_failing_observers_do_not_stop_the_others_and_are_grouped() -> None:
    seen: list[Step] = []

    def broken(step: Step) -> None:
        raise RuntimeError("observer down")

    machine = MealyMachine(with_logging(running_sum, broken), lambda: 0, on_step=seen.append)
    with pytest.raises(ExceptionGroup) as info:
        machine.process("a", 1)
    assert [str(e) for e in info.value.exceptions] == ["observer down"]
    assert seen == [Step("a", 1, (1,))]
    assert machine.state_of("a") == 1  # the step was committed


def test_on_observer_error_receives_failures_and_outputs_are_returned() -> None:
    errors: list[tuple[str, Step]] = []

    def broken(step: Step) -> None:
        raise RuntimeError("observer down")

    machine = MealyMachine(
        running_sum,
        lambda: 0,
        on_step=broken,
        on_observer_error=lambda exc, step: errors.append((str(exc), step)),
    )
    assert machine.process("a", 4) == (4,)
    assert errors == [("observer down", Step("a", 4, (4,)))]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"processor": 1}, TypeError, "processor must be callable"),
        ({"initial_state": 0}, TypeError, "zero-argument factory"),
        ({"store": {}}, TypeError, "get/set/delete/has"),
        ({"max_depth": 0}, ValueError, "max_depth"),
        ({"max_depth": True}, ValueError, "max_depth"),
    ],
)
def test_bad_construction_is_named(kwargs: dict[str, Any], error: type, message: str) -> None:
    args: dict[str, Any] = {"processor": running_sum, "initial_state": lambda: 0, **kwargs}
    with pytest.raises(error, match=message):
        MealyMachine(**args)


def test_repr_names_processor_and_store() -> None:
    assert repr(MealyMachine(running_sum, lambda: 0)).startswith(
        "MealyMachine(<function running_sum"
    )


def test_the_examples_in_docs_machine_md_run() -> None:
    text = (pathlib.Path(__file__).parents[2] / "docs" / "machine.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) >= 8
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, "docs/machine.md", "exec"), namespace)


def conversation() -> list[Any]:
    """One turn: text, two tool calls, their results, a final answer."""
    return [
        UserMessage("u1", "hi", timestamp=1),
        MessageStart("m1", "claude-x", timestamp=2),
        TextDelta("Let me look", 0, timestamp=3),
        ToolUseStart("c1", "search", 1, timestamp=4),
        InputJsonDelta('{"q": 1}', 1, timestamp=5),
        ToolUseStop("c1", 1, timestamp=6),
        MessageDelta("tool_use", {"input_tokens": 10, "output_tokens": 5}, timestamp=7),
        MessageStop("tool_use", timestamp=8),
        ToolResult("c1", "found", timestamp=9),
        MessageStart("m2", "claude-x", timestamp=10),
        TextDelta("Done", 0, timestamp=11),
        MessageDelta("end_turn", {"input_tokens": 20, "output_tokens": 5}, timestamp=12),
        MessageStop("end_turn", timestamp=13),
    ]


def test_create_mealy_machine_runs_agent_processor_with_prices() -> None:
    prices = {"claude-x": ModelPrice(3.0, 15.0)}
    machine = create_mealy_machine(prices=prices)
    state = create_initial_agent_engine_state(prices)
    for event in conversation():
        state, expected = agent_processor(state, event)
        assert machine.process("a", event) == expected
    assert machine.state_of("a") == state
    (turn,) = [o for o in expected if isinstance(o, TurnResponse)]
    assert turn.cost == pytest.approx((30 * 3.0 + 10 * 15.0) / 1e6)
    assert create_mealy_machine().process("b", conversation()[0])  # fresh, independent


def test_create_mealy_machine_passes_machine_options() -> None:
    steps: list[Step] = []
    store = MemoryStore()
    machine = create_mealy_machine(store, on_step=steps.append)
    machine.process("a", conversation()[0])
    assert machine.store is store and store.has("a")
    assert [s.event for s in steps] == [conversation()[0]]
