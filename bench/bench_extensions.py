"""Overhead of bending an agent, per model call, on the path a user takes.

An ``Agent`` with a presenter answers runs of one model call each (a short scripted
reply), bare and then with 5 extensions (every hook kind), 3 middleware and 2
guardrails (one input, one output). Target: under 50 µs of overhead per model call.
Times are CPU time of the process (``time.process_time``), steadier on a shared machine;
bare and bent runs alternate, so a change of load weighs on both alike.
A second figure adds a tool call per run, through the same hooks.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from agentcore import Agent, tool
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.extensions import Continue, ExtensionAPI

RUNS = 400
ROUNDS = 5


class Counter:
    def __init__(self) -> None:
        self.n = 0

    def present(self, agent_id: str, output: Any) -> None:
        self.n += 1


@tool
def echo(text: str) -> str:
    """Echo text."""
    return text


def _extension(i: int) -> Any:
    def extension(api: ExtensionAPI) -> None:
        api.on("transform_context", lambda messages: messages)
        api.on("before_tool_call", lambda call, t: Continue())
        api.on("after_tool_result", lambda call, result: result)
        api.on("event", lambda output: None)

    return extension


async def _middleware(action: Any, next: Any) -> Any:
    return await next(action)


def _input_ok(messages: Any) -> None:
    return None


async def _output_ok(message: Any) -> None:
    return None


def _bent() -> dict[str, Any]:
    return {
        "extensions": [_extension(i) for i in range(5)],
        "middleware": [_middleware] * 3,
        "input_guardrails": [_input_ok],
        "output_guardrails": [_output_ok],
    }


def _agent(with_tool: bool, options: dict[str, Any]) -> Agent:
    def reply(request: Any) -> list[Any]:
        last = request.messages[-1]
        if with_tool and last.type == "user_message":
            return tool_turn([(f"c{len(request.messages)}", "echo", {"text": "x"})])
        return text_turn("done", chunk=4)

    return Agent(FunctionDriver(reply), presenters=[Counter()], tools=[echo], **options)


async def _timed(agent: Agent) -> float:
    agent.reset()  # a short history: the figure is the call's, not the history's
    began = time.process_time()
    await agent.run("go")
    return time.process_time() - began


def _overhead(with_tool: bool) -> tuple[float, float]:
    """Median over rounds: (bare µs per model call, overhead µs). Within a round the bare
    and the bent agent run in turn, so a change of load on a shared machine weighs on
    both alike."""
    calls = RUNS * (2 if with_tool else 1)

    async def rounds() -> tuple[list[float], list[float]]:
        plain, bent = _agent(with_tool, {}), _agent(with_tool, _bent())
        for _ in range(20):  # warm up
            await plain.run("go")
            await bent.run("go")
        bare, extra = [], []
        for _ in range(ROUNDS):
            plain_total = bent_total = 0.0
            for _ in range(RUNS):
                plain_total += await _timed(plain)
                bent_total += await _timed(bent)
            bare.append(plain_total / calls)
            extra.append((bent_total - plain_total) / calls)
        return bare, extra

    bare, extra = asyncio.run(rounds())
    return statistics.median(bare) * 1e6, statistics.median(extra) * 1e6


def main() -> None:
    bare, extra = _overhead(False)
    print(
        f"model call: bare agent {bare:.1f} µs/call; 5 extensions + 3 middleware + "
        f"2 guardrails add {extra:.1f} µs/call (target < 50)"
    )
    bare, extra = _overhead(True)
    print(f"model call + tool call: bare {bare:.1f} µs/call; bent adds {extra:.1f} µs/call")


if __name__ == "__main__":
    main()
