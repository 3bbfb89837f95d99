"""Whatever a journal file holds, reading it or reopening it raises ``JournalError`` (naming
the file and line) or works: never a raw ``TypeError``, ``KeyError``, ``RecursionError``."""

from __future__ import annotations

import json
import pathlib
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.events import TextDelta, to_dict
from agentcore.journal import JournalError, JsonlJournal, read_jsonl
from agentcore.testing import stream_events

_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=8)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)
"""Any JSON value: huge integers, lone surrogates and nesting included."""


@st.composite
def _mutated(draw: st.DrawFn, line: dict[str, Any]) -> bytes:
    """A valid journal line, changed in one way."""
    kind = draw(st.sampled_from(["top", "drop", "event", "data", "bytes", "deep"]))
    if kind == "top":
        line[draw(st.sampled_from(["agent_id", "seq", "event"]))] = draw(_JSON)
    elif kind == "drop":
        del line[draw(st.sampled_from(sorted(line)))]
    elif kind == "event":
        line["event"][draw(st.sampled_from(["type", "timestamp", "data"]))] = draw(_JSON)
    elif kind == "data":
        data = line["event"]["data"]
        data[draw(st.sampled_from([*data, "extra"]))] = draw(_JSON)
    elif kind == "deep":
        line["event"]["data"] = {"details": "@deep@"}
    text = json.dumps(line).encode().replace(b'"@deep@"', b"[" * 5000 + b"]" * 5000)
    if kind == "bytes":
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 8)))
        text = text[:start] + draw(st.binary(max_size=6)) + text[end:]
    return text


@st.composite
def _journal_files(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    """Valid lines of three agents with one line mutated, and the agents to append for."""
    events = draw(st.lists(stream_events(), min_size=1, max_size=12))
    lines = [
        {"agent_id": f"a{n % 3}", "seq": n // 3 + 1, "event": to_dict(event)}
        for n, event in enumerate(events)
    ]
    bad = draw(st.integers(0, len(lines) - 1))
    texts = [json.dumps(line).encode() for line in lines]
    texts[bad] = draw(_mutated(lines[bad]))
    ending = draw(st.sampled_from([b"\n", b""]))
    return b"\n".join(texts) + ending, ["a0", "a1", "a2", "new"]


def _only_journal_errors(action: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Run ``action`` (and read what it returns, when it is an iterator)."""
    try:
        result = action(*args, **kwargs)
        if isinstance(result, Iterator):
            list(result)
    except JournalError as exc:
        assert ".jsonl" in str(exc)


@settings(max_examples=120, deadline=None)
@given(_journal_files())
def test_reading_and_reopening_any_file_raise_only_journal_errors(
    case: tuple[bytes, list[str]],
) -> None:
    content, agents = case
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.jsonl"
        path.write_bytes(content)
        for parallel, decode in ((False, True), (False, False), (True, True)):
            _only_journal_errors(read_jsonl, path, decode_events=decode, parallel=parallel)
        journal = JsonlJournal(path)
        for agent in agents:
            _only_journal_errors(journal.append, agent, TextDelta("x", 0))
            _only_journal_errors(journal.last_seq, agent)
            _only_journal_errors(journal.entries, agent, after=1)
        journal.close()
        _only_journal_errors(journal.entries)
