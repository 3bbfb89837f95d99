"""The three vendor normalisers, property-tested like the core processors.

A reply (thinking, text and tool-call blocks) is drawn once and rendered as each vendor
streams it, with every text cut at arbitrary UTF-16 code units: the same cut an SSE
stream of JSON escapes can make, splitting surrogate pairs. Whatever the cuts, and with or
without a key to scrub somewhere in the text, each normaliser must be pure, emit a stream
the strict assembler accepts, and assemble exactly what the model sent (keys redacted).
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import pathlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import drivers
from agentcore.drivers import anthropic, openai, openai_responses
from agentcore.drivers.streaming import REDACTED, Normaliser
from agentcore.drivers.testing import Called, Said, assemble, check_stream, reply_chunks
from agentcore.events import (
    ErrorReceived,
    InputJsonDelta,
    MessageStop,
    StreamEvent,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingPart,
    ToolCallPart,
    ToolUseStart,
)

KEY = "sk-test-" + "Q7x" * 8
"""A key of the driver's; text that holds it must never come out with it."""


@attrs.frozen
class Block:
    """One block of a reply: ``kind`` is text, thinking or tool; ``text`` the text or the
    tool's JSON arguments; ``cuts`` where the stream splits it (UTF-16 unit offsets)."""

    kind: str
    text: str
    cuts: tuple[int, ...]
    name: str = ""


@attrs.frozen
class Reply:
    blocks: tuple[Block, ...]

    @property
    def stop(self) -> str:
        return "tool_use" if any(b.kind == "tool" for b in self.blocks) else "end_turn"


def units(text: str) -> str:
    """``text`` with each astral character as its two surrogates, as JSON escapes decode."""
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(int.from_bytes(data[i : i + 2], "little")) for i in range(0, len(data), 2))


def pieces(block: Block) -> list[str]:
    coded = units(block.text)
    bounds = [0, *sorted({c for c in block.cuts if 0 < c < len(coded)}), len(coded)]
    return [coded[a:b] for a, b in itertools.pairwise(bounds) if b > a]


CHARS = st.one_of(
    st.sampled_from(list("sk-t Q7x😀é\n")),
    st.sampled_from([KEY[:5], KEY, "𝄞", "s", "sk"]),
    st.characters(exclude_categories=("Cs",)),
)
texts = st.lists(CHARS, max_size=12).map("".join)
cuts = st.lists(st.integers(min_value=1, max_value=80), max_size=10).map(tuple)


@st.composite
def tool_blocks(draw: st.DrawFn, number: int) -> Block:
    arguments = draw(st.dictionaries(st.sampled_from(["a", "city", "n"]), texts, max_size=2))
    raw = json.dumps(arguments, ensure_ascii=False)
    return Block("tool", raw, draw(cuts), name=f"tool_{number}")


@st.composite
def replies(draw: st.DrawFn, shape: str = "any") -> Reply:
    """A reply; ``shape="chat"`` keeps Chat Completions' order (thinking, text, tools)."""
    blocks: list[Block] = []
    if shape == "chat":
        for kind in ("thinking", "text"):
            if draw(st.booleans()):
                blocks.append(Block(kind, draw(texts.filter(bool)), draw(cuts)))
    else:
        for kind in draw(st.lists(st.sampled_from(["text", "thinking"]), max_size=3)):
            blocks.append(Block(kind, draw(texts.filter(bool)), draw(cuts)))
    for number in range(draw(st.integers(0, 3))):
        blocks.append(draw(tool_blocks(number)))
    return Reply(tuple(blocks))


def rendered(provider: str, reply: Reply) -> list[Any]:
    """What ``provider`` streams for ``reply``, each block cut where the reply says."""
    blocks: list[Said | Called] = []
    for number, block in enumerate(reply.blocks):
        if block.kind == "tool":
            blocks.append(Called(f"call_{number}", block.name, tuple(pieces(block))))
        else:
            blocks.append(Said(tuple(pieces(block)), thinking=block.kind == "thinking"))
    return reply_chunks(provider, blocks)


