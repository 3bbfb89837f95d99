"""Combinators: build one processor out of several, keeping every piece pure.

Each combinator is a lowercase function returning a small frozen callable with a readable
repr. Their states are plain immutable values built from the children's states:

- ``combine_processors(a=p, b=q)`` runs every child on every event (fan-out). Its state is
  a ``CombinedState`` named tuple with one field per name, in declaration order (build it
  with ``combine_initial_states(a=..., b=...)``); its outputs are the children's outputs
  concatenated in declaration order. Nested combinations do not flatten: each name is a
  key of the state, so ``combine(x=combine(...))`` keeps its sub-state under ``x``.
- ``chain_processors(p, q, r)`` is a pipeline: every output of ``p`` is an input of ``q``
  (in order), every output of ``q`` an input of ``r``; the chain's outputs are the *last*
  stage's outputs only. That keeps the chain associative (nested chains flatten) and makes
  what comes out explicit: to also pass an earlier stage's outputs through, let the next
  stage be ``combine_processors(keep=identity_processor, next=q)``. Its state is a plain
  tuple of stage states, built by ``chain_initial_states(...)`` (which flattens the same
  way).
- ``filter_processor(pred, p)``: events failing ``pred`` are not seen by ``p`` (state and
  outputs unchanged, no outputs). Nested filters flatten, outer predicate first.
- ``map_output(fn, p)``: each output ``o`` of ``p`` becomes ``fn(o)`` (one for one).
  Nested maps flatten, inner function first.
- ``with_logging(p, logger)``: the same processor, marked so that a ``MealyMachine`` calls
  ``logger(step)`` on the shell side after each committed step. The logger is never
  called from inside the pure processor; called directly, the result just runs ``p``.
  It must therefore be the outermost processor handed to the machine: nesting it inside
  another combinator is a ``TypeError`` rather than a logger that silently never runs.
- ``identity_processor`` emits its input event unchanged and keeps its state.

A child that returns its state object unchanged costs no new combined state, so an
idle branch allocates nothing.

A child may return its outputs as any sequence (a list is the natural spelling of the
seed's ``[state, outputs[]]``): each combinator turns them into a tuple at the child's
boundary (``step_result``), at no cost when they are one already. A child that returns
something other than a ``(state, outputs)`` pair is a ``TypeError`` naming it.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from .checks import shown
from .observers import Logged
from .processor import AnyProcessor

__all__ = [
    "chain_initial_states",
    "chain_processors",
    "combine_initial_states",
    "combine_processors",
    "filter_processor",
    "identity_processor",
    "map_output",
    "step_result",
]

Factory = Callable[[], Any]


def identity_processor(state: Any, event: Any) -> tuple[Any, tuple[Any, ...]]:
    """Keep ``state``; emit ``(event,)``. Useful to pass events through a chain stage."""
    return state, (event,)


def _name(obj: object) -> str:
    """A short readable name for a callable inside a combinator repr."""
    if isinstance(obj, _Combinator):
        return repr(obj)
    return getattr(obj, "__qualname__", None) or repr(obj)


def step_result(processor: object, result: Any) -> tuple[Any, tuple[Any, ...]]:
    """``(state, outputs)`` from ``result``, what ``processor`` returned, with the outputs
    as a tuple: for a result whose outputs are not a tuple already.

    Accepts a pair (tuple or list) whose outputs are any sequence but a string. Raises
    ``TypeError`` naming ``processor`` and what it returned otherwise.
    """
    if not isinstance(result, tuple | list) or len(result) != 2:
        raise TypeError(
            f"processor {_name(processor)} must return a (state, outputs) pair, got {shown(result)}"
        )
    state, outputs = result
    if isinstance(outputs, str | bytes | bytearray) or not isinstance(outputs, Sequence):
        raise TypeError(
            f"processor {_name(processor)} returned outputs {shown(outputs)}; outputs must "
            "be a sequence such as a tuple or a list (() when there is nothing to emit)"
        )
    return state, tuple(outputs)


def _check_callable(what: str, obj: object) -> None:
    if not callable(obj):
        raise TypeError(f"{what} must be callable, got {type(obj).__name__}: {obj!r}")
    if isinstance(obj, Logged):
        raise TypeError(
            f"{what} is a with_logging(...) processor; with_logging must wrap the outermost "
            "processor given to MealyMachine (its logger runs in the machine, after each "
            "step), so apply it to the whole combination instead"
        )


@cache
def _state_type(names: tuple[str, ...]) -> type[tuple[Any, ...]]:
    """One named-tuple class per set of names, so equal combinations share a state type."""
    return namedtuple("CombinedState", names)


class _Combinator:
    """Marker base: combinator reprs nest readably. The combinators are plain slotted
    classes, not attrs ones: they compare by identity and write their own repr, so attrs
    would only have compiled an ``__init__`` each, about 0.3 ms of the import apiece."""

    __slots__ = ()


class _Combined(_Combinator):
    __slots__ = ("names", "processors", "state_type")

    names: tuple[str, ...]
    processors: tuple[AnyProcessor, ...]
    state_type: type[tuple[Any, ...]]

    def __init__(
        self,
        names: tuple[str, ...],
        processors: tuple[AnyProcessor, ...],
        state_type: type[tuple[Any, ...]],
    ) -> None:
        self.names = names
        self.processors = processors
        self.state_type = state_type

    def __call__(self, state: tuple[Any, ...], event: Any) -> tuple[Any, tuple[Any, ...]]:
        if len(state) != len(self.processors):
            raise TypeError(
                f"{self!r} needs a state of {len(self.processors)} sub-states "
                f"{self.names}, got {state!r}; build it with combine_initial_states"
            )
        new = []
        outputs: tuple[Any, ...] = ()
        changed = False
        for proc, sub in zip(self.processors, state):  # noqa: B905 (length checked above)
            result = proc(sub, event)
            try:
                s, out = result
            except (TypeError, ValueError):
                s, out = step_result(proc, result)  # raises: not a pair
            if type(out) is not tuple:
                s, out = step_result(proc, result)
            if s is not sub:
                changed = True
            new.append(s)
            if out:
                outputs += out
        return (tuple.__new__(self.state_type, new) if changed else state), outputs

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{n}={_name(p)}" for n, p in zip(self.names, self.processors, strict=True)
        )
        return f"combine_processors({inner})"


def combine_processors(**named: AnyProcessor) -> AnyProcessor:
    """Run every named processor on every event; see the module docstring for the shape.

    Raises ``TypeError`` when no processor is given or one is not callable.
    """
    if not named:
        raise TypeError("combine_processors() needs at least one processor, as name=processor")
    for key, proc in named.items():
        _check_callable(f"combine_processors({key}=...)", proc)
    names = tuple(named)
    return _Combined(names, tuple(named.values()), _state_type(names))


class _CombinedInitial(_Combinator):
    __slots__ = ("factories", "names", "state_type")

    names: tuple[str, ...]
    factories: tuple[Factory, ...]
    state_type: type[tuple[Any, ...]]

    def __init__(
        self,
        names: tuple[str, ...],
        factories: tuple[Factory, ...],
        state_type: type[tuple[Any, ...]],
    ) -> None:
        self.names = names
        self.factories = factories
        self.state_type = state_type

    def __call__(self) -> tuple[Any, ...]:
        return tuple.__new__(self.state_type, [f() for f in self.factories])

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{n}={_name(f)}" for n, f in zip(self.names, self.factories, strict=True)
        )
        return f"combine_initial_states({inner})"


def combine_initial_states(**factories: Factory) -> Callable[[], tuple[Any, ...]]:
    """The initial-state factory matching ``combine_processors`` with the same names.

    Each call builds a fresh ``CombinedState`` by calling every factory.
    """
    if not factories:
        raise TypeError("combine_initial_states() needs at least one factory, as name=factory")
    for key, factory in factories.items():
        _check_callable(f"combine_initial_states({key}=...)", factory)
    names = tuple(factories)
    return _CombinedInitial(names, tuple(factories.values()), _state_type(names))


class _Chain(_Combinator):
    __slots__ = ("stages",)

    stages: tuple[AnyProcessor, ...]

    def __init__(self, stages: tuple[AnyProcessor, ...]) -> None:
        self.stages = stages

    def __call__(self, state: tuple[Any, ...], event: Any) -> tuple[Any, tuple[Any, ...]]:
        stages = self.stages
        if len(state) != len(stages):
            raise TypeError(
                f"{self!r} needs a state of {len(stages)} stage states, got {state!r}; "
                "build it with chain_initial_states"
            )
        events: tuple[Any, ...] = (event,)
        new: list[Any] | None = None  # copied on the first stage whose state changed
        for i, proc in enumerate(stages):
            sub = state[i]
            if len(events) == 1:
                result = proc(sub, events[0])
                try:
                    s, events = result
                except (TypeError, ValueError):
                    s, events = step_result(proc, result)  # raises: not a pair
                if type(events) is not tuple:
                    s, events = step_result(proc, result)
            else:
                s = sub
                collected: list[Any] = []
                for e in events:
                    result = proc(s, e)
                    try:
                        s, out = result
                    except (TypeError, ValueError):
                        s, out = step_result(proc, result)  # raises: not a pair
                    if type(out) is not tuple:
                        s, out = step_result(proc, result)
                    collected.extend(out)
                events = tuple(collected)
            if s is not sub:
                if new is None:
                    new = list(state)
                new[i] = s
            if not events:
                break
        return (state if new is None else tuple(new)), events

    def __repr__(self) -> str:
        return f"chain_processors({', '.join(_name(p) for p in self.stages)})"


def chain_processors(*stages: AnyProcessor) -> AnyProcessor:
    """A pipeline: each stage's outputs are the next stage's inputs, in order.

    The chain emits the last stage's outputs only; a stage with no outputs ends the step
    (later stages see nothing). Nested chains flatten. Raises ``TypeError`` when no stage
    is given or one is not callable.
    """
    if not stages:
        raise TypeError("chain_processors() needs at least one stage")
    flat: list[AnyProcessor] = []
    for i, stage in enumerate(stages):
        _check_callable(f"chain_processors stage {i}", stage)
        flat.extend(stage.stages if isinstance(stage, _Chain) else (stage,))
    return _Chain(tuple(flat))


class _ChainInitial(_Combinator):
    __slots__ = ("factories",)

    factories: tuple[Factory, ...]

    def __init__(self, factories: tuple[Factory, ...]) -> None:
        self.factories = factories

    def __call__(self) -> tuple[Any, ...]:
        return tuple([f() for f in self.factories])

    def __repr__(self) -> str:
        return f"chain_initial_states({', '.join(_name(f) for f in self.factories)})"


def chain_initial_states(*factories: Factory) -> Callable[[], tuple[Any, ...]]:
    """The initial-state factory for ``chain_processors`` with the same stages, in order.

    Flattens nested ``chain_initial_states`` exactly as ``chain_processors`` flattens
    nested chains, so the two always agree on the state's shape.
    """
    if not factories:
        raise TypeError("chain_initial_states() needs at least one factory")
    flat: list[Factory] = []
    for i, factory in enumerate(factories):
        _check_callable(f"chain_initial_states factory {i}", factory)
        flat.extend(factory.factories if isinstance(factory, _ChainInitial) else (factory,))
    return _ChainInitial(tuple(flat))


class _Filtered(_Combinator):
    __slots__ = ("predicates", "processor")

    predicates: tuple[Callable[[Any], bool], ...]
    processor: AnyProcessor

    def __init__(
        self, predicates: tuple[Callable[[Any], bool], ...], processor: AnyProcessor
    ) -> None:
        self.predicates = predicates
        self.processor = processor

    def __call__(self, state: Any, event: Any) -> tuple[Any, tuple[Any, ...]]:
        for predicate in self.predicates:
            if not predicate(event):
                return state, ()
        result = self.processor(state, event)
        try:
            _, outputs = result
        except (TypeError, ValueError):
            return step_result(self.processor, result)  # raises: not a pair
        if type(outputs) is not tuple or type(result) is not tuple:
            return step_result(self.processor, result)
        return result

    def __repr__(self) -> str:
        preds = " & ".join(_name(p) for p in self.predicates)
        return f"filter_processor({preds}, {_name(self.processor)})"


def filter_processor(predicate: Callable[[Any], bool], processor: AnyProcessor) -> AnyProcessor:
    """``processor`` seeing only the events for which ``predicate(event)`` is true.

    Other events leave the state as it is and emit nothing. Nested filters flatten.
    """
    _check_callable("filter_processor predicate", predicate)
    _check_callable("filter_processor processor", processor)
    if isinstance(processor, _Filtered):
        return _Filtered((predicate, *processor.predicates), processor.processor)
    return _Filtered((predicate,), processor)


class _Mapped(_Combinator):
    __slots__ = ("functions", "processor")

    functions: tuple[Callable[[Any], Any], ...]
    processor: AnyProcessor

    def __init__(
        self, functions: tuple[Callable[[Any], Any], ...], processor: AnyProcessor
    ) -> None:
        self.functions = functions
        self.processor = processor

    def __call__(self, state: Any, event: Any) -> tuple[Any, tuple[Any, ...]]:
        result = self.processor(state, event)
        try:
            state, outputs = result
        except (TypeError, ValueError):
            state, outputs = step_result(self.processor, result)  # raises: not a pair
        if type(outputs) is not tuple:
            state, outputs = step_result(self.processor, result)
        if outputs:
            for fn in self.functions:
                outputs = tuple([fn(o) for o in outputs])
        return state, outputs

    def __repr__(self) -> str:
        fns = " then ".join(_name(f) for f in self.functions)
        return f"map_output({fns}, {_name(self.processor)})"


def map_output(fn: Callable[[Any], Any], processor: AnyProcessor) -> AnyProcessor:
    """``processor`` with each output ``o`` replaced by ``fn(o)``; the state is untouched.

    Nested maps flatten: ``map_output(f, map_output(g, p))`` applies ``g`` then ``f``.
    """
    _check_callable("map_output function", fn)
    _check_callable("map_output processor", processor)
    if isinstance(processor, _Mapped):
        return _Mapped((*processor.functions, fn), processor.processor)
    return _Mapped((fn,), processor)
