"""The Gemini normaliser and request builder, pure: properties over generated part streams.

- However Gemini groups the same parts into chunks, the events are the same.
- A reply streamed, assembled by the engine and sent back to the same model comes back as
  the parts Gemini sent (consecutive texts joined), every signature on the part it came on.
- Thinking levels map per model generation; unknown levels are a clear error.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import attrs
import hypothesis.strategies as st
import pytest
from hypothesis import given

from agentcore import ModelRequest
from agentcore.drivers.google import NORMALISER, build_body, initial_state, thinking_config
from agentcore.drivers.testing import assemble, check_stream
from agentcore.errors import ConfigurationError
from agentcore.events import StreamEvent, UserMessage

MODEL = "gemini-2.5-flash"

words = st.text(alphabet="abcdefgh ,.!é😀", min_size=1, max_size=8).filter(lambda t: t.strip())
signatures = st.none() | st.sampled_from(["c2lnMQ==", "c2lnMg==", "c2lnMw=="])
thoughts = st.builds(
    lambda text, sig: {"text": text, "thought": True, **({"thoughtSignature": sig} if sig else {})},
    words,
    signatures,
)
texts = st.builds(
    lambda text, sig: {"text": text, **({"thoughtSignature": sig} if sig else {})},
    words,
    signatures,
)
calls = st.builds(
    lambda n, args, sig: {
        "functionCall": {"id": f"id{n}", "name": "f", "args": args},
        **({"thoughtSignature": sig} if sig else {}),
    },
    st.integers(0, 10**6),
    st.dictionaries(st.sampled_from("abc"), st.integers() | st.text(max_size=4), max_size=2),
    signatures,
)
part_lists = st.lists(st.one_of(thoughts, texts, calls), min_size=1, max_size=8).map(
    lambda parts: [  # call ids unique within a reply, as Gemini makes them
        {**p, "functionCall": {**p["functionCall"], "id": f"id{i}"}} if "functionCall" in p else p
        for i, p in enumerate(parts)
    ]
)


def _chunks(parts: list[dict[str, Any]], cuts: list[int]) -> list[dict[str, Any]]:
    """``parts`` as Gemini chunks, split at the ``cuts`` positions; the last one finishes."""
    bounds = sorted({c % (len(parts) + 1) for c in cuts} | {0, len(parts)})
    chunks = []
    for start, end in itertools.pairwise(bounds):
        candidate = {"content": {"role": "model", "parts": parts[start:end]}, "index": 0}
        chunks.append({"candidates": [candidate], "modelVersion": MODEL, "responseId": "r"})
    chunks.append(
        {
            "candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
        }
    )
    return chunks


def _events(chunks: list[dict[str, Any]]) -> list[StreamEvent]:
    state = initial_state(message_id="fallback", model=MODEL)
    out: list[StreamEvent] = []
    for chunk in chunks:
        state, events = NORMALISER.step(state, chunk, 1)
        out += events
    state, events = NORMALISER.finish(state, 1)
    return out + list(events)


@given(part_lists, st.lists(st.integers(0, 20), max_size=6), st.lists(st.integers(0, 20)))
def test_events_do_not_depend_on_how_parts_are_grouped_into_chunks(
    parts: list[dict[str, Any]], cuts: list[int], other: list[int]
) -> None:
    events = _events(_chunks(parts, cuts))
    check_stream(events)
    assert events == _events(_chunks(parts, other))


def _expected(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a faithful round trip gives: consecutive texts (and consecutive unsigned
    thoughts) joined, each signature where Gemini put it."""
    out: list[dict[str, Any]] = []
    for part in parts:
        last = out[-1] if out else None
        if part.get("thought"):
            if last and last.get("thought") and "thoughtSignature" not in last:
                last["text"] += part["text"]
                if "thoughtSignature" in part:
                    last["thoughtSignature"] = part["thoughtSignature"]
                continue
        elif (
            "text" in part
            and "thoughtSignature" not in part
            and last
            and "text" in last
            and not last.get("thought")
        ):
            last["text"] += part["text"]
            continue
        out.append(dict(part))
    return out


@given(part_lists, st.lists(st.integers(0, 20), max_size=6))
def test_a_reply_sent_back_to_its_model_has_every_signature_where_it_came(
    parts: list[dict[str, Any]], cuts: list[int]
) -> None:
    message = assemble(_events(_chunks(parts, cuts)))
    request = ModelRequest(messages=(UserMessage("u", "hi"), message, UserMessage("u2", "go")))
    _, body = build_body(request, model=MODEL, thinking_level="off", max_tokens=None)
    sent = body["contents"][1]["parts"]
    assert json.loads(json.dumps(sent)) == _expected(parts)


@given(part_lists)
def test_no_signature_reaches_another_model(parts: list[dict[str, Any]]) -> None:
    message = assemble(_events(_chunks(parts, [])))
    request = ModelRequest(messages=(UserMessage("u", "hi"), message, UserMessage("u2", "go")))
    _, body = build_body(request, model="gemini-2.5-pro", thinking_level="off", max_tokens=None)
    sent = json.dumps(body)
    assert "c2ln" not in sent and '"thought"' not in sent


@pytest.mark.parametrize(
    ("model", "level", "config"),
    [
        ("gemini-2.5-flash", "off", {"thinkingBudget": 0}),
        ("gemini-2.5-pro", "off", {"thinkingBudget": 128}),
        ("gemini-2.5-pro", "high", {"thinkingBudget": 16384, "includeThoughts": True}),
        ("gemini-3-flash-preview", "off", {"thinkingLevel": "minimal"}),
        ("gemini-3-pro-preview", "off", {"thinkingLevel": "low"}),
        ("gemini-3-pro-preview", "xhigh", {"thinkingLevel": "high", "includeThoughts": True}),
        ("models/gemini-3.1-pro", "medium", {"thinkingLevel": "medium", "includeThoughts": True}),
        ("gemini-flash-latest", "off", None),
        ("gemini-flash-latest", "low", {"thinkingBudget": 2048, "includeThoughts": True}),
    ],
)
def test_thinking_levels_map_per_model_generation(
    model: str, level: Any, config: dict[str, Any] | None
) -> None:
    assert thinking_config(level, model) == config


def test_an_unknown_thinking_level_is_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown thinking level 'huge'"):
        thinking_config("huge", MODEL)  # type: ignore[arg-type]


def test_the_request_model_overrides_the_drivers() -> None:
    request = attrs.evolve(ModelRequest(messages=(UserMessage("u", "hi"),)), model="gemini-3-pro")
    model, _ = build_body(request, model=MODEL, thinking_level="off", max_tokens=None)
    assert model == "gemini-3-pro"
