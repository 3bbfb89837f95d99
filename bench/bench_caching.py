"""Prompt caching's cost in the fold: a prompt on a 1,000-message history with caching off
(the request is built only when performed) and on (built and compared when issued), and
the prefix comparison alone. Best of 5 rounds."""

from __future__ import annotations

import timeit

import attrs

from agentcore import Cache
from agentcore.caching import prefix_break
from agentcore.events import AssistantMessage, TextPart, UserMessage
from agentcore.loop import AgentPrompt, CallModel, LoopConfig, initial_loop_state, loop_processor

HISTORY = [
    message
    for i in range(500)
    for message in (
        UserMessage(f"u{i}", "hello " * 20),
        AssistantMessage(f"a{i}", "m", (TextPart("reply " * 20),)),
    )
]
PROMPT = AgentPrompt([UserMessage("x", "go")])


def _best(fn: object, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number  # type: ignore[arg-type]


def main() -> None:
    for cache in (None, Cache()):
        state = initial_loop_state(LoopConfig(system_prompt="sys", cache=cache), HISTORY)
        took = _best(lambda s=state: loop_processor(s, PROMPT), 1000)
        label = "on " if cache else "off"
        print(f"caching {label}: {took * 1e6:7.1f} µs per prompt folded (1,000 messages)")
    state = initial_loop_state(LoopConfig(system_prompt="sys", cache=Cache()), HISTORY)
    _, out = loop_processor(state, PROMPT)
    request = next(o for o in out if type(o) is CallModel).request
    longer = attrs.evolve(request, messages=(*request.messages, UserMessage("y", "z")))
    took = _best(lambda: prefix_break(request, longer), 10_000)
    print(f"prefix_break: {took * 1e6:7.1f} µs (1,001 messages, a history that grew)")


if __name__ == "__main__":
    main()
