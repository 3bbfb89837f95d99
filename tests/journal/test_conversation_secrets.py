"""No secret escapes a ``Conversation``, whichever input class carries it.

``Conversation`` scrubs an input only when the scan of its class (``SCANS``: the fields
whose annotations can hold text) says it may hold a secret. Every registered event class,
of every layer, is generated with a key put in one of its strings (nested ones too), then
received and fed: neither what the journal is handed nor any output or effect holds it.

Tests the private modules ``agentcore._journal.conversation`` (Conversation),
``agentcore._core.secrets`` (SCANS), ``agentcore._core.registry`` and
``agentcore._core.checks`` (the registered classes and their checks).
"""

from __future__ import annotations

import contextlib
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import agentcore.loop  # noqa: F401  (registers the loop's events)
from agentcore import from_dict, to_dict
from agentcore._core.checks import is_checked
from agentcore._core.registry import EVENT_TYPES
from agentcore._core.secrets import SCANS
from agentcore._journal.conversation import Conversation
from agentcore.errors import ConfigurationError, InvalidEventError
from agentcore.loop import LoopConfig, conversation_processor, create_initial_conversation_state
from agentcore.testing import instances

KEYS = [
    "sk-ant-api03-" + "aB_-9" * 18 + "AA",
    "sk-abc123XYZ",
    "gsk_" + "Q2wE4rT6yU8i" * 4 + "Op0a",
    "tgp_v1_" + "kJ8_hG6-fD4s" * 3 + "aZ",
    "AIza" + "SyD3xQ-bC9_mN7pL5kJ2hG4fD6sA8qW1eR",
    "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig",
]
_MEDIA = {"image", "document", "audio"}
"""Wire types whose base64 ``data`` is binary, never scrubbed (see ``agentcore._core.secrets``)."""
_OPAQUE = {"thinking_delta": {"signature", "redacted_data"}}
"""Streamed fields the conversation leaves alone: a provider's opaque tokens, sent back to
it as they came (a chance match scrubbed would break the next request)."""


def _string_paths(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Where a string sits in a wire form (but the ``type`` tags and media bytes)."""
    if isinstance(value, str):
        return [path]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _string_paths(v, (*path, i))]
    if isinstance(value, dict):
        media = value.get("type") in _MEDIA
        return [
            p
            for k, v in value.items()
            if k != "type" and not (media and k == "data")
            for p in _string_paths(v, (*path, k))
        ]
    return []


def _replaced(wire: Any, path: tuple[object, ...], text: str) -> Any:
    if not path:
        return text
    head, rest = path[0], path[1:]
    if isinstance(wire, list):
        return [_replaced(v, rest, text) if i == head else v for i, v in enumerate(wire)]
    return {k: _replaced(v, rest, text) if k == head else v for k, v in wire.items()}


@st.composite
def events_holding_a_key(draw: st.DrawFn) -> tuple[Any, str]:
    """An instance of any registered event class with a key in one of its strings."""
    cls = draw(st.sampled_from(sorted(EVENT_TYPES.values(), key=lambda c: c.type)))
    wire = to_dict(draw(instances(cls)))
    opaque = _OPAQUE.get(cls.type, set())
    paths = [p for p in _string_paths(wire) if p[:1] != ("data",) or p[1] not in opaque]
    assume(paths)
    key = draw(st.sampled_from(KEYS))
    try:
        event = from_dict(_replaced(wire, draw(st.sampled_from(paths)), f"x {key} y"))
    except InvalidEventError:
        assume(False)  # a field that takes only some strings (a Literal, an id's shape)
    assert key in repr(event)
    return event, key


class Recorded:
    """A journal and a sink at once: keeps the repr of what each is handed."""

    congested = False

    def __init__(self) -> None:
        self.seen: list[str] = []

    def append(self, agent_id: str, event: Any) -> int:
        self.seen.append(repr(event))
        return len(self.seen)

    def send(self, output: Any) -> None:
        self.seen.append(repr(output))


def _conversation(recorded: Recorded) -> Conversation:
    return Conversation(
        conversation_processor,
        create_initial_conversation_state(LoopConfig()),
        agent_id="a",
        journal=recorded,  # type: ignore[arg-type]  # the two methods a Conversation calls
        outlet=recorded,
        perform=lambda effect: recorded.seen.append(repr(effect)),
        clock=lambda: 1,
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events_holding_a_key(), st.booleans())
def test_no_secret_reaches_the_journal_or_an_output_whatever_input_carries_it(
    held: tuple[Any, str], fed: bool
) -> None:
    event, key = held
    recorded = Recorded()
    conversation = _conversation(recorded)
    try:
        if fed:
            conversation.feed_all([event])
        else:
            recorded.seen += map(repr, conversation.receive(event))
    except Exception:
        pass  # an input this fresh state refuses: what was journaled still counts
    assert recorded.seen, "the input was journaled"
    assert not [line for line in recorded.seen if key in line]


@pytest.mark.parametrize("cls", sorted(EVENT_TYPES.values(), key=lambda c: c.type))
def test_a_class_the_scan_skips_has_no_string_anywhere(cls: type[Any]) -> None:
    """``SCANS`` gives ``None`` (no scan at all) only to classes whose instances never
    hold a string: numbers, bools, enums and the like."""
    if SCANS[cls] is None:

        @settings(max_examples=20, deadline=None)
        @given(instances(cls))
        def no_string(event: Any) -> None:
            assert not _string_paths(to_dict(event))

        no_string()


_UNCHECKED = [
    (cls, field.name)
    for cls in sorted(EVENT_TYPES.values(), key=lambda c: c.type)
    if not is_checked(cls)
    for field in attrs.fields(cls)
    if field.name != "timestamp"
]


@pytest.mark.parametrize(("cls", "name"), _UNCHECKED, ids=lambda v: getattr(v, "type", v))
def test_a_key_in_any_field_of_an_unchecked_class_is_scrubbed(cls: type[Any], name: str) -> None:
    """A class whose construction does not check its fields may hold a string where its
    annotation says a number: its scan reads every field, whatever the annotation."""
    key = KEYS[0]
    try:
        event = attrs.evolve(draw_one(cls), **{name: f"x {key} y"})
    except (TypeError, InvalidEventError, ConfigurationError):
        return  # the class refuses a string in that field when built: no key can ride in it
    recorded = Recorded()
    with contextlib.suppress(Exception):  # an input a fresh state refuses: journaled still
        _conversation(recorded).receive(event)
    assert recorded.seen and not [line for line in recorded.seen if key in line]


def draw_one(cls: type[Any]) -> Any:
    """Some instance of ``cls``, the same every time."""
    found: list[Any] = []

    @settings(max_examples=1, database=None, deadline=None)
    @given(instances(cls))
    def keep(event: Any) -> None:
        found.append(event)

    keep()
    return found[0]
