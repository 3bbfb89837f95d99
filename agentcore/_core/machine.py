"""The Mealy machine: one pure processor, independent state per agent, in a store.

``MealyMachine.process(agent_id, event)`` loads the agent's state (a fresh one from the
``initial_state`` factory the first time), calls the processor once and stores the new
state. Nothing else happens on the hot path. The state is written only after the step
succeeded: a processor that raises leaves the stored state as it was, and the exception
propagates unchanged (the runtime turns it into events). Outputs returned as a list (or
any sequence) become a tuple; a processor that returns something other than a
``(state, outputs)`` pair is a ``TypeError`` naming it (state unchanged).

Re-feeding (``refeed=True``, or a predicate choosing which outputs to re-feed) passes
outputs back through the processor, depth first: each output is followed by what it
caused. Depth 0 is the input event; outputs of a depth-``d`` step are at depth ``d + 1``
and are re-fed only while ``d + 1 <= max_depth``. An output that would need re-feeding
beyond ``max_depth`` is a runaway loop: ``LimitExceededError`` (code
``MAX_ITERATIONS_EXCEEDED``) is raised and the whole step is discarded (state unchanged).

Runs of deltas (``runs=``, which ``create_mealy_machine`` gives): when the machine made
its own store and has no observers and no re-feeding, a delta that, by the processor's
own ``runs.run_of``, only appends its chunk to the agent's state (no output, no other
change; or only the delta itself as output, for a processor that echoes it) is collected,
and the run is appended at once (``runs.with_appended``) before
the next other event, or as soon as anyone reads or writes the store. Outputs and every
state anyone can see are those of processing each delta (a property test holds them
equal); a delta costs a list append instead of a new state.

Observers (``on_step=`` and the loggers of a ``with_logging`` processor) run on the shell
side after the state is stored, each with one ``Step``. A failing observer does not stop
the others; failures go to ``on_observer_error(error, step)`` when given, otherwise they
are raised together as an ``ExceptionGroup`` after every observer ran (the step is
committed either way).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .combinators import step_result
from .errors import ErrorCode, LimitExceededError
from .observers import Step, StepObserver, call_hooks, logged_parts
from .processor import AnyProcessor
from .store import MemoryStore, Store

if TYPE_CHECKING:
    from typing import NamedTuple
else:  # the class typing makes, at a fifth of its cost (records.py)
    from .records import NamedTuple

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "MealyMachine",
    "Runs",
    "create_mealy_machine",
]

DEFAULT_MAX_DEPTH = 8
"""How many rounds of re-feeding a step may take before it counts as a runaway loop."""


class Runs(NamedTuple):
    """How a processor's state takes a run of deltas at once.

    ``run_of(state)`` is ``(delta class, block index, chunk reader)`` when a delta of that
    class and index whose chunk reader gives a ``str`` would only append that chunk (no
    output, or only the delta itself with ``echo``; no other change), else None;
    ``with_appended(state, chunks)`` is the state after such deltas, equal to processing
    them one by one. The conversation processor without user processors echoes its
    stream inputs: ``Runs(lambda s: delta_run(s.core), lambda s, c:
    s._replace(core=with_appended(s.core, c)), echo=True)``.
    """

    run_of: Callable[[Any], tuple[type[Any], int, Callable[[Any], Any]] | None]
    with_appended: Callable[[Any, list[str]], Any]
    echo: bool = False


class MealyMachine:
    """Run ``processor`` for many agents, each with its own state in ``store``.

    ``initial_state`` is a zero-argument factory, called once per agent (on its first
    event, and again after ``clear_state``). A stored ``None`` counts as no state, as the
    ``Store`` protocol returns ``None`` for unknown agents.
    """

    __slots__ = (
        "_initial",
        "_max_depth",
        "_observers",
        "_on_observer_error",
        "_processor",
        "_refeed",
        "_runs",
        "_store",
        "_wrapped",
        "process",
    )

    process: Callable[[str, Any], tuple[Any, ...]]
    """``process(agent_id, event) -> outputs``: feed ``event`` to ``agent_id``'s processor.

    One store ``get``, one processor call, one store ``set`` (a delta collected in a run,
    see the module docstring: a list append). Raises whatever the
    processor raises (state unchanged), ``TypeError`` when it returns something other than
    a ``(state, outputs)`` pair (state unchanged), ``LimitExceededError`` on runaway re-feeding
    (state unchanged), and observer failures as described in the module docstring
    (state committed).
    """

    def __init__(
        self,
        processor: AnyProcessor,
        initial_state: Callable[[], Any],
        store: Store | None = None,
        *,
        refeed: bool | Callable[[Any], bool] = False,
        max_depth: int = DEFAULT_MAX_DEPTH,
        on_step: StepObserver | None = None,
        on_observer_error: Callable[[Exception, Step], object] | None = None,
        runs: Runs | None = None,
    ) -> None:
        if not callable(processor):
            raise TypeError(f"processor must be callable, got {processor!r}")
        if not callable(initial_state):
            raise TypeError(
                "initial_state must be a zero-argument factory (e.g. "
                f"create_initial_agent_engine_state), got {initial_state!r}"
            )
        if store is not None and not isinstance(store, Store):
            raise TypeError(f"store must implement get/set/delete/has, got {store!r}")
        if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1:
            raise ValueError(f"max_depth must be an int >= 1, got {max_depth!r}")
        self._wrapped = processor
        self._processor, loggers = logged_parts(processor)
        self._initial = initial_state
        self._store: Store = MemoryStore() if store is None else store
        self._refeed: Callable[[Any], bool] | None = (
            (lambda _o: True) if refeed is True else (refeed or None)
        )
        self._max_depth = max_depth
        self._observers: tuple[StepObserver, ...] = (
            loggers if on_step is None else (*loggers, on_step)
        )
        self._on_observer_error = on_observer_error
        # a store the caller holds may be read behind the machine's back: runs only with
        # the machine's own, which settles them on any access
        self._runs = (
            runs if store is None and self._refeed is None and not self._observers else None
        )
        self.process = self._make_process()

    @property
    def processor(self) -> AnyProcessor:
        """The processor as given (a ``with_logging`` wrapper included)."""
        return self._wrapped

    @property
    def observed(self) -> bool:
        """Whether steps are reported to observers (``on_step``, or the loggers of a
        ``with_logging`` processor): a caller that folds events in bulk must not then."""
        return bool(self._observers)

    @property
    def store(self) -> Store:
        """Where the per-agent states live (fixed at construction)."""
        return self._store

    def __repr__(self) -> str:
        return f"MealyMachine({self._wrapped!r}, store={self._store!r})"

    def _make_process(self) -> Callable[[str, Any], tuple[Any, ...]]:
        """Build ``process`` as a closure: cell reads beat attribute reads on the hot path."""
        store = self._store
        if self._runs is not None:
            assert type(store) is MemoryStore  # the machine's own
            return self._runs_process(store, self._runs)
        if type(store) is MemoryStore:
            # the default store's methods only wrap a dict: call the dict directly, saving
            # two Python frames per event (same behaviour)
            states: dict[str, Any] = store._states
            get: Callable[[str], Any] = states.get
            set_: Callable[[str, Any], None] = states.__setitem__
        else:
            get, set_ = store.get, store.set
        processor, initial, refeed = self._processor, self._initial, self._refeed
        observers, on_error, refeed_outputs = (
            self._observers,
            self._on_observer_error,
            self._refeed_outputs,
        )

        # the identity test skips the type test for the empty tuple (one object in
        # CPython), what most steps return: a stream delta's
        empty: tuple[Any, ...] = ()
        if refeed is None and not observers:
            # the plain machine (the default one): no re-feeding or observer test per event

            def plain_process(agent_id: str, event: Any) -> tuple[Any, ...]:
                state = get(agent_id)
                if state is None:
                    state = initial()
                result = processor(state, event)
                try:
                    state, outputs = result
                except (TypeError, ValueError):
                    state, outputs = step_result(processor, result)  # raises: not a pair
                if outputs is not empty and type(outputs) is not tuple:
                    state, outputs = step_result(processor, result)
                set_(agent_id, state)
                return outputs

            return plain_process

        def process(agent_id: str, event: Any) -> tuple[Any, ...]:
            state = get(agent_id)
            if state is None:
                state = initial()
            result = processor(state, event)
            try:
                state, outputs = result
            except (TypeError, ValueError):
                state, outputs = step_result(processor, result)  # raises: not a pair
            if outputs is not empty and type(outputs) is not tuple:
                state, outputs = step_result(processor, result)
            if refeed is not None and outputs:
                state, outputs = refeed_outputs(state, outputs, 1)
            set_(agent_id, state)
            if observers:
                call_hooks(observers, Step(agent_id, event, outputs), on_error, "step observer")
            return outputs

        return process

    def _runs_process(
        self, store: MemoryStore, runs: Runs
    ) -> Callable[[str, Any], tuple[Any, ...]]:
        """The plain process, with runs of appending deltas collected (module docstring)."""
        get, set_ = store._states.get, store._states.__setitem__
        processor, initial, empty = self._processor, self._initial, ()
        run_of, with_appended, echo = runs
        chunks: list[str] = []
        run_agent: str | None = None
        run_class: type[Any] | None = None  # None: no run open
        run_index = -1
        chunk_of: Callable[[Any], Any] = len

        def settle() -> None:
            """Append the collected run to its agent's state, and close the run."""
            nonlocal run_class
            run_class = None
            if chunks:
                set_(run_agent, with_appended(get(run_agent), chunks))  # type: ignore[arg-type]
                chunks.clear()

        def process(agent_id: str, event: Any) -> tuple[Any, ...]:
            nonlocal run_agent, run_class, run_index, chunk_of
            if type(event) is run_class and agent_id == run_agent:
                try:
                    chunk = chunk_of(event) if event.index == run_index else None
                except Exception:  # forged fields: the processor reports them
                    chunk = None
                if type(chunk) is str:
                    chunks.append(chunk)
                    return (event,) if echo else empty
            if run_class is not None:
                settle()
            state = get(agent_id)
            if state is None:
                state = initial()
            result = processor(state, event)
            try:
                state, outputs = result
            except (TypeError, ValueError):
                state, outputs = step_result(processor, result)  # raises: not a pair
            if outputs is not empty and type(outputs) is not tuple:
                state, outputs = step_result(processor, result)
            set_(agent_id, state)
            run = run_of(state)
            if run is not None:
                run_class, run_index, chunk_of = run
                run_agent = agent_id
            return outputs

        store._settle = settle
        return process

    def _refeed_outputs(
        self, state: Any, outputs: tuple[Any, ...], depth: int
    ) -> tuple[Any, tuple[Any, ...]]:
        """Depth first: each output, then (recursively) what re-feeding it emitted."""
        select = self._refeed
        assert select is not None
        collected: list[Any] = []
        for output in outputs:
            collected.append(output)
            if not select(output):
                continue
            if depth > self._max_depth:
                raise LimitExceededError(
                    f"re-feeding outputs went deeper than max_depth={self._max_depth} "
                    f"(output {output!r}); the processor probably answers its own outputs "
                    "forever. The step was discarded; raise max_depth or narrow refeed.",
                    code=ErrorCode.MAX_ITERATIONS_EXCEEDED,
                )
            result = self._processor(state, output)
            try:
                state, more = result
            except (TypeError, ValueError):
                state, more = step_result(self._processor, result)  # raises: not a pair
            if type(more) is not tuple:
                state, more = step_result(self._processor, result)
            if more:
                state, more = self._refeed_outputs(state, more, depth + 1)
                collected.extend(more)
        return state, tuple(collected)

    def has_state(self, agent_id: str) -> bool:
        """Whether the store holds a state for ``agent_id``."""
        return self._store.has(agent_id)

    def state_of(self, agent_id: str) -> Any:
        """The stored state of ``agent_id``; ``KeyError`` if it has none yet."""
        if not self._store.has(agent_id):
            raise KeyError(f"no state for agent {agent_id!r}: it has not processed an event")
        return self._store.get(agent_id)

    def clear_state(self, agent_id: str) -> None:
        """Forget ``agent_id``'s state; its next event starts from a fresh initial state.

        Idempotent: clearing an unknown agent does nothing.
        """
        self._store.delete(agent_id)


def create_mealy_machine(
    store: Store | None = None,
    prices: Any = None,
    *,
    refeed: bool | Callable[[Any], bool] = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
    on_step: StepObserver | None = None,
    on_observer_error: Callable[[Exception, Step], object] | None = None,
) -> MealyMachine:
    """The default machine: ``agent_processor`` with a fresh engine state per agent.

    ``prices`` is the price table handed to ``create_initial_agent_engine_state`` (turn
    costs); the other options are ``MealyMachine``'s.
    """
    from .agent_processor import (
        agent_processor,
        create_initial_agent_engine_state,
        delta_run,
        with_appended,
    )

    def initial_state() -> Any:
        return create_initial_agent_engine_state(prices)

    return MealyMachine(
        agent_processor,
        initial_state,
        store,
        refeed=refeed,
        max_depth=max_depth,
        on_step=on_step,
        on_observer_error=on_observer_error,
        runs=Runs(delta_run, with_appended),
    )
