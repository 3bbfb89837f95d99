"""route_processors: routing by class, depth-first feedback, echo, watchers, errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.combinators import combine_initial_states, route_processors
from agentcore.errors import LimitExceededError


class A:
    def __init__(self, n: int) -> None:
        self.n = n

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.n == self.n  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.n))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.n})"


class B(A):
    pass


class C(A):
    pass


def counter(tag: str) -> Any:
    """A child that counts what it saw and emits outputs derived from the input:
    ``A(n)`` -> ``B(n - 1), C(n)`` while n > 0 (so feedback terminates), ``B(n)`` ->
    ``C(n)``, ``C`` -> nothing. Two outputs for one input tell feeding each output back
    right away from feeding back after all of them."""

    def processor(state: tuple[int, tuple[str, ...]], event: Any) -> tuple[Any, tuple[Any, ...]]:
        count, seen = state
        state = (count + 1, (*seen, f"{tag}:{event!r}"))
        if type(event) is A and event.n > 0:
            return state, (B(event.n - 1), C(event.n))
        if type(event) is B:
            return state, (C(event.n),)
        return state, ()

    processor.__qualname__ = f"counter_{tag}"
    return processor


def initial() -> tuple[int, tuple[str, ...]]:
    return (0, ())


NAMES = ("x", "y", "z")


def reference(
    states: dict[str, Any],
    event: Any,
    routes: dict[type, tuple[str, ...]],
    feedback: dict[type, tuple[str, ...]],
    echo: set[type],
    default: tuple[str, ...],
    watchers: tuple[str, ...],
    children: dict[str, Any],
    watch: Any = None,
) -> list[Any]:
    """The documented semantics, written as plainly as possible."""
    out: list[Any] = [event] if type(event) in echo else []

    def run(item: Any, targets: tuple[str, ...]) -> None:
        for name in targets:
            states[name], outs = children[name](states[name], item)
            out.extend(outs)
            for o in outs:
                if type(o) in feedback:
                    run(o, feedback[type(o)])

    run(event, routes.get(type(event), default))
    seen = [
        event,
        *(o for o in (out[1:] if type(event) in echo else out) if watch is None or watch(o)),
    ]
    for name in watchers:
        for item in seen:
            states[name], outs = children[name](states[name], item)
            out.extend(outs)
    return out


subsets = st.lists(st.sampled_from(("x", "y")), max_size=2, unique=True).map(tuple)
tables = st.dictionaries(st.sampled_from((A, B, C)), subsets, max_size=3)
events = st.lists(
    st.builds(lambda cls, n: cls(n), st.sampled_from((A, B, C)), st.integers(0, 3)), max_size=12
)


@given(
    tables,
    tables,
    st.sets(st.sampled_from((A, B, C))),
    subsets,
    st.booleans(),
    events,
    st.sampled_from([None, lambda o: type(o) is not C]),
)
def test_route_matches_its_plain_definition(
    routes: dict[type, tuple[str, ...]],
    feedback: dict[type, tuple[str, ...]],
    echo: set[type],
    default: tuple[str, ...],
    watch: bool,
    stream: list[Any],
    watched: Any,
) -> None:
    children = {name: counter(name) for name in NAMES}
    watchers = ("z",) if watch else ()
    processor = route_processors(
        children,
        routes,
        feedback=feedback,
        echo=echo,
        default=default,
        watchers=watchers,
        watch=watched,
        max_depth=64,
    )
    state = combine_initial_states(**{n: initial for n in NAMES})()
    expected_states = {n: initial() for n in NAMES}
    for event in stream:
        before = state
        state, outs = processor(state, event)
        expected = reference(
            expected_states, event, routes, feedback, echo, default, watchers, children, watched
        )
        assert list(outs) == expected
        assert dict(state._asdict()) == expected_states  # type: ignore[attr-defined]
        again, outs_again = processor(before, event)
        assert (again, outs_again) == (state, outs)  # pure: same inputs, same outputs


def test_a_child_later_in_a_route_sees_what_earlier_outputs_caused() -> None:
    log: list[str] = []

    def first(state: None, event: Any) -> tuple[None, tuple[Any, ...]]:
        log.append(f"first {event!r}")
        return state, (B(event.n), C(event.n))

    def second(state: None, event: Any) -> tuple[None, tuple[Any, ...]]:
        log.append(f"second {event!r}")
        return state, ()

    processor = route_processors(
        {"first": first, "second": second},
        {A: ("first", "second")},
        feedback={B: ("second",)},
    )
    state = combine_initial_states(first=lambda: None, second=lambda: None)()
    _, outs = processor(state, A(1))
    assert log == ["first A(1)", "second B(1)", "second A(1)"]
    assert outs == (B(1), C(1))  # a child's outputs stay together, ahead of what they cause


def test_feed_as_hands_another_child_what_a_state_knows() -> None:
    """A ``B`` output is fed back as the event ``feed_as`` builds from the states at that
    moment (here: ``C`` numbered by the first child's count), and emitted as itself."""
    seen: list[Any] = []

    def first(state: int, event: Any) -> tuple[int, tuple[Any, ...]]:
        return state + 10, (B(event.n),)

    def second(state: None, event: Any) -> tuple[None, tuple[Any, ...]]:
        seen.append(event)
        return state, ()

    processor = route_processors(
        {"first": first, "second": second},
        {A: ("first",)},
        feedback={B: ("second",)},
        feed_as={B: lambda states, output: C(states[0] + output.n)},
    )
    state = combine_initial_states(first=lambda: 0, second=lambda: None)()
    state, outs = processor(state, A(1))
    assert outs == (B(1),) and seen == [C(11)] and state.first == 10


def test_unchanged_children_keep_the_state_object() -> None:
    def idle(state: int, event: Any) -> tuple[int, tuple[Any, ...]]:
        return state, ()

    processor = route_processors({"a": idle, "b": idle}, {A: ("a", "b"), B: ("a",)})
    state = combine_initial_states(a=lambda: 0, b=lambda: 0)()
    assert processor(state, A(1))[0] is state
    assert processor(state, B(1))[0] is state
    assert processor(state, C(1)) == (state, ())  # not routed, no default: ignored


def test_runaway_feedback_is_a_limit_error_and_the_step_is_discarded() -> None:
    def ping(state: int, event: Any) -> tuple[int, tuple[Any, ...]]:
        return state + 1, (A(1),)

    processor = route_processors({"p": ping}, {A: ("p",)}, feedback={A: ("p",)}, max_depth=5)
    state = combine_initial_states(p=lambda: 0)()
    with pytest.raises(LimitExceededError, match="max_depth=5"):
        processor(state, A(1))


def test_outputs_given_as_a_list_are_accepted_and_a_bad_return_is_named() -> None:
    def listy(state: int, event: Any) -> Any:
        return state + 1, [event, event]

    def broken(state: int, event: Any) -> Any:
        return [event]

    processor = route_processors({"l": listy, "b": broken}, {A: ("l",), B: ("b",)})
    state = combine_initial_states(l=lambda: 0, b=lambda: 0)()
    state, outs = processor(state, A(1))
    assert outs == (A(1), A(1)) and state.l == 1
    with pytest.raises(TypeError, match=r"processor .*broken must return \(state, outputs\)"):
        processor(state, B(1))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"routes": {A: ("nope",)}}, r"routes\[A\] names unknown child"),
        ({"routes": {A: "x"}}, "not a str"),
        ({"routes": {A: ("x", "x")}}, "names a child twice"),
        ({"routes": {"A": ("x",)}}, "keys must be classes"),
        ({"routes": {}, "feedback": {B: ("y",)}}, r"feedback\[B\] names unknown"),
        ({"routes": {A: ("x",)}, "watchers": ("x",)}, "both routed to and a watcher"),
        ({"routes": {}, "max_depth": 0}, "max_depth"),
        ({"routes": {}, "feed_as": {B: lambda s, o: o}}, r"feed_as names \['B'\]"),
    ],
)
def test_wiring_mistakes_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        route_processors({"x": counter("x")}, **kwargs)


def test_repr_names_the_children() -> None:
    processor = route_processors({"x": counter("x")}, {A: ("x",)})
    assert processor.__qualname__ == "route_processors(x=counter_x)"  # type: ignore[attr-defined]
    assert "route_processors(x=counter_x)" in repr(processor)


def test_a_state_of_the_wrong_shape_is_a_clear_error() -> None:
    processor = route_processors({"x": counter("x"), "y": counter("y")}, {A: ("x",), B: ("x", "y")})
    for event in (A(1), B(1)):
        with pytest.raises(TypeError, match="needs a state of 2 sub-states"):
            processor((initial(),), event)
