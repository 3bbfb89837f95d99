"""The loop's state classes ``records.frozen`` builds behave as the attrs classes they were.

``LoopState``, ``Run`` and ``PendingSummary`` are built by ``records.frozen`` (a fifth of
``attrs.frozen``'s cost to define, a cheaper ``__init__``); each is held to a twin that
attrs builds from the same fields: the same signature, fields and slots, and for every
state a random fold reaches, the same repr, pickled state and dict, equality, hashing,
immutability, pickling and ``replace``/``attrs.evolve``.

Tests the private module ``agentcore._loop.state``: its classes against attrs-built twins.
"""

from __future__ import annotations

import copy
import inspect
import pickle
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import ModelPrice, Summarise
from agentcore._loop.state import PendingSummary, Run
from agentcore.errors import ConfigurationError
from agentcore.events import Usage
from agentcore.loop import Limits, LoopConfig, LoopState, initial_loop_state, loop_processor

from .test_phase_table import TOOLS, _event, _fold

CLASSES = (LoopState, Run, PendingSummary, Limits)


def _twin(cls: type[Any]) -> type[Any]:
    """``attrs.frozen`` applied to ``cls``'s definition, rebuilt from what it holds."""
    made = {"__init__", "__repr__", "__eq__", "__ne__", "__hash__", "__getstate__"}
    made |= {"__setstate__", "__setattr__", "__delattr__", "__slots__", "__attrs_attrs__"}
    made |= {"__attrs_props__", "__match_args__", "__weakref__", "__replace__"}
    inspect.signature(cls)  # the methods written (on first use: records._Pending)
    fields = attrs.fields(cls)
    body = {k: v for k, v in vars(cls).items() if k not in made | {a.name for a in fields}}
    for a in fields:
        body[a.name] = attrs.field(default=a.default, validator=a.validator)
    body["__qualname__"] = cls.__qualname__
    return attrs.frozen(type(cls.__name__, (), body))


TWINS = {cls: _twin(cls) for cls in CLASSES}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_the_class_is_its_attrs_twin(cls: type[Any]) -> None:
    twin = TWINS[cls]
    assert cls.__init__.__code__.co_filename.startswith("<frozen generated init")
    assert inspect.signature(cls) == inspect.signature(twin)
    assert attrs.fields(cls) == attrs.fields(twin)
    assert cls.__slots__ == twin.__slots__
    assert cls.__match_args__ == twin.__match_args__
    assert set(vars(cls)) == set(vars(twin))
    validated = cls is Limits  # a user's, checked when built; the loop's own state is not
    assert all((a.validator is not None) is validated for a in attrs.fields(cls))
    assert all(a.converter is None for a in attrs.fields(cls))


@given(st.integers(-3, 3) | st.none() | st.floats(-1, 1) | st.booleans() | st.text(max_size=1))
def test_limits_refuse_what_they_refused(value: Any) -> None:
    """``Limits`` (which users build) validates as its attrs twin does, by ``override``
    and ``attrs.evolve`` too."""
    for name in ("max_iterations", "max_tokens", "max_cost", "timeout_ms"):
        outcomes = []
        for build in (Limits, TWINS[Limits]):
            try:
                outcomes.append(repr(build(**{name: value})))
            except ConfigurationError as exc:
                outcomes.append(str(exc))
        assert outcomes[0] == outcomes[1]
        try:
            again = repr(attrs.evolve(Limits(), **{name: value}))
        except ConfigurationError as exc:
            again = str(exc)
        assert again == outcomes[0]


def test_zero_usage_is_shared_not_built() -> None:
    """A new run's and a new state's usage are the one zero ``Usage`` (which snapshots
    keep by identity), equal to the ``Usage()`` the attrs classes made."""
    run, state = Run(Limits(), 0), initial_loop_state(LoopConfig())
    assert run.usage is run.step_usage is state.usage == Usage()


def _reached(data: st.DataObject) -> list[Any]:
    """Every state, run and pending summary a random fold of the policy reaches."""
    config = LoopConfig(
        tools=TOOLS,
        limits=Limits(max_iterations=data.draw(st.integers(1, 4), "max_iterations")),
        price=ModelPrice(1.0, 1.0, context_window=40),
        compaction=data.draw(st.sampled_from([None, Summarise(1)]), "compaction"),
        model_retries=1,
    )
    state = initial_loop_state(config)
    reached: list[Any] = [state]
    for n in range(data.draw(st.integers(1, 25), "steps")):
        state, _ = _fold(loop_processor, state, _event(data, state, n, ts=10 * (n + 1)))
        reached.append(state)
        if state.run is not None:
            reached += [state.run, state.run.limits]
            if state.run.summary is not None:
                reached.append(state.run.summary)
    return reached


def _as_twin(value: Any) -> Any:
    built = object.__new__(TWINS[type(value)])
    built.__setstate__(value.__getstate__())
    return built


def _hash(value: Any) -> int | None:
    try:
        return hash(value)
    except TypeError:
        return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_state_reached_behaves_as_its_attrs_twin(data: st.DataObject) -> None:
    for value in _reached(data):
        cls, twin = type(value), _as_twin(value)
        names = [a.name for a in attrs.fields(cls)]
        values = {name: getattr(value, name) for name in names}
        assert repr(value) == repr(twin)
        assert value.__getstate__() == twin.__getstate__()
        assert attrs.asdict(value, recurse=False) == attrs.asdict(twin, recurse=False)
        assert cls(**values) == value and not cls(**values).__ne__(value)
        assert TWINS[cls](**values) == twin
        assert value != twin
        assert (_hash(value) is None) is (_hash(twin) is None)
        assert attrs.evolve(value) == value
        assert copy.copy(value) == value and copy.deepcopy(value) == value
        data_only = value.replace(config=None) if cls is LoopState else value  # hooks are code
        assert pickle.loads(pickle.dumps(data_only)) == data_only
        changed = data.draw(st.sampled_from(names), "changed field")
        other = getattr(value, changed) if changed == "config" else object()
        if cls in (LoopState, Run):  # the loop changes states and runs with replace
            assert value.replace(**{changed: other}) == attrs.evolve(value, **{changed: other})
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            setattr(value, changed, None)
