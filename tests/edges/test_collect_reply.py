"""``collect_reply``: one model call's reply read whole by the message assembler (for
summaries and MCP sampling), whatever way its stream ends.

Tests the private module ``agentcore._edges.driver``: collect_reply, one model call's reply
read whole."""

from __future__ import annotations

import asyncio
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import ModelRequest
from agentcore._edges.driver import collect_reply  # private: the subject of this file
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import ErrorReceived, Interrupt, MessageStop
from agentcore.processors import (
    create_initial_message_assembler_state,
    message_assembler_processor,
)


def _collect(script: list[Any]) -> Any:
    return asyncio.run(collect_reply(ScriptedDriver([script]), ModelRequest(messages=())))


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=60), st.integers(1, 9))
def test_a_whole_reply_is_the_assemblers_message(text: str, chunk: int) -> None:
    script = text_turn(text, chunk=chunk, model="m1")
    message, error = _collect(script)
    assert error is None and not message.incomplete
    assert (message.text, message.model) == (text, "m1")
    state, outputs = create_initial_message_assembler_state(), []
    for event in script:
        state, out = message_assembler_processor(state, event)
        outputs += out
    stamped_by_the_driver = attrs.evolve(outputs[-1], timestamp=message.timestamp)
    assert message == stamped_by_the_driver, "exactly what the conversation's assembler gives"


def test_an_error_gives_the_message_cut_there_and_the_error() -> None:
    script = [*text_turn("half of it", model="m1")[:-1], ErrorReceived("busy", "OVERLOADED")]
    script = [e for e in script if type(e) is not MessageStop]
    message, error = _collect(script)
    assert message.incomplete and message.text.startswith("half")
    assert (error.code, error.message) == ("OVERLOADED", "busy")


def test_a_cut_stream_gives_what_came_and_no_error() -> None:
    script = [e for e in text_turn("so far", model="m1") if type(e) is not MessageStop]
    message, error = _collect(script)
    assert error is None and message.incomplete and message.text == "so far"
    assert _collect([]) == (None, None)


def test_a_raising_driver_propagates() -> None:
    with pytest.raises(ConnectionError):
        _collect([ConnectionError("down")])


def test_an_interrupt_is_a_cut_too() -> None:
    script = [*(e for e in text_turn("x y") if type(e) is not MessageStop), Interrupt()]
    message, error = _collect(script)
    assert error is None and message.incomplete
