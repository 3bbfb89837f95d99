"""Replaying a file appends runs of deltas in bulk: same outputs, same states, and only for
machines whose steps nobody observes."""

from __future__ import annotations

import pathlib
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import MemoryStore
from agentcore.combinators import with_logging
from agentcore.errors import InvalidEventError
from agentcore.events import (
    InputJsonDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    UserMessage,
    from_dict,
    to_dict,
)
from agentcore.journal import JournalError, JsonlJournal, read_jsonl, replay
from agentcore.machine import MealyMachine, create_mealy_machine
from agentcore.processors import (
    agent_processor,
    appending,
    create_initial_agent_engine_state,
    layers_of,
    with_appended,
)
from agentcore.testing import broken_streams, turns

AGENTS = ("a", "b", "c")

# deltas that may or may not be pure appends: other indexes, signatures, odd values
_ODD_DELTAS = st.one_of(
    st.builds(TextDelta, text=st.sampled_from(["x", ""]), index=st.integers(0, 3)),
    st.builds(
        ThinkingDelta,
        text=st.sampled_from(["t", ""]),
        index=st.integers(0, 3),
        signature=st.none() | st.just("sig"),
    ),
    st.builds(
        InputJsonDelta, partial_json=st.sampled_from(["{", '"k"', ""]), index=st.integers(0, 3)
    ),
)


def _writable(event: Any) -> bool:
    """Whether the journal can write ``event`` and read it back (garbage with unset or
    ill-typed fields it cannot)."""
    try:
        from_dict(to_dict(event))
    except Exception:
        return False
    return True


@st.composite
def _script(draw: st.DrawFn) -> list[Any]:
    """One agent's stream: whole turns, damaged turns, turns with odd deltas inserted."""
    script: list[Any] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["turn", "broken", "odd"]))
        if kind == "broken":
            script += [e for e in draw(broken_streams()) if _writable(e)]
            continue
        events = list(draw(turns(max_calls=2)).events)
        if kind == "odd":
            for delta in draw(st.lists(_ODD_DELTAS, min_size=1, max_size=6)):
                events.insert(draw(st.integers(0, len(events))), delta)
        script += events
    return script


@st.composite
def _conversations(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Several agents' streams, interleaved; some agents stream the very same script (so
    one agent's deltas often follow another's for the same kind of block and index)."""
    scripts = [draw(_script())]
    for _ in range(draw(st.integers(0, len(AGENTS) - 1))):
        scripts.append(scripts[0] if draw(st.booleans()) else draw(_script()))
    longest_run = draw(st.sampled_from([1, 3, 20]))
    queues = [[(AGENTS[i], e) for e in reversed(s)] for i, s in enumerate(scripts)]
    merged: list[tuple[str, Any]] = []
    while queues:
        i = draw(st.integers(0, len(queues) - 1))
        for _ in range(draw(st.integers(1, longest_run))):
            if queues[i]:
                merged.append(queues[i].pop())
        if not queues[i]:
            queues.pop(i)
    return merged


def _journal(path: pathlib.Path, pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Append what the journal accepts; the pairs it accepted."""
    journal = JsonlJournal(path)
    kept = []
    for agent, event in pairs:
        try:
            journal.append(agent, event)
        except (InvalidEventError, TypeError, ValueError):
            continue
        kept.append((agent, event))
    journal.close()
    return kept


def _event_by_event(path: pathlib.Path) -> tuple[list[tuple[str, Any]], MealyMachine]:
    machine = create_mealy_machine()
    outputs = [
        (entry.agent_id, output)
        for entry in read_jsonl(path, parallel=False)
        for output in machine.process(entry.agent_id, entry.event)
    ]
    return outputs, machine


def _states(machine: MealyMachine, agents: set[str]) -> dict[str, Any]:
    return {agent: machine.state_of(agent) for agent in agents}


