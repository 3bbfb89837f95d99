"""RecordingPresenter keeps every pair in order; Filter and present().

Tests the private module ``agentcore.presenters._base``: Filter and present, the presenters'
shared parts."""

import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.events import (
    MessageStart,
    TextDelta,
    TurnResponse,
    UserMessage,
)
from agentcore.presenters._base import Filter, output_type, present
from agentcore.presenters.recording import RecordingPresenter


def _outputs() -> list[Any]:
    return [
        UserMessage("u1", "hi"),
        MessageStart("m1", "model-x"),
        TextDelta("Hel", 0),
        TextDelta("lo", 0),
        TurnResponse("t1", 12),
    ]


def test_records_pairs_in_order_and_filters_by_agent_and_type() -> None:
    rec = RecordingPresenter()
    outs = _outputs()
    for i, out in enumerate(outs):
        rec.present("a" if i % 2 == 0 else "b", out)
    assert rec.records == [("a" if i % 2 == 0 else "b", o) for i, o in enumerate(outs)]
    assert len(rec) == 5
    assert rec.agent_ids() == ["a", "b"]
    assert rec.outputs("a") == [outs[0], outs[2], outs[4]]
    assert rec.outputs(type="text_delta") == [outs[2], outs[3]]
    assert rec.outputs(type=TextDelta) == [outs[2], outs[3]]
    assert rec.outputs("b", type=TextDelta) == [outs[3]]
    assert rec.outputs(type=("user_message", TurnResponse)) == [outs[0], outs[4]]
    assert rec.types("b") == ["message_start", "text_delta"]
    rec.clear()
    assert rec.records == [] and rec.types() == []


@given(st.lists(st.tuples(st.sampled_from(["a1", "a2", "a3"]), st.integers()), max_size=50))
def test_nothing_lost_or_duplicated(pairs: list[tuple[str, int]]) -> None:
    rec = RecordingPresenter()
    for aid, n in pairs:
        rec.present(aid, TextDelta(str(n), 0))
    assert [(aid, int(o.text)) for aid, o in rec.records] == pairs
    for aid in rec.agent_ids():
        assert [int(o.text) for o in rec.outputs(aid)] == [n for a, n in pairs if a == aid]


def test_filter_selects_by_layer_or_type() -> None:
    outs = _outputs()
    assert all(Filter()(o) for o in outs)
    assert [output_type(o) for o in outs if Filter(layers="turn")(o)] == ["turn_response"]
    both = Filter(layers={"turn"}, types=["message_start"])
    assert [output_type(o) for o in outs if both(o)] == ["message_start", "turn_response"]
    assert not Filter(layers={"stream"})(object())
    assert Filter()(object())


def test_filter_rejects_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown layer"):
        Filter(layers={"strem"})
    with pytest.raises(ValueError, match=r"unknown event type.*'txt_delta'"):
        Filter(types="txt_delta")


def test_present_awaits_async_presenters_and_calls_sync_ones() -> None:
    seen: list[str] = []

    class Async:
        async def present(self, agent_id: str, output: Any) -> None:
            await asyncio.sleep(0)
            seen.append(f"async {agent_id}")

    rec = RecordingPresenter()
    out = TextDelta("x", 0)

    async def main() -> None:
        await present(Async(), "a1", out)
        await present(rec, "a2", out)

    asyncio.run(main())
    assert seen == ["async a1"]
    assert rec.records == [("a2", out)]


def test_docs_examples_run() -> None:
    """Every python block of docs/presenters.md runs as is."""
    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "presenters.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 5
    for block in blocks:
        result = subprocess.run(
            [sys.executable, "-c", block], capture_output=True, text=True, cwd=root, check=False
        )
        assert result.returncode == 0, f"{block}\n{result.stderr}"