@attrs.frozen
class Vendor:
    name: str
    normaliser: Normaliser[Any, Any]
    initial_state: Callable[..., Any]
    shape: str = "any"

    def render(self, reply: Reply) -> list[Any]:
        return rendered(self.name, reply)


VENDORS = {
    "anthropic": Vendor("anthropic", anthropic.NORMALISER, anthropic.initial_state),
    "openai": Vendor("openai", openai.NORMALISER, openai.initial_state, "chat"),
    "openai-responses": Vendor(
        "openai-responses", openai_responses.NORMALISER, openai_responses.initial_state
    ),
}


@st.composite
def cases(draw: st.DrawFn) -> tuple[Vendor, Reply, tuple[str, ...]]:
    vendor = VENDORS[draw(st.sampled_from(sorted(VENDORS)))]
    keys = draw(st.sampled_from([(), (KEY,)]))
    return vendor, draw(replies(vendor.shape)), keys


def run(
    vendor: Vendor, chunks: Sequence[Any], keys: tuple[str, ...], *, clean_end: bool = True
) -> tuple[list[StreamEvent], list[Any]]:
    """The events (stamped with each chunk's position) and every state along the way."""
    norm = vendor.normaliser
    state = vendor.initial_state(message_id="fallback", model="fallback", keys=keys)
    states = [state]
    events: list[StreamEvent] = []
    for ts, chunk in enumerate(chunks, start=1):
        state, out = norm.step(state, chunk, ts)
        events += out
        states.append(state)
    state, out = (norm.finish if clean_end else norm.flush)(state, len(chunks) + 1)
    events += out
    states.append(state)
    return events, states


def expected_text(text: str, keys: tuple[str, ...]) -> str:
    for key in keys:
        text = text.replace(key, REDACTED)
    return text


def strings(events: Sequence[StreamEvent]) -> Iterator[str]:
    for event in events:
        for field in attrs.fields(type(event)):
            value = getattr(event, field.name)
            if isinstance(value, str):
                yield value


# -- properties --------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(cases())
def test_every_split_assembles_what_the_model_sent(
    case: tuple[Vendor, Reply, tuple[str, ...]],
) -> None:
    vendor, reply, keys = case
    events, _ = run(vendor, vendor.render(reply), keys)
    check_stream(events)
    assert isinstance(events[-1], MessageStop) and events[-1].stop_reason == reply.stop
    message = assemble(events)
    got = []
    for part in message.parts:
        if isinstance(part, TextPart):
            got.append(("text", part.text))
        elif isinstance(part, ThinkingPart):
            got.append(("thinking", part.text))
        elif isinstance(part, ToolCallPart):
            got.append(("tool", part.raw_input))
    want = [(b.kind, expected_text(b.text, keys)) for b in reply.blocks]
    assert got == want
    if keys:
        assert not any(KEY in s for s in strings(events))


@settings(max_examples=100, deadline=None)
@given(cases())
def test_normalisers_are_pure(case: tuple[Vendor, Reply, tuple[str, ...]]) -> None:
    vendor, reply, keys = case
    chunks = vendor.render(reply)
    pristine = copy.deepcopy(chunks)
    first, states = run(vendor, chunks, keys)
    frozen = copy.deepcopy(states)
    second, again = run(vendor, chunks, keys)
    assert first == second and states == again  # same inputs, same outputs
    assert chunks == pristine  # inputs untouched
    assert states == frozen  # no state changed after it was returned
    assert all(e.timestamp >= 1 for e in first)  # every timestamp came from the caller


@settings(max_examples=100, deadline=None)
@given(cases(), st.data())
def test_a_stream_cut_before_its_end_reports_one_retryable_connection_error(
    case: tuple[Vendor, Reply, tuple[str, ...]], data: st.DataObject
) -> None:
    vendor, reply, keys = case
    chunks = vendor.render(reply)
    terminal = len(chunks) - (3 if vendor.name == "openai" else 1)  # openai: finish, usage, DONE
    kept = data.draw(st.integers(min_value=1, max_value=terminal), label="kept")
    events, _ = run(vendor, chunks[:kept], keys)
    check_stream(events)
    last = events[-1]
    assert isinstance(last, ErrorReceived) and last.code == "CONNECTION_ERROR" and last.retryable
    assert [e for e in events if isinstance(e, ErrorReceived)] == [last]