@settings(max_examples=60, deadline=None)
@given(_conversations(), st.sampled_from([False, True]))
def test_bulk_replay_equals_event_by_event(pairs: list[tuple[str, Any]], parallel: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.jsonl"
        agents = {agent for agent, _ in _journal(path, pairs)}
        expected, reference = _event_by_event(path)
        machine = create_mealy_machine()
        assert list(replay(path, lambda: machine, parallel=parallel)) == expected
        assert _states(machine, agents) == _states(reference, agents)


@settings(max_examples=100, deadline=None)
@given(turns(max_calls=2), st.sampled_from(["x", ""]))
def test_appending_says_which_delta_only_appends(turn: Any, chunk: str) -> None:
    state: Any = create_initial_agent_engine_state()
    for event in turn.events:
        state, _ = agent_processor(state, event)
        hot = appending(state)
        if hot is not None:
            cls, index = hot
            delta = cls(chunk, index)
            assert agent_processor(state, delta) == (with_appended(state, [chunk]), ())
            assert with_appended(with_appended(state, [chunk]), [chunk, chunk]) == (
                with_appended(state, [chunk] * 3)
            )


class CountingStore(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def set(self, agent_id: str, state: Any) -> None:
        self.writes += 1
        super().set(agent_id, state)


def _long_turn(path: pathlib.Path, deltas: int) -> list[Any]:
    stream: list[Any] = [
        UserMessage("u1", "hi"),
        MessageStart("m1", "model"),
        *(TextDelta(f"t{n} ", 0) for n in range(deltas)),
        ToolUseStart("call-1", "search", 1),
        *(InputJsonDelta(c, 1) for c in ['{"q"', ': "x"', "}"] * 5),
        MessageStop(),
    ]
    _journal(path, [("a", e) for e in stream])
    return stream


def test_a_run_of_deltas_is_one_state_write(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    _long_turn(path, 500)  # 519 events
    store = CountingStore()
    machine = MealyMachine(agent_processor, create_initial_agent_engine_state, store)
    outputs = list(replay(path, lambda: machine))
    assert outputs == _event_by_event(path)[0]
    # user, start, first text delta, text run, tool start, json run, stop
    assert store.writes == 7
    [message] = [o for _, o in outputs if o.type == "assistant_message"]
    assert message.text == "".join(f"t{n} " for n in range(500))


def test_observed_or_other_machines_see_every_event(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    stream = _long_turn(path, 50)
    expected = _event_by_event(path)[0]
    steps: list[Any] = []
    assert list(replay(path, lambda: create_mealy_machine(on_step=steps.append))) == expected
    assert [step.event for step in steps] == stream
    seen: list[Any] = []

    def spying(state: Any, event: Any) -> Any:
        seen.append(event)
        return agent_processor(state, event)

    machine = MealyMachine(spying, create_initial_agent_engine_state)
    assert list(replay(path, lambda: machine)) == expected
    assert seen == stream
    logged = MealyMachine(
        with_logging(agent_processor, lambda *_: None), create_initial_agent_engine_state
    )
    assert logged.observed and not create_mealy_machine().observed
    assert list(replay(path, lambda: logged)) == expected


@pytest.mark.parametrize("parallel", [False, True], ids=["in-process", "forked"])
def test_deltas_before_a_corrupt_line_are_in_the_state(
    tmp_path: pathlib.Path, parallel: bool
) -> None:
    path = tmp_path / "j.jsonl"
    _long_turn(path, 300)
    lines = path.read_bytes().split(b"\n")
    bad = 200  # inside the text run
    lines[bad - 1] = b'{"agent_id": "a", "seq": 200, "event": {"type": "text_delta"}}'
    path.write_bytes(b"\n".join(lines))
    machine = create_mealy_machine()
    with pytest.raises(JournalError, match=rf"j\.jsonl:{bad}:"):
        list(replay(path, lambda: machine, parallel=parallel))
    reference = create_mealy_machine()
    path.write_bytes(b"\n".join(lines[: bad - 1]) + b"\n")
    for entry in read_jsonl(path):
        reference.process(entry.agent_id, entry.event)
    assert machine.state_of("a") == reference.state_of("a")
    assert len(layers_of(machine.state_of("a"))[0][3]) == bad - 3  # chunks of every delta before it


def test_the_default_conversation_machine_folds_in_bulk_and_echoes_every_delta(
    tmp_path: pathlib.Path,
) -> None:
    """The default replay machine (the conversation processor) takes the bulk path for a
    file; its outputs, echoed deltas included, and final state equal one event at a time."""
    from agentcore.loop import create_conversation_machine

    path = tmp_path / "j.jsonl"
    _long_turn(path, 300)
    bulk = create_conversation_machine(store=CountingStore())
    outputs = list(replay(path, lambda: bulk))
    single = create_conversation_machine()
    one_by_one = list(replay(list(read_jsonl(path)), lambda: single))
    assert outputs == one_by_one
    assert sum(o.type == "text_delta" for _, o in outputs) == 300
    assert bulk.state_of("a") == single.state_of("a")
    assert bulk.store.writes < 20  # type: ignore[attr-defined]
