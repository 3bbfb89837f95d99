"""The reader's fast path for delta lines (``read._DELTA_LINES``, ``_delta_records``) and
the folds over records that use it (``replay``'s ``fold_blocks``, ``load_conversation``
of a JSONL file): what they give is exactly what the long way (one JSON parse and one
event per line, one fold step per event) gives, for any text a delta may carry, escapes,
control characters and lone surrogates included, and any interleaving of lanes.

Tests the private modules ``agentcore._journal.read``, ``agentcore._journal.resume``:
the reader's fast path for delta lines.
"""

from __future__ import annotations

import json
import pathlib
import re
import tempfile
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._journal import read
from agentcore._journal.resume import load_conversation
from agentcore.events import InputJsonDelta, MessageStart, TextDelta, ThinkingDelta
from agentcore.journal import (
    JournalError,
    JsonlJournal,
    MemoryJournal,
    dump_state,
    read_jsonl,
    replay,
)
from agentcore.loop import (
    AgentConfigured,
    LoopConfig,
    conversation_processor,
    create_initial_conversation_state,
)

from .test_conversation_replay import runs

NEVER = re.compile(rb"^(?:(x)(x)(x)(x)(x)(x)(x)\Z|.*)$", re.MULTILINE)
"""Matches every line as "not a delta": the reader then reads each line the long way."""

TEXTS = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from(['"', "\\", "\n", "\x00", "\x1f", "é", "😀", "/", "a"])),
    st.sampled_from(["\ud83d", "a\udc00b", "}}}", '","index":1}}}', "\\u0041"]),
)


def _body(text: str, ascii_only: bool) -> bytes | None:
    """The inside of the JSON string of ``text``, as a journal line may hold it (None when
    it cannot be UTF-8: a lone surrogate written raw)."""
    try:
        return json.dumps(text, ensure_ascii=ascii_only)[1:-1].encode()
    except UnicodeEncodeError:
        return None


BODIES = st.one_of(
    st.builds(_body, TEXTS, st.booleans()).filter(lambda body: body is not None),
    st.sampled_from([b"a\\qb", b"\\ud800", b"\\udc00\\ud83d", b"\\u00e9", b"\xff", b"\xc3"]),
)
"""Bodies ``_STRING`` admits: written by ``json.dumps`` (escaped or raw UTF-8), a bad
escape, lone surrogates, bytes that are not UTF-8."""


@settings(max_examples=300, deadline=None)
@given(st.lists(BODIES, min_size=1, max_size=8))
def test_a_runs_texts_are_its_bodies_read_one_by_one(bodies: list[bytes]) -> None:
    """``_json_strings`` (one parse of a run's escaped bodies) gives each body's text, or
    ``ValueError`` where one body has none."""
    assert all(re.fullmatch(read._STRING, b'"' + body + b'"') for body in bodies)
    try:
        each = [read._json_string(body) for body in bodies]
    except ValueError:
        with pytest.raises(ValueError):
            read._json_strings(bodies)
        return
    assert read._json_strings(bodies) == each


