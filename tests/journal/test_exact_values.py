"""A JSONL journal reads back every JSON value as it was written: integers of any size
(orjson, the fast parser, reads one beyond 64 bits as a float), floats, unicode, nested
values, by every reading path (entries, replay, a resume, the forked reader).

Tests the private modules ``agentcore._journal.read`` and ``agentcore._journal.resume``:
``load_line`` against the stdlib's parser, and a resume with the forked reader forced."""

from __future__ import annotations

import json
import os
import pathlib
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal import read
from agentcore._journal.resume import load_conversation
from agentcore.events import ToolCallMessage, ToolCallPart, ToolResultMessage, to_dict
from agentcore.journal import JsonlJournal, MemoryJournal, replay
from agentcore.loop import LoopConfig, conversation_processor, create_initial_conversation_state
from agentcore.testing import json_values

_LONG_INTEGERS = st.one_of(
    st.integers(2**63 - 2, 2**64 + 2),
    st.integers(-(2**63) - 2, -(2**63) + 2),
    st.integers(min_value=2**64),
    st.integers(max_value=-(2**63)),
)
"""Integers around and beyond the 64 bits orjson reads as integers."""

_VALUES = st.one_of(json_values(), _LONG_INTEGERS, st.lists(_LONG_INTEGERS, max_size=3))


def _strict(value: Any) -> str:
    """``value`` with each number's type: ``1e29 == 10**29`` but the two differ here."""
    return repr(value)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_load_line_reads_what_the_stdlib_reads(value: Any) -> None:
    for text in (json.dumps(value), json.dumps(value, separators=(",", ":")), json.dumps([value])):
        data = text.encode()
        assert _strict(read.load_line(data)) == _strict(json.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        "123456789012345678901234567890",
        '{"a": 18446744073709551616}',
        "[-9223372036854775809, 18446744073709551615, -9223372036854775808]",
        '{"id": "12345678901234567890123", "n": 1}',  # a long digit run in a string
    ],
)
def test_load_line_keeps_integers_beyond_64_bits(text: str) -> None:
    assert _strict(read.load_line(text.encode())) == _strict(json.loads(text))


def _events(values: list[Any]) -> list[Any]:
    """A tool call and its result per value: the value in the call's input and the
    result's details."""
    events: list[Any] = []
    for n, value in enumerate(values):
        call = ToolCallPart(f"c{n}", "lookup", {"value": value})
        events.append(ToolCallMessage(f"m{n}", call))
        events.append(ToolResultMessage(f"c{n}", "lookup", "done", details=value))
    return events


@settings(max_examples=60, deadline=None)
@given(st.lists(_VALUES, min_size=1, max_size=4), st.sampled_from([False, True]))
def test_every_reading_path_gives_back_what_was_written(values: list[Any], forked: bool) -> None:
    written = _events(values)
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patched:
        path = pathlib.Path(tmp) / "j.jsonl"
        journal = JsonlJournal(path)
        for event in written:
            journal.append("a", event)
        journal.close()
        memory = MemoryJournal()
        for event in written:
            memory.append("a", event)

        entries = list(JsonlJournal(path).entries())
        assert [_strict(to_dict(e.event)) for e in entries] == [
            _strict(to_dict(e)) for e in written
        ]
        assert entries == list(memory.entries())
        plain = [(agent, _strict(output)) for agent, output in replay(memory)]
        assert [(agent, _strict(output)) for agent, output in replay(path)] == plain
        assert [(a, _strict(o)) for a, o in replay(path, parallel=forked)] == plain

        forks = 0
        real_fork = os.fork

        def counting_fork() -> int:
            nonlocal forks
            forks += 1
            return real_fork()

        patched.setattr(os, "fork", counting_fork)
        patched.setattr("agentcore._journal.resume.worth_forking", lambda _path: forked)
        fresh = create_initial_conversation_state(LoopConfig())
        want = load_conversation(memory, "a", conversation_processor, fresh)
        got = load_conversation(JsonlJournal(path), "a", conversation_processor, fresh)
        assert _strict(got) == _strict(want)
        assert forks == forked
