"""Reading a journal file holds about one chunk of it, whatever the file's size.

Tests the private module ``agentcore._journal.read``: the reader's chunk size."""

from __future__ import annotations

import pathlib
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from agentcore._journal.read import CHUNK_BYTES, dumps
from agentcore.events import MessageStart, MessageStop, TextDelta, UserMessage, to_dict
from agentcore.journal import read_jsonl, replay

FILE_BYTES = 50_000_000
PEAK_BYTES = 6 * CHUNK_BYTES
"""The bound on what reading may allocate at once (the file is 48 times larger)."""


@pytest.fixture(scope="module")
def large_journal(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """About 50 MB: turns of a user message, a model call of 40 text deltas of 1 KB each."""
    path = tmp_path_factory.mktemp("memory") / "large.jsonl"
    chunk = "token " * 170
    turn = [UserMessage("u", "hello"), MessageStart("m", "model")]
    turn += [TextDelta(chunk, 0)] * 40 + [MessageStop()]
    wires = [to_dict(event) for event in turn]
    seq, written = 0, 0
    with path.open("wb") as f:
        while written < FILE_BYTES:
            lines = []
            for wire in wires:
                seq += 1
                lines.append(dumps({"agent_id": "a", "seq": seq, "event": wire}))
            block = b"\n".join(lines) + b"\n"
            f.write(block)
            written += len(block)
    return path


def _peak(read: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "read",
    [
        lambda path: sum(1 for _ in read_jsonl(path)),
        lambda path: sum(1 for _ in replay(path)),
        lambda path: sum(1 for _ in replay(path, lambda: _Forgetful())),
    ],
    ids=["read_jsonl", "replay", "replay-event-by-event"],
)
def test_reading_a_large_file_holds_one_chunk(
    large_journal: pathlib.Path, read: Callable[[pathlib.Path], int]
) -> None:
    assert large_journal.stat().st_size >= FILE_BYTES
    peak = _peak(lambda: read(large_journal))
    assert peak < PEAK_BYTES, f"reading allocated {peak:,} bytes at once"


class _Forgetful:
    """A machine that keeps no state, folded one event at a time (not in bulk)."""

    def process(self, agent_id: str, event: Any) -> tuple[Any, ...]:
        return (event,)

    def state_of(self, agent_id: str) -> Any:
        return None
