"""Combinators: each one against its definition, on arbitrary event sequences."""

from __future__ import annotations

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
    identity_processor,
    map_output,
    with_logging,
)

Out = tuple[Any, tuple[Any, ...]]


def running_sum(state: int, event: int) -> Out:
    """Emits the running total after each event."""
    total = state + event
    return total, (total,)


def twice(state: None, event: Any) -> Out:
    """Stateless: emits every event twice."""
    return state, (event, event)


def record(state: tuple[Any, ...], event: Any) -> Out:
    """Remembers every event, emits nothing."""
    return (*state, event), ()


def drop_odd(state: int, event: int) -> Out:
    """Counts events, emits only even ones."""
    return state + 1, ((event,) if event % 2 == 0 else ())


def run(processor: Any, state: Any, events: list[Any]) -> tuple[Any, list[Any]]:
    outputs: list[Any] = []
    for event in events:
        state, out = processor(state, event)
        outputs.extend(out)
    return state, outputs


events_st = st.lists(st.integers(-50, 50), max_size=30)


def is_even(e: int) -> bool:
    return e % 2 == 0


def is_positive(e: int) -> bool:
    return e > 0


def negate(o: int) -> int:
    return -o


def add_one(o: int) -> int:
    return o + 1


# -- identity --------------------------------------------------------------------------------


def test_identity_keeps_state_and_emits_the_event() -> None:
    state = object()
    assert identity_processor(state, "e") == (state, ("e",))


# -- combine ---------------------------------------------------------------------------------


@given(events_st)
def test_combine_equals_running_each_child_alone(events: list[int]) -> None:
    combined = combine_processors(total=running_sum, copy=twice, seen=record)
    initial = combine_initial_states(total=lambda: 0, copy=lambda: None, seen=tuple)
    state, outputs = run(combined, initial(), events)
    assert state.total == run(running_sum, 0, events)[0]
    assert state.seen == tuple(events)
    # per event: running_sum's output first, then twice's (declaration order)
    expected: list[int] = []
    total = 0
    for e in events:
        total += e
        expected += [total, e, e]
    assert outputs == expected


def test_combined_state_is_keyed_by_name_and_compares_as_a_tuple() -> None:
    initial = combine_initial_states(a=lambda: 1, b=tuple)
    state = initial()
    assert (state.a, state.b) == (1, ())
    assert state == (1, ())
    assert repr(state) == "CombinedState(a=1, b=())"
    assert initial() is not state  # a fresh state per call


def test_combine_keeps_the_same_state_object_when_no_child_changed() -> None:
    combined = combine_processors(a=identity_processor, b=twice)
    state = combine_initial_states(a=lambda: None, b=lambda: None)()
    new_state, outputs = combined(state, "x")
    assert new_state is state
    assert outputs == ("x", "x", "x")


def test_combine_does_not_flatten_nested_combinations() -> None:
    inner = combine_processors(total=running_sum)
    outer = combine_processors(inner=inner, seen=record)
    initial = combine_initial_states(inner=combine_initial_states(total=lambda: 0), seen=tuple)
    state, outputs = run(outer, initial(), [2, 3])
    assert state.inner.total == 5
    assert state.seen == (2, 3)
    assert outputs == [2, 5]
    assert repr(outer) == (
        "combine_processors(inner=combine_processors(total=running_sum), seen=record)"
    )