def delta_text(event: StreamEvent) -> str:
    if isinstance(event, TextDelta | ThinkingDelta):
        return event.text
    return event.partial_json if isinstance(event, InputJsonDelta) else ""


def fixed(text: str) -> str:
    """``text`` as valid Unicode: pairs joined, lone surrogates U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


@settings(max_examples=100, deadline=None)
@given(cases(), st.data())
def test_nothing_is_lost_or_duplicated_when_a_stream_fails_midway(
    case: tuple[Vendor, Reply, tuple[str, ...]], data: st.DataObject
) -> None:
    """Flushing after any prefix gives back exactly the text received, once, in order."""
    vendor, reply, _ = case
    chunks = vendor.render(reply)
    kept = data.draw(st.integers(min_value=1, max_value=len(chunks)), label="kept")
    events, _ = run(vendor, chunks[:kept], (), clean_end=False)
    sent = [piece for block in reply.blocks for piece in pieces(block)]
    received = sent[: sum(1 for c in chunks[:kept] if carries_piece(c))]
    assert "".join(delta_text(e) for e in events) == fixed("".join(received))
    starts = [e.tool_call_id for e in events if isinstance(e, ToolUseStart)]
    assert len(starts) == len(set(starts))


def carries_piece(chunk: Any) -> bool:
    """Whether a rendered chunk carries one piece of a block's text (see the renderers)."""
    if not isinstance(chunk, dict):
        return False
    if chunk.get("type") == "content_block_delta":
        return chunk["delta"]["type"] != "signature_delta"
    if str(chunk.get("type", "")).endswith(".delta"):
        return True
    delta = (chunk.get("choices") or [{}])[0].get("delta") or {}
    calls = delta.get("tool_calls") or [{}]
    return bool(
        delta.get("reasoning_content")
        or delta.get("content")
        or "arguments" in (calls[0].get("function") or {})
    )


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_a_surrogate_pair_split_across_deltas_is_joined(vendor: str) -> None:
    reply = Reply((Block("text", "smile 😀!", (7,)),))
    assert pieces(reply.blocks[0]) == ["smile \ud83d", "\ude00!"]
    events, _ = run(VENDORS[vendor], VENDORS[vendor].render(reply), ())
    assert [p.text for p in assemble(events).parts] == ["smile 😀!"]


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_a_high_surrogate_left_alone_at_the_end_of_its_block_becomes_a_replacement(
    vendor: str,
) -> None:
    reply = Reply((Block("text", "ok😀", (2, 3)),))
    chunks = [c for c in VENDORS[vendor].render(reply) if "\\ude00" not in json.dumps(c)]
    events, _ = run(VENDORS[vendor], chunks, ())
    assert [p.text for p in assemble(events).parts] == ["ok\ufffd"]


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_a_key_echoed_in_six_character_deltas_never_comes_out(vendor: str) -> None:
    text = f"my key is {KEY}, keep it"
    reply = Reply((Block("text", text, tuple(range(6, 60, 6))),))
    events, _ = run(VENDORS[vendor], VENDORS[vendor].render(reply), (KEY,))
    assert not any(KEY[:12] in s for s in strings(events))
    assert [p.text for p in assemble(events).parts] == [f"my key is {REDACTED}, keep it"]


NORMALISER_MODULES = [
    "_common/guard",
    "_common/normaliser",
    "anthropic/stream",
    "openai/stream",
    "openai_responses/stream",
    "google/stream",
]
SHELL_MODULES = {
    "anthropic", "asyncio", "datetime", "httpx", "httpx2", "io", "logging", "openai", "os",
    "random", "secrets", "socket", "threading", "time", "uuid",
}  # fmt: skip


@pytest.mark.parametrize("module", NORMALISER_MODULES)
def test_normaliser_modules_import_nothing_with_io_clocks_or_randomness(module: str) -> None:
    path = pathlib.Path(drivers.__file__).parent / f"{module}.py"
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & SHELL_MODULES
