"""Whether the open model call's reply is streaming is the loop state's ``streaming`` (it
was the run's): a ``message_start`` makes one new state and keeps the run as it was, and
every reply still has exactly one ``agent_message_start`` and one ``agent_message_end``,
however the run goes (tool calls, steering, aborts, model errors with retries, a resume
in the middle of a streamed reply, a reply handed whole without its ``message_start``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.events import AssistantMessage, ErrorReceived, MessageStart, TextPart, UserMessage
from agentcore.loop import (
    AgentAbort,
    AgentMessageEnd,
    AgentMessageStart,
    AgentPrompt,
    AgentResume,
    AgentSteer,
    ClockTick,
    LoopConfig,
    conversation_processor,
    create_initial_conversation_state,
    initial_loop_state,
    loop_processor,
)
from agentcore.testing import turns

_CONFIG = LoopConfig(model_retries=1, retry_delay_ms=1)


@st.composite
def _runs(draw: st.DrawFn) -> list[Any]:
    """A prompt and a model turn, with commands, model errors and resumes anywhere."""
    turn = draw(turns(max_calls=2))
    events: list[Any] = [AgentPrompt((UserMessage("u1", "go"),), timestamp=1)]
    events += [e for e in turn.events if type(e) is not UserMessage]
    extras = [
        AgentSteer("wait", timestamp=5),
        AgentAbort("user", timestamp=5),
        AgentResume(timestamp=5),
        ErrorReceived("overloaded", "provider_error", retryable=True, timestamp=5),
        ClockTick(timestamp=10**9),
        MessageStart("again", "model", timestamp=5),
    ]
    for _ in range(draw(st.integers(0, 4))):
        events.insert(draw(st.integers(1, len(events))), draw(st.sampled_from(extras)))
    return events


def _replies(outputs: list[Any]) -> list[str]:
    """The assistant lifecycle outputs, in order: "start" and "end"."""
    return [
        "start" if type(o) is AgentMessageStart else "end"
        for o in outputs
        if type(o) in (AgentMessageStart, AgentMessageEnd) and o.role == "assistant"
    ]


@settings(max_examples=150, deadline=None)
@given(_runs())
def test_each_reply_has_one_start_and_one_end(events: list[Any]) -> None:
    state = create_initial_conversation_state(_CONFIG)
    outputs: list[Any] = []
    for event in events:
        before = state.loop
        state, out = conversation_processor(state, event)
        outputs += out
        loop = state.loop
        if loop.streaming:
            assert loop.run is not None and loop.phase == "model"
        if type(event) is MessageStart and loop is not before and before.run is not None:
            assert loop.run is before.run  # the flag alone changed: no new run
    lifecycle = _replies(outputs)
    assert lifecycle[::2] == ["start"] * len(lifecycle[::2])
    assert lifecycle[1::2] == ["end"] * len(lifecycle[1::2])
    assert state.loop.phase != "idle" or not state.loop.streaming


def test_a_reply_handed_whole_is_started_with_its_end() -> None:
    """The loop alone, given a reply without its ``message_start``: its start comes with
    its end; after a ``message_start``, it came then and is not repeated."""
    reply = AssistantMessage("m", "model", (TextPart("hi"),), timestamp=3)
    state, _ = loop_processor(
        initial_loop_state(_CONFIG), AgentPrompt((UserMessage("u", "go"),), timestamp=1)
    )
    _, whole = loop_processor(state, reply)
    assert _replies(list(whole)) == ["start", "end"]
    started, at_start = loop_processor(state, MessageStart("m", "model", timestamp=2))
    assert started.streaming and not state.streaming
    _, at_end = loop_processor(started, reply)
    assert _replies(list(at_start)) == ["start"]
    assert _replies(list(at_end)) == ["end"]


def test_a_run_ended_while_its_reply_streams_leaves_no_reply_streaming() -> None:
    """The loop alone: a model error after a ``message_start`` and no reply (nothing to
    flush) ends the run; the next run's reply starts afresh."""
    prompt = AgentPrompt((UserMessage("u", "go"),), timestamp=1)
    state, _ = loop_processor(initial_loop_state(LoopConfig()), prompt)
    state, _ = loop_processor(state, MessageStart("m", "model", timestamp=2))
    state, _ = loop_processor(state, ErrorReceived("down", "provider_error", timestamp=3))
    assert state.phase == "idle" and not state.streaming
    state, _ = loop_processor(state, prompt)
    reply = AssistantMessage("m2", "model", (TextPart("hi"),), timestamp=4)
    _, out = loop_processor(state, reply)
    assert _replies(list(out)) == ["start", "end"]