def test_combine_rejects_a_state_of_the_wrong_size() -> None:
    combined = combine_processors(a=running_sum, b=running_sum)
    with pytest.raises(TypeError, match="combine_initial_states"):
        combined((0,), 1)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: combine_processors(), "at least one"),
        (lambda: combine_processors(a=3), r"combine_processors\(a=...\) must be callable"),
        (lambda: combine_initial_states(), "at least one"),
        (lambda: combine_initial_states(a=None), "must be callable"),
        (lambda: chain_processors(), "at least one"),
        (lambda: chain_processors(running_sum, "x"), "stage 1 must be callable"),
        (lambda: chain_initial_states(), "at least one"),
        (lambda: filter_processor(None, running_sum), "predicate must be callable"),
        (lambda: map_output(running_sum, 5), "processor must be callable"),
        (lambda: with_logging(running_sum, "log"), "logger must be callable"),
    ],
)
def test_bad_arguments_are_named(make: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()


# -- chain -----------------------------------------------------------------------------------


@given(events_st)
def test_chain_feeds_each_stage_the_previous_stage_outputs(events: list[int]) -> None:
    chain = chain_processors(twice, running_sum, drop_odd)
    state, outputs = run(chain, chain_initial_states(lambda: None, lambda: 0, lambda: 0)(), events)
    # the same pipeline written out by hand, stage by stage
    doubled = [e for e in events for _ in range(2)]
    total_state, totals = run(running_sum, 0, doubled)
    count, evens = run(drop_odd, 0, totals)
    assert outputs == evens
    assert state == (None, total_state, count)


@given(events_st)
def test_chain_is_associative_and_nested_chains_flatten(events: list[int]) -> None:
    left = chain_processors(chain_processors(twice, running_sum), drop_odd)
    right = chain_processors(twice, chain_processors(running_sum, drop_odd))
    left_init = chain_initial_states(chain_initial_states(lambda: None, lambda: 0), lambda: 0)
    right_init = chain_initial_states(lambda: None, chain_initial_states(lambda: 0, lambda: 0))
    assert left_init() == right_init() == (None, 0, 0)
    assert run(left, left_init(), events) == run(right, right_init(), events)
    assert repr(left) == repr(right) == "chain_processors(twice, running_sum, drop_odd)"
    assert repr(left_init).startswith("chain_initial_states(")


def test_chain_emits_only_the_last_stage_outputs() -> None:
    chain = chain_processors(twice, record)
    state, outputs = chain((None, ()), "x")
    assert outputs == ()
    assert state == (None, ("x", "x"))


def test_identity_in_a_combined_stage_passes_earlier_outputs_through() -> None:
    keep_and_sum = combine_processors(keep=identity_processor, total=running_sum)
    chain = chain_processors(twice, keep_and_sum)
    initial = chain_initial_states(
        lambda: None, combine_initial_states(keep=lambda: None, total=lambda: 0)
    )
    _, outputs = run(chain, initial(), [3])
    assert outputs == [3, 3, 3, 6]


def test_chain_stops_at_a_stage_with_no_outputs_and_keeps_later_states() -> None:
    chain = chain_processors(drop_odd, record)
    state = (0, ())
    state, outputs = chain(state, 1)
    assert state == (1, ()) and outputs == ()
    state, _ = chain(state, 2)
    assert state == (2, (2,))


def test_chain_returns_the_same_state_when_nothing_changed() -> None:
    chain = chain_processors(identity_processor, identity_processor)
    state = (None, None)
    assert chain(state, 1)[0] is state


def test_chain_rejects_a_state_of_the_wrong_size() -> None:
    with pytest.raises(TypeError, match="chain_initial_states"):
        chain_processors(running_sum, running_sum)((0, 0, 0), 1)


# -- filter and map --------------------------------------------------------------------------


@given(events_st)
def test_filter_equals_running_on_the_kept_events(events: list[int]) -> None:
    filtered = filter_processor(is_even, running_sum)
    assert run(filtered, 0, events) == run(running_sum, 0, [e for e in events if is_even(e)])


@given(events_st)
def test_nested_filters_flatten_and_mean_and(events: list[int]) -> None:
    nested = filter_processor(is_positive, filter_processor(is_even, running_sum))
    kept = [e for e in events if is_positive(e) and is_even(e)]
    assert run(nested, 0, events) == run(running_sum, 0, kept)
    assert repr(nested) == "filter_processor(is_positive & is_even, running_sum)"


def test_filter_leaves_state_identical_for_rejected_events() -> None:
    state = ("kept",)
    assert filter_processor(is_even, record)(state, 3) == (state, ())
    assert filter_processor(is_even, record)(state, 3)[0] is state


@given(events_st)
def test_map_output_maps_each_output_and_keeps_state(events: list[int]) -> None:
    mapped = map_output(negate, running_sum)
    state, outputs = run(mapped, 0, events)
    plain_state, plain_outputs = run(running_sum, 0, events)
    assert state == plain_state
    assert outputs == [-o for o in plain_outputs]


def test_nested_maps_flatten_inner_function_first() -> None:
    mapped = map_output(negate, map_output(add_one, running_sum))
    assert mapped(0, 4) == (4, (-5,))
    assert repr(mapped) == "map_output(add_one then negate, running_sum)"


def test_map_output_skips_steps_without_outputs() -> None:
    calls: list[Any] = []
    mapped = map_output(calls.append, record)
    assert mapped((), 1) == ((1,), ())
    assert calls == []


# -- with_logging ----------------------------------------------------------------------------


def test_with_logging_called_directly_never_calls_the_logger() -> None:
    calls: list[Any] = []
    logged = with_logging(running_sum, calls.append)
    assert logged(1, 2) == (3, (3,))
    assert calls == []
    assert repr(logged).startswith("with_logging(running_sum, ")


@pytest.mark.parametrize(
    "wrap",
    [
        lambda p: combine_processors(a=p),
        lambda p: chain_processors(p),
        lambda p: filter_processor(is_even, p),
        lambda p: map_output(negate, p),
    ],
)
def test_with_logging_inside_another_combinator_is_rejected(wrap: Any) -> None:
    with pytest.raises(TypeError, match="outermost"):
        wrap(with_logging(running_sum, print))
