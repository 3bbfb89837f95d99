"""``route_processors``: named children, each event routed by its class, outputs fed back.

The combinators of ``combinators`` send every event to every child (``combine``) or every
output to the next stage (``chain``). A conversation needs more precise wiring: a stream
delta concerns the message assembler and the loop, a command only the loop, and some
outputs are inputs of another child (the assembled ``assistant_message`` is what the loop
decides on; the ``user_message`` the loop lets into the conversation is what the core
assembles around). ``route_processors`` states that wiring as data::

    route_processors(
        {"core": agent_processor, "loop": loop_processor},
        routes={TextDelta: ("core", "loop"), AgentPrompt: ("loop",), ...},
        feedback={AssistantMessage: ("loop",), UserMessage: ("core",)},
        echo=(TextDelta, ...),
        default=("loop",),
    )

Semantics of one step, for an input ``event``:

1. If ``type(event)`` is in ``echo``, the event itself is the first output.
2. Each child named by ``routes[type(event)]`` (``default`` for a class not listed) runs
   on the event, in the order given. After a child returns, its outputs are emitted;
   then each of them whose class is in ``feedback`` is fed, in order, to the children
   named there (and what that emits is fed back the same way) before the next child
   runs. So a later child of the same route already sees what an earlier one's outputs
   caused (the loop sees the assembled message before the driver event that completed
   it), and a child's own outputs stay together, ahead of what they cause. An output
   whose class is in ``feed_as`` is fed as the event ``feed_as[cls](states, output)``
   builds from the children's states at that moment (a child hands another what only
   its own state knows: the conversation's core, the price of the call it closed); it
   is still emitted as itself.
3. Each ``watchers`` child sees the input, then every output of steps 1-2 for which
   ``watch(output)`` is true (all of them by default), in order, the input itself as
   the first output (echoed, or let through by a child) excepted; its outputs are
   appended (watchers are never fed back to).

Re-feeding deeper than ``max_depth`` is a runaway loop: ``LimitExceededError`` (code
``MAX_ITERATIONS_EXCEEDED``); the step is discarded. Dispatch is one dict lookup on the
event's class, to a step compiled for that class on first use, so a child never sees a
class it is not routed, and routing costs no more than the children's own calls.

The state is a ``CombinedState`` named tuple with one field per child, in the order of
``children``; build it with ``combine_initial_states`` using the same names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from .combinators import _check_callable, _Combinator, _name, _state_type
from .errors import ErrorCode, LimitExceededError
from .processor import AnyProcessor

__all__ = ["route_processors"]

_Step: TypeAlias = Callable[[tuple[Any, ...], Any], tuple[tuple[Any, ...], tuple[Any, ...]]]


def _outputs(result: Any, processor: AnyProcessor) -> tuple[Any, tuple[Any, ...]]:
    """``(state, outputs as a tuple)`` from a child's return value, or a clear TypeError."""
    if type(result) is tuple and len(result) == 2:
        state, outs = result
        if type(outs) is tuple:
            return result
        if isinstance(outs, Sequence) and not isinstance(outs, str | bytes):
            return state, tuple(outs)
    raise TypeError(
        f"processor {_name(processor)} must return (state, outputs) with outputs a sequence; "
        f"it returned {result!r}"
    )


