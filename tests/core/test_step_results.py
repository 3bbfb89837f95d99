"""What a processor returns, at every child boundary: the combinators and the machine.

A processor may return its outputs as a list (the seed spells a step ``[state,
outputs[]]``) or any other sequence; every combinator and ``MealyMachine`` then behaves
exactly as if they were a tuple, and hands on tuples. Anything that is not a
``(state, outputs)`` pair is a ``TypeError`` that names the processor and what it returned.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.combinators import (
    chain_initial_states,
    chain_processors,
    combine_initial_states,
    combine_processors,
    filter_processor,
    map_output,
)
from agentcore.machine import MealyMachine

Out = tuple[Any, tuple[Any, ...]]
Spelling = Callable[[tuple[Any, ...]], Sequence[Any]]

SPELLINGS: dict[str, Spelling] = {"tuple": tuple, "list": list, "deque": deque}


def counting(spell: Spelling, pair: Callable[..., Any] = tuple) -> Callable[[int, int], Any]:
    """A processor counting events and emitting ``event // 2`` and ``-event`` for even
    ones, its outputs spelled by ``spell`` and its pair built by ``pair``."""

    def step(state: int, event: int) -> Any:
        outputs = (event // 2, -event) if event % 2 == 0 else ()
        return pair((state + 1, spell(outputs)))

    step.__qualname__ = f"counting_{getattr(spell, '__name__', 'seq')}"
    return step


def as_list_pair(items: tuple[Any, Any]) -> list[Any]:
    return list(items)


# each case: (build a combinator around one child, its initial state)
WRAPPERS: dict[str, tuple[Callable[[Any], Any], Callable[[], Any]]] = {
    "combine": (lambda p: combine_processors(x=p), combine_initial_states(x=lambda: 0)),
    "combine-2": (
        lambda p: combine_processors(x=p, y=p),
        combine_initial_states(x=lambda: 0, y=lambda: 0),
    ),
    "chain": (lambda p: chain_processors(p), chain_initial_states(lambda: 0)),
    "chain-2": (lambda p: chain_processors(p, p), chain_initial_states(lambda: 0, lambda: 0)),
    "filter": (lambda p: filter_processor(lambda e: e != 3, p), lambda: 0),
    "map": (lambda p: map_output(lambda o: o * 10, p), lambda: 0),
}


def run(processor: Any, state: Any, events: list[int]) -> tuple[Any, list[Any]]:
    outputs: list[Any] = []
    for event in events:
        state, out = processor(state, event)
        assert type(out) is tuple
        outputs.extend(out)
    return state, outputs


@given(
    events=st.lists(st.integers(-20, 20), max_size=20),
    wrapper=st.sampled_from(sorted(WRAPPERS)),
    spelling=st.sampled_from(sorted(SPELLINGS)),
    list_pair=st.booleans(),
)
def test_any_sequence_of_outputs_behaves_as_the_tuple(
    events: list[int], wrapper: str, spelling: str, list_pair: bool
) -> None:
    wrap, initial = WRAPPERS[wrapper]
    reference = run(wrap(counting(tuple)), initial(), events)
    pair = as_list_pair if list_pair else tuple
    assert run(wrap(counting(SPELLINGS[spelling], pair)), initial(), events) == reference


@given(
    events=st.lists(st.integers(-20, 20), max_size=20),
    spelling=st.sampled_from(sorted(SPELLINGS)),
    refeed=st.booleans(),
)
def test_the_machine_takes_any_sequence_of_outputs(
    events: list[int], spelling: str, refeed: bool
) -> None:
    def only_positive(o: int) -> bool:  # halving until odd: re-feeding ends
        return o > 0

    def outputs_of(processor: Any) -> tuple[list[tuple[Any, ...]], int]:
        machine = MealyMachine(processor, lambda: 0, refeed=only_positive if refeed else False)
        got = [machine.process("a", e) for e in events]
        return got, machine.state_of("a") if events else 0

    got, state = outputs_of(counting(SPELLINGS[spelling], as_list_pair))
    assert (got, state) == outputs_of(counting(tuple))
    assert all(type(out) is tuple for out in got)


def returns(value: Any) -> Callable[[Any, Any], Any]:
    def broken_step(state: Any, event: Any) -> Any:
        return value

    return broken_step


NOT_PAIRS = [
    (None, "must return a (state, outputs) pair, got NoneType: None"),
    ((1, (), 2), "must return a (state, outputs) pair, got tuple: (1, (), 2)"),
    ((1,), "must return a (state, outputs) pair, got tuple: (1,)"),
    ("ab", "must return a (state, outputs) pair, got str: 'ab'"),
    ({"s": 1, "o": ()}, "must return a (state, outputs) pair, got dict"),
    ((0, None), "returned outputs NoneType: None; outputs must be a sequence"),
    ((0, "out"), "returned outputs str: 'out'; outputs must be a sequence"),
    ((0, 5), "returned outputs int: 5; outputs must be a sequence"),
    ((0, {1, 2}), "returned outputs set"),
]


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize(("value", "needle"), NOT_PAIRS)
def test_a_result_that_is_not_a_pair_names_the_processor(
    wrapper: str, value: Any, needle: str
) -> None:
    wrap, initial = WRAPPERS[wrapper]
    with pytest.raises(TypeError) as info:
        wrap(returns(value))(initial(), 2)
    assert "processor returns.<locals>.broken_step " in str(info.value)
    assert needle in str(info.value)


@pytest.mark.parametrize(("value", "needle"), NOT_PAIRS)
def test_the_machine_rejects_a_result_that_is_not_a_pair(value: Any, needle: str) -> None:
    machine = MealyMachine(returns(value), lambda: "initial")
    with pytest.raises(TypeError, match="broken_step") as info:
        machine.process("a", 1)
    assert needle in str(info.value)
    assert not machine.has_state("a")  # the step was not committed


class BrokenProcessor:
    """A callable object: named by its repr, as it has no ``__qualname__``."""

    def __call__(self, state: Any, event: Any) -> Any:
        return None

    def __repr__(self) -> str:
        return "BrokenProcessor(version=2)"


def test_a_callable_object_is_named_by_its_repr() -> None:
    for processor in (
        combine_processors(x=BrokenProcessor()),
        chain_processors(BrokenProcessor()),
        filter_processor(bool, BrokenProcessor()),
    ):
        with pytest.raises(TypeError, match=r"processor BrokenProcessor\(version=2\) must"):
            processor((0,), 1)
    with pytest.raises(TypeError, match=r"processor BrokenProcessor\(version=2\) must"):
        MealyMachine(BrokenProcessor(), lambda: 0).process("a", 1)


def test_a_broken_child_deep_in_a_combination_is_the_one_named() -> None:
    inner = combine_processors(ok=counting(tuple), bad=returns([0, 1]))
    outer = chain_processors(map_output(abs, counting(list)), inner)
    state = chain_initial_states(lambda: 0, combine_initial_states(ok=lambda: 0, bad=lambda: 0))
    with pytest.raises(TypeError, match=r"returns.<locals>.broken_step returned outputs int: 1"):
        outer(state(), 4)


def test_the_machine_rejects_a_refed_step_that_is_not_a_pair() -> None:
    def first_answers_then_breaks(state: int, event: int) -> Any:
        return (state + 1, [event - 1]) if event > 0 else None

    machine = MealyMachine(first_answers_then_breaks, lambda: 0, refeed=True)
    with pytest.raises(TypeError, match="first_answers_then_breaks must return"):
        machine.process("a", 1)
    assert not machine.has_state("a")


def test_a_pair_with_tuple_outputs_is_handed_on_as_it_is() -> None:
    result = (1, ("x",))

    def exact(state: int, event: Any) -> Out:
        return result

    assert filter_processor(lambda e: True, exact)(0, "e") is result
