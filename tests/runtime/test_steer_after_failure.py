"""A steering message typed while a run works, which then fails (or stops at a limit),
stays queued: ``continue_()`` delivers it, and a new prompt takes it first, in the order
of typing; never after the prompt (the new user's repro: the history read [first,
second, steer])."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import Agent
from agentcore.drivers.scripted import FunctionDriver, Pause, text_turn
from agentcore.events import ErrorReceived, MessageStart, UserMessage
from agentcore.loop import AgentPrompt, AgentSteer, LoopConfig, initial_loop_state, loop_processor


def _model(request: Any) -> list[Any]:
    last = request.messages[-1]
    if getattr(last, "content", None) == "first":
        return [
            Pause(0.3),
            MessageStart("m1", "x"),
            ErrorReceived("server_error: boom", "PROVIDER_ERROR"),
        ]
    users = [m.content for m in request.messages if m.type == "user_message"]
    return text_turn("answering: " + " | ".join(users))


def test_a_steer_typed_during_a_failed_run_comes_before_the_next_prompt() -> None:
    async def main() -> None:
        agent = Agent(FunctionDriver(_model))
        task = asyncio.create_task(agent.prompt("first"))
        await asyncio.sleep(0.1)
        agent.steer("steer typed while the first run worked")
        await task
        assert agent.state.error is not None
        await agent.prompt("second, unrelated")
        users = [m.content for m in agent.state.messages if m.type == "user_message"]
        assert users == ["first", "steer typed while the first run worked", "second, unrelated"]
        assert agent.state.steering == ()

    asyncio.run(main())


@settings(max_examples=50, deadline=None)
@given(
    steers=st.lists(st.text(min_size=1, max_size=12), max_size=3),
    prompts=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=2),
)
def test_after_a_failed_run_steering_keeps_the_order_of_typing(
    steers: list[str], prompts: list[str]
) -> None:
    """The pure loop: messages steered into a run that fails enter the next run before
    its prompt, all of them, once, in the order they were typed."""
    s = initial_loop_state(LoopConfig())
    s, _ = loop_processor(s, AgentPrompt([UserMessage("u0", "first")], timestamp=1))
    for i, text in enumerate(steers):
        s, _ = loop_processor(s, AgentSteer(UserMessage(f"s{i}", text), timestamp=2))
    s, _ = loop_processor(s, ErrorReceived("boom", "PROVIDER_ERROR", timestamp=3))
    assert s.phase == "idle" and [m.content for m in s.steering] == steers
    typed = [UserMessage(f"p{i}", text) for i, text in enumerate(prompts)]
    s, out = loop_processor(s, AgentPrompt(typed, timestamp=4))
    entered = [o.content for o in out if isinstance(o, UserMessage)]
    assert entered == [*steers, *prompts] and s.steering == ()
    history = [m.content for m in s.messages if isinstance(m, UserMessage)]
    assert history == ["first", *steers, *prompts]