class _Routed(_Combinator):
    """The processor ``route_processors`` builds (see the module docstring)."""

    __slots__ = (
        "_default",
        "_echo",
        "_fed",
        "_feedback",
        "_max_depth",
        "_routes",
        "_steps",
        "_watch",
        "_watchers",
        "names",
        "processors",
        "state_type",
    )

    def __init__(
        self,
        names: tuple[str, ...],
        processors: tuple[AnyProcessor, ...],
        routes: dict[type[Any], tuple[int, ...]],
        feedback: dict[type[Any], tuple[int, ...]],
        echo: frozenset[type[Any]],
        default: tuple[int, ...],
        watchers: tuple[int, ...],
        watch: Callable[[Any], bool] | None,
        max_depth: int,
        feed_as: dict[type[Any], Callable[[list[Any], Any], Any]],
    ) -> None:
        self.names = names
        self.processors = processors
        self.state_type = _state_type(names)
        self._routes = routes
        self._feedback = feedback
        self._echo = echo
        self._default = default
        self._watchers = watchers
        self._watch = watch
        self._max_depth = max_depth
        self._fed = {cls: (targets, feed_as.get(cls)) for cls, targets in feedback.items()}
        """``feedback`` and ``feed_as`` read with one lookup per output: ``(targets, build)``."""
        self._steps: dict[type[Any], _Step] = {}

    def processor(self) -> AnyProcessor:
        """The processor: a plain function (cheaper to call than an object), named after
        its children for readable reprs of combinations that hold it."""
        steps, compile_ = self._steps, self._compile

        def route(state: tuple[Any, ...], event: Any) -> tuple[Any, tuple[Any, ...]]:
            step = steps.get(type(event))
            if step is None:
                step = steps[type(event)] = compile_(type(event))
            return step(state, event)

        route.__name__ = route.__qualname__ = repr(self)
        return route

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{n}={_name(p)}" for n, p in zip(self.names, self.processors, strict=True)
        )
        return f"route_processors({inner})"

    # -- steps ----------------------------------------------------------------------------

    def _compile(self, cls: type[Any]) -> _Step:
        targets = self._routes.get(cls, self._default)
        echo = cls in self._echo
        if not self._watchers and len(targets) == 1:
            return self._single(targets[0], echo)
        if not self._watchers and len(targets) == 2:
            return self._pair(targets[0], targets[1], echo)
        return self._general(targets, echo)

    def _single(self, index: int, echo: bool) -> _Step:
        """One child and no watchers (a stream delta reaching the core): the child is
        called directly, and the general path takes over only when an output has to be
        fed back. This is the per-delta path of a conversation, so it is written flat."""
        processor, feedback, state_type = self.processors[index], self._feedback, self.state_type
        feed, size = self._feed, len(self.processors)
        before, after = index, index + 1
        first_of_two = size == 2 and index == 0

        def step(state: tuple[Any, ...], event: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            if len(state) != size:
                raise self._bad_state(state)
            sub = state[index]
            result = processor(sub, event)
            if type(result) is not tuple or len(result) != 2 or type(result[1]) is not tuple:
                result = _outputs(result, processor)
            new, outs = result
            if outs:
                for output in outs:
                    if type(output) in feedback:
                        states = list(state)
                        states[index] = new
                        collected: list[Any] = [event] if echo else []
                        feed(states, outs, collected, 1)
                        return tuple.__new__(state_type, states), tuple(collected)
            if new is not sub:
                if first_of_two:  # a conversation's core: no slicing (a third of the cost)
                    state = tuple.__new__(state_type, (new, state[1]))
                else:
                    state = tuple.__new__(state_type, (*state[:before], new, *state[after:]))
            if echo:
                return state, (event, *outs) if outs else (event,)
            return state, outs

        return step

    def _pair(self, first: int, second: int, echo: bool) -> _Step:
        """Two children and no watchers (a stream delta reaching the core and the loop):
        both called directly; the general path takes over only when an output has to be
        fed back."""
        p1, p2 = self.processors[first], self.processors[second]
        feedback, state_type, size = self._feedback, self.state_type, len(self.processors)
        feed, run = self._feed, self._run

        def step(state: tuple[Any, ...], event: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            if len(state) != size:
                raise self._bad_state(state)
            s1 = state[first]
            r1 = p1(s1, event)
            if type(r1) is not tuple or len(r1) != 2 or type(r1[1]) is not tuple:
                r1 = _outputs(r1, p1)
            n1, o1 = r1
            for output in o1:
                if type(output) in feedback:
                    break
            else:
                s2 = state[second]
                r2 = p2(s2, event)
                if type(r2) is not tuple or len(r2) != 2 or type(r2[1]) is not tuple:
                    r2 = _outputs(r2, p2)
                n2, o2 = r2
                for output in o2:
                    if type(output) in feedback:
                        break
                else:
                    if n1 is not s1 or n2 is not s2:
                        states = list(state)
                        states[first], states[second] = n1, n2
                        state = tuple.__new__(state_type, states)
                    if echo:
                        return state, (event, *o1, *o2)
                    return state, o1 + o2
                states = list(state)
                states[first], states[second] = n1, n2
                collected: list[Any] = [event, *o1] if echo else list(o1)
                feed(states, o2, collected, 1)
                return tuple.__new__(state_type, states), tuple(collected)
            states = list(state)
            states[first] = n1
            collected = [event] if echo else []
            feed(states, o1, collected, 1)
            run(states, event, (second,), collected, 1)
            return tuple.__new__(state_type, states), tuple(collected)

        return step

    def _general(self, targets: tuple[int, ...], echo: bool) -> _Step:
        run, watchers, watch = self._run, self._watchers, self._watch
        processors, state_type = self.processors, self.state_type

        def step(state: tuple[Any, ...], event: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            if len(state) != len(processors):
                raise self._bad_state(state)
            states = list(state)
            collected: list[Any] = [event] if echo else []
            run(states, event, targets, collected, 1)
            if watchers:
                # the input itself as the first output (echoed, or let through by a
                # child) is seen once, as the input
                outputs = collected[1:] if collected and collected[0] is event else collected
                if watch is not None:
                    outputs = [o for o in outputs if watch(o)]
                seen = (event, *outputs)
                for index in watchers:
                    watcher = processors[index]
                    sub = states[index]
                    more: list[Any] = []
                    for item in seen:
                        sub, outs = _outputs(watcher(sub, item), watcher)
                        more.extend(outs)
                    states[index] = sub
                    collected.extend(more)
            if all(a is b for a, b in zip(states, state, strict=True)):
                return state, tuple(collected)
            return tuple.__new__(state_type, states), tuple(collected)

        return step

    def _run(
        self,
        states: list[Any],
        event: Any,
        targets: tuple[int, ...],
        collected: list[Any],
        depth: int,
    ) -> None:
        """Run ``targets`` on ``event`` in order, each child's outputs fed back in turn."""
        processors = self.processors
        for index in targets:
            processor = processors[index]
            result = processor(states[index], event)
            if type(result) is not tuple or len(result) != 2 or type(result[1]) is not tuple:
                result = _outputs(result, processor)
            states[index], outs = result
            if outs:
                self._feed(states, outs, collected, depth)

    def _feed(
        self, states: list[Any], outs: tuple[Any, ...], collected: list[Any], depth: int
    ) -> None:
        """Emit ``outs``, then feed those with a feedback route back, in order."""
        fed = self._fed
        collected.extend(outs)
        for output in outs:
            route = fed.get(type(output))
            if route is None:
                continue
            targets, build = route
            if depth > self._max_depth:
                raise LimitExceededError(
                    f"{self!r}: feeding outputs back went deeper than max_depth="
                    f"{self._max_depth} (output {output!r}); two children probably answer "
                    "each other forever. The step was discarded.",
                    code=ErrorCode.MAX_ITERATIONS_EXCEEDED,
                )
            if build is not None:
                output = build(states, output)
            self._run(states, output, targets, collected, depth + 1)

    def _bad_state(self, state: Any) -> TypeError:
        return TypeError(
            f"{self!r} needs a state of {len(self.processors)} sub-states {self.names}, got "
            f"{state!r}; build it with combine_initial_states using the same names"
        )


def _indexes(
    what: str, mapping: Mapping[type[Any], Sequence[str]], names: tuple[str, ...]
) -> dict[type[Any], tuple[int, ...]]:
    out: dict[type[Any], tuple[int, ...]] = {}
    for cls, targets in mapping.items():
        if not isinstance(cls, type):
            raise TypeError(f"route_processors {what} keys must be classes, got {cls!r}")
        out[cls] = _names_to_indexes(f"{what}[{cls.__name__}]", targets, names)
    return out


def _names_to_indexes(what: str, targets: Sequence[str], names: tuple[str, ...]) -> tuple[int, ...]:
    if isinstance(targets, str):
        raise TypeError(f"route_processors {what} must be a sequence of child names, not a str")
    if len(set(targets)) != len(targets):
        raise ValueError(f"route_processors {what} names a child twice: {list(targets)}")
    unknown = [t for t in targets if t not in names]
    if unknown:
        raise ValueError(
            f"route_processors {what} names unknown child(ren) {unknown}; children: {list(names)}"
        )
    return tuple(names.index(t) for t in targets)


def route_processors(
    children: Mapping[str, AnyProcessor],
    routes: Mapping[type[Any], Sequence[str]],
    *,
    feedback: Mapping[type[Any], Sequence[str]] | None = None,
    echo: Iterable[type[Any]] = (),
    default: Sequence[str] = (),
    watchers: Sequence[str] = (),
    watch: Callable[[Any], bool] | None = None,
    max_depth: int = 8,
    feed_as: Mapping[type[Any], Callable[[list[Any], Any], Any]] | None = None,
) -> AnyProcessor:
    """One processor from named ``children``, wired as the module docstring describes.

    Raises ``TypeError``/``ValueError`` naming the problem for a child that is not
    callable, a route or feedback naming an unknown child, a watcher that is also routed,
    a ``feed_as`` class ``feedback`` does not route, or ``max_depth < 1``.
    """
    if not children:
        raise TypeError("route_processors() needs at least one child, as {name: processor}")
    for key, proc in children.items():
        _check_callable(f"route_processors child {key!r}", proc)
    names = tuple(children)
    route_map = _indexes("routes", routes, names)
    feedback_map = _indexes("feedback", feedback or {}, names)
    default_indexes = _names_to_indexes("default", default, names)
    watcher_indexes = _names_to_indexes("watchers", watchers, names)
    reachable = {
        i
        for targets in (*route_map.values(), *feedback_map.values(), default_indexes)
        for i in targets
    }
    both = sorted(names[i] for i in set(watcher_indexes) & reachable)
    if both:
        raise ValueError(f"route_processors: {both} cannot be both routed to and a watcher")
    unfed = sorted(cls.__name__ for cls in feed_as or {} if cls not in feedback_map)
    if unfed:
        raise ValueError(f"route_processors feed_as names {unfed}, which feedback does not route")
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1:
        raise ValueError(f"max_depth must be an int >= 1, got {max_depth!r}")
    routed = _Routed(
        names,
        tuple(children.values()),
        route_map,
        feedback_map,
        frozenset(echo),
        default_indexes,
        watcher_indexes,
        watch,
        max_depth,
        dict(feed_as or {}),
    )
    return routed.processor()
