"""Snapshots (``dump_state``/``load_state``): a loaded state equals the one dumped and
folds on exactly as it would have (the objects the processors compare by identity stay
those very objects); attrs instances are written as calls of their class's maker with
their values, the maker written once with the class's fields, so a snapshot of another
layout or format is refused (and a resume folds the journal instead); a snapshot at the
journal's last seq reads nothing more.

Tests the private modules ``agentcore._core.assembler``, ``agentcore._core.content``,
``agentcore._journal.resume``: the snapshot format.
"""

from __future__ import annotations

import gc
import io
import pickle
import types
from typing import Any

import attrs
import pytest
from hypothesis import given, settings

from agentcore._core import assembler
from agentcore._core.content import ZERO_USAGE
from agentcore._journal import resume
from agentcore._journal.resume import _SHARED, _picklers, load_conversation
from agentcore.events import AssistantMessage, MessageStart, MessageStop, TextDelta, UserMessage
from agentcore.journal import JournalEntry, MemoryJournal, dump_state, load_state
from agentcore.loop import (
    AgentConfigured,
    AgentPrompt,
    LoopConfig,
    conversation_processor,
    create_initial_conversation_state,
)

from .test_conversation_replay import runs


def _fold(state: Any, events: list[Any]) -> tuple[Any, list[Any]]:
    outputs: list[Any] = []
    for event in events:
        state, out = conversation_processor(state, event)
        outputs += out
    return state, outputs


def _stamped(events: list[Any]) -> list[Any]:
    return [e if e.timestamp else attrs.evolve(e, timestamp=3) for e in events]


@settings(max_examples=60, deadline=None)
@given(runs(), runs())
def test_a_loaded_state_folds_on_as_the_dumped_one(first: list[Any], then: list[Any]) -> None:
    configured = AgentConfigured(LoopConfig().to_wire(), timestamp=1)
    fresh = create_initial_conversation_state(LoopConfig())
    state, _ = _fold(fresh, [configured, *_stamped(first)])
    loaded = load_state(dump_state(state), fresh)
    assert loaded == state
    assert _fold(loaded, _stamped(then)) == _fold(state, _stamped(then))


def _raw(data: bytes) -> Any:
    return _picklers()[1](io.BytesIO(resume._PREFIX + data[2:])).load()


def _streamed_state() -> Any:
    fresh = create_initial_conversation_state(LoopConfig())
    events = [
        AgentConfigured(LoopConfig().to_wire(), timestamp=1),
        AgentPrompt((UserMessage("u1", "go"),), timestamp=2),
        MessageStart("m1", "model", timestamp=3),
        TextDelta("hi", 0, timestamp=3),
        MessageStop("end_turn", timestamp=3),
    ]
    return _fold(fresh, events)[0], fresh


def test_attrs_instances_are_calls_of_a_maker_written_once_per_class() -> None:
    state, fresh = _streamed_state()
    data = dump_state(state)
    version, _config, _parts = _raw(data)
    assert version == resume._FORMAT
    assert data.count(b"_maker_of") == 1, "the function is written once, then referred to"
    assert data.count(b"AssistantMessage") == 1, "each class is written once, with its maker"
    assert b"message_id" not in data.split(b"AssistantMessage", 1)[1][:200], "no dict state"
    loaded = load_state(data, fresh)
    assert loaded == state
    shared = {id(o) for o in _SHARED}
    assert ZERO_USAGE in _SHARED and assembler.DONE in _SHARED
    held = {id(o) for o in _walk(state)} & shared
    assert held, "the state holds objects compared by identity"
    assert held <= {id(o) for o in _walk(loaded)}, "they are referred to, not copied"


def _walk(obj: Any) -> list[Any]:
    """Every object ``obj`` holds, through containers of any kind (not into classes,
    functions or modules)."""
    seen, todo, found = set(), [obj], []
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, type | types.FunctionType | types.ModuleType):
            continue
        seen.add(id(item))
        found.append(item)
        todo += gc.get_referents(item)
    return found


def test_a_snapshot_of_another_layout_or_format_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, fresh = _streamed_state()
    data = dump_state(state)
    monkeypatch.setitem(resume._FIELDS, AssistantMessage, ("text", "renamed"))
    with pytest.raises(ValueError, match="AssistantMessage with fields"):
        load_state(data, fresh)
    monkeypatch.undo()
    old = io.BytesIO()
    pickle.Pickler(old, protocol=5).dump((4, {}, {}))
    with pytest.raises(ValueError, match="format 4; this version reads format 7"):
        load_state(old.getvalue(), fresh)


def _restore() -> None:
    """Stands for the function of format 6 that rebuilt objects (gone since)."""


_restore.__module__ = resume.__name__


class _Format6:
    """Pickles as a call of ``resume._restore``, as a format 6 snapshot's objects did."""

    def __reduce__(self) -> Any:
        return _restore, ()


def test_a_snapshot_that_names_what_this_version_lacks_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _state, fresh = _streamed_state()
    with monkeypatch.context() as patched:
        patched.setattr(resume, "_restore", _restore, raising=False)
        data = pickle.dumps((6, {}, {"loop": _Format6()}), protocol=5)
    with pytest.raises(ValueError, match="a snapshot this version cannot read"):
        load_state(data, fresh)


def test_a_snapshot_of_a_class_with_other_fields_is_refused() -> None:
    state, _fresh = _streamed_state()
    message = next(o for o in _walk(state) if type(o) is AssistantMessage)
    fields = tuple(a.name for a in attrs.fields(AssistantMessage))
    values = tuple(getattr(message, name) for name in fields)
    assert resume._maker_of(AssistantMessage, fields)(*values) == message
    # the maker a snapshot of an older version of the class asks for, one field fewer
    with pytest.raises(ValueError, match=r"AssistantMessage with fields \('message_id'"):
        resume._maker_of(AssistantMessage, fields[:-1])


def test_objects_are_rebuilt_without_their_checks_nor_setstate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, fresh = _streamed_state()
    data = dump_state(state)

    def refuse(*_args: Any) -> None:
        raise AssertionError("a snapshot's object was checked or set up through __setstate__")

    monkeypatch.setattr(AssistantMessage, "__setstate__", refuse)
    monkeypatch.setattr(AssistantMessage, "__attrs_post_init__", refuse, raising=False)
    monkeypatch.setattr(resume, "_MAKERS", {})
    loaded = load_state(data, fresh)
    assert loaded == state
    assert any(type(o) is AssistantMessage for o in _walk(loaded))


class NoReading(MemoryJournal):
    """A journal that must not be read (its entries are all in the snapshot)."""

    def entries(self, agent_id: str | None = None, *, after: int = 0) -> Any:
        raise AssertionError("read a journal whose every entry the snapshot holds")


class One:
    def __init__(self, seq: int, data: bytes) -> None:
        self.found = (seq, data)

    def latest(self, agent_id: str, at_most: int) -> tuple[int, bytes] | None:
        return self.found if self.found[0] <= at_most else None


def test_a_snapshot_at_the_last_seq_reads_nothing_more() -> None:
    state, fresh = _streamed_state()
    entries = [JournalEntry("a", i, TextDelta("x", 0, timestamp=1)) for i in range(1, 6)]
    journal = NoReading(entries)
    got = load_conversation(journal, "a", conversation_processor, fresh, One(5, dump_state(state)))  # type: ignore[arg-type]
    assert got == state
    with pytest.raises(AssertionError, match="every entry the snapshot holds"):
        load_conversation(journal, "a", conversation_processor, fresh, One(4, dump_state(state)))  # type: ignore[arg-type]