@st.composite
def lines(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Agents' inputs: mostly text, thinking and tool-input deltas, some other events."""
    agents = draw(st.lists(st.sampled_from(["a", "b", 'q"\\é']), min_size=1, max_size=3))
    kinds = st.sampled_from([TextDelta, TextDelta, ThinkingDelta, InputJsonDelta, MessageStart])
    made = []
    for _ in range(draw(st.integers(1, 50))):
        kind = draw(kinds)
        stamp = draw(st.integers(-(2**53), 2**53))
        if kind is MessageStart:
            event = MessageStart(draw(TEXTS), "m", timestamp=stamp)
        elif kind is ThinkingDelta and draw(st.booleans()):  # signed: read the long way
            event = ThinkingDelta("", draw(st.integers(0, 2)), draw(TEXTS), timestamp=stamp)
        else:
            event = kind(draw(TEXTS), draw(st.integers(0, 2**31)), timestamp=stamp)
        made.append((draw(st.sampled_from(agents)), event))
    return made


def _read_both(path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> Any:
    fast = list(read_jsonl(path, **options))
    with monkeypatch.context() as patched:
        patched.setattr(read, "_DELTA_LINES", NEVER)
        slow = list(read_jsonl(path, **options))
    return fast, slow


@settings(max_examples=60, deadline=None)
@given(lines(), st.sampled_from([None, "a", "b"]))
def test_delta_lines_read_as_the_long_way_reads_them(
    inputs: list[tuple[str, Any]], agent: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as monkeypatch:
        path = pathlib.Path(tmp) / "j.jsonl"
        journal = JsonlJournal(path)
        for agent_id, event in inputs:
            journal.append(agent_id, event)
        journal.close()
        runs_taken: list[int] = []
        original = read._delta_records

        def counted(run: Any, agent_id: Any) -> Any:
            runs_taken.append(len(run))
            return original(run, agent_id)

        monkeypatch.setattr(read, "_delta_records", counted)
        fast, slow = _read_both(path, monkeypatch, agent_id=agent)
        assert fast == slow
        assert [e.event for e in fast] == [
            e for a, e in inputs if agent is None or a == agent
        ] or any("sk-" in repr(e) for _, e in inputs)  # a scrubbed secret differs
        plain = [e for _, e in inputs if type(e) is not MessageStart and not _signed(e)]
        assert sum(runs_taken) == len(plain), "every unsigned delta line took the fast path"


def _signed(event: Any) -> bool:
    """A thinking delta with a signature, which the fast path leaves to the long way."""
    return type(event) is ThinkingDelta and event.signature is not None


def _delta_line(agent: str, seq: int, body: str) -> str:
    return (
        f'{{"agent_id":"{agent}","seq":{seq},"event":{{"type":"text_delta",'
        f'"timestamp":1,"data":{{{body}}}}}}}\n'
    )


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('"text":"a\\qb","index":0', "corrupt journal line"),  # a bad escape
        ('"partial_json":"ab","index":0', "text_delta"),  # another delta's field
        ('"text":"\\ud800\\ud800","index":0', None),  # lone surrogates are JSON
        ('"text":"a","index":0,"signature":null,"redacted_data":null', "corrupt journal line"),
    ],
)
def test_a_line_the_fast_path_refuses_is_read_the_long_way(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, body: str, problem: str | None
) -> None:
    path = tmp_path / "j.jsonl"
    good = _delta_line("a", 1, '"text":"ok","index":0')
    path.write_text(good + _delta_line("a", 2, body) + _delta_line("a", 3, '"text":"x","index":0'))
    if problem is None:
        fast, slow = _read_both(path, monkeypatch)
        assert fast == slow and len(fast) == 3
        return
    for use in ("fast", "slow"):
        with monkeypatch.context() as patched:
            if use == "slow":
                patched.setattr(read, "_DELTA_LINES", NEVER)
            seen = []
            with pytest.raises(JournalError, match=f"j.jsonl:2: .*{problem}"):
                seen.extend(read_jsonl(path))
            assert [e.event for e in seen] == [TextDelta("ok", 0, timestamp=1)]


@pytest.mark.parametrize(
    ("kind", "field"), [("text_delta", "partial_json"), ("input_json_delta", "text")]
)
def test_a_delta_line_with_the_other_deltas_field_is_named_by_every_fold(
    tmp_path: pathlib.Path, kind: str, field: str
) -> None:
    path = tmp_path / "j.jsonl"
    bad = (
        f'{{"agent_id":"a","seq":2,"event":{{"type":"{kind}","timestamp":1,'
        f'"data":{{"{field}":"ab","index":0}}}}}}\n'
    )
    path.write_text(_delta_line("a", 1, '"text":"ok","index":0') + bad)
    named = r"j\.jsonl:2: corrupt journal line"
    with pytest.raises(JournalError, match=named):
        list(read_jsonl(path))
    with pytest.raises(JournalError, match=named):
        list(replay(path))
    fresh = create_initial_conversation_state(LoopConfig())
    with pytest.raises(JournalError, match=named):
        load_conversation(JsonlJournal(path), "a", conversation_processor, fresh)


def test_a_torn_delta_line_at_the_end_is_passed_over(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.jsonl"
    whole = _delta_line("a", 1, '"text":"ok","index":0')
    path.write_text(whole + _delta_line("a", 2, '"text":"cut","index":0')[:-20])
    assert [e.seq for e in read_jsonl(path)] == [1]
    json.loads(whole)  # the line the test writes is the journal's JSON


@st.composite
def lanes(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Two agents' runs (a prompt, streamed calls, results, commands), interleaved."""
    each = {agent: draw(runs()) for agent in ("a", "b")}
    order = draw(st.permutations([a for a, events in each.items() for _ in events]))
    taken = dict.fromkeys(each, 0)
    inputs = [(a, AgentConfigured(LoopConfig().to_wire(), timestamp=1)) for a in each]
    for agent in order:
        event = each[agent][taken[agent]]
        taken[agent] += 1
        inputs.append((agent, event if event.timestamp else attrs.evolve(event, timestamp=3)))
    return inputs


@settings(max_examples=60, deadline=None)
@given(lanes(), st.integers(0, 40))
def test_folds_of_a_file_equal_folds_of_its_entries(
    inputs: list[tuple[str, Any]], after: int
) -> None:
    """``replay`` of a file equals replay of its entries (every output but effects), and
    resuming from the file, with or without a snapshot at ``after``, lands in the state
    folding the entries one by one gives."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.jsonl"
        journal = JsonlJournal(path)
        for agent_id, event in inputs:
            journal.append(agent_id, event)
        journal.close()
        entries = list(read_jsonl(path))
        assert list(replay(path)) == list(replay(entries))
        fresh = create_initial_conversation_state(LoopConfig())
        for agent in ("a", "b"):
            lane = [e for e in entries if e.agent_id == agent]
            whole = load_conversation(MemoryJournal(lane), agent, conversation_processor, fresh)
            file = JsonlJournal(path)
            assert load_conversation(file, agent, conversation_processor, fresh) == whole
            cut = min(after, len(lane))
            head = load_conversation(
                MemoryJournal(lane[:cut]), agent, conversation_processor, fresh
            )
            store = Latest((cut, dump_state(head)) if cut else None)
            assert load_conversation(file, agent, conversation_processor, fresh, store) == whole


class Latest:
    """A snapshot store holding one snapshot (or none)."""

    def __init__(self, found: tuple[int, bytes] | None) -> None:
        self.found = found

    def latest(self, agent_id: str, at_most: int) -> tuple[int, bytes] | None:
        return self.found
