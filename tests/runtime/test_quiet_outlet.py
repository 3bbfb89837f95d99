"""An agent's outlet is ``quiet`` while nothing would see an output, and only then.

Tests the private module ``agentcore._runtime.outlet``: its ``quiet`` flag, which makes
the conversation send no outputs (no presenter, subscriber or interceptor).
"""

from __future__ import annotations

import asyncio
from typing import Any

from agentcore import Agent
from agentcore._runtime.outlet import Outlet
from agentcore.drivers.scripted import ScriptedDriver, text_turn


class Keep:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    def present(self, agent_id: str, output: Any) -> None:
        self.seen.append(output)


def test_quiet_follows_presenters_subscribers_and_interceptors() -> None:
    assert Outlet("a", [], 10).quiet
    assert not Outlet("a", [Keep()], 10).quiet
    outlet = Outlet("a", [], 10)
    first = outlet.subscribe(lambda output: None)
    second = outlet.subscribe({"text_delta": lambda output: None})
    assert not outlet.quiet
    first()
    first()  # twice: counted once
    assert not outlet.quiet
    second()
    assert outlet.quiet
    remove = outlet.intercept(lambda output, next_: next_(output))
    assert not outlet.quiet
    remove()
    assert outlet.quiet


def test_a_subscriber_of_a_quiet_agent_sees_what_a_presenter_sees() -> None:
    """Run by run: quiet, then subscribed, then quiet again; the subscriber gets every
    output of its run, as a presenter of an agent that always listens does, and the two
    agents end in the same state."""
    turns = [text_turn("one two three", chunk=4)] * 3
    options: dict[str, Any] = {"agent_id": "x", "clock": lambda: 5, "id_factory": lambda: "i"}
    kept = Keep()
    watched = Agent(ScriptedDriver(turns, clock=lambda: 5), presenters=[kept], **options)
    quiet = Agent(ScriptedDriver(turns, clock=lambda: 5), **options)
    seen: list[Any] = []

    async def main() -> None:
        for run in range(3):
            before = len(kept.seen)
            unsubscribe = quiet.subscribe(seen.append) if run == 1 else None
            await watched.run("go")
            await quiet.run("go")
            if unsubscribe is not None:
                unsubscribe()
                assert seen == kept.seen[before:]

    asyncio.run(main())
    assert seen and len(seen) * 3 == len(kept.seen)  # one run of three
    assert quiet.conversation_state.core == watched.conversation_state.core
    assert quiet.state.messages == watched.state.messages  # the config holds own hooks
