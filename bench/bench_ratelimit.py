"""A rate budget under load: 200 concurrent agents against a local fake provider that
answers 429 above 60 requests per window.

Time is scaled down tenfold: the provider allows 60 requests in any 6 s (the real limit
is 60 a minute), and the process's budget is one below it, ``RateLimit(59, 6.0)``: the
budget decides when a request is granted, and a busy event loop sends some a little
late, so a budget of exactly the limit lets the odd late one land in a full window (one
429 in 400 requests, measured); one request of margin absorbs that. Each agent (its own
OpenAI-compatible driver, all of them counting against the one process budget) runs one
prompt, a single model call. Reported: the 429s the provider sent (the target is none),
the busiest window the provider saw (at most 60), and the steady rate of answered
requests against the limit (the target is within 5% of it). ``BENCH_AGENTS`` and
``BENCH_PROMPTS`` (per agent) change the load.
"""

from __future__ import annotations

import asyncio
import os
import time

from agentcore import Agent
from agentcore.drivers._common.ratebucket import RateLimit
from agentcore.drivers._common.ratelimit import RateBudget, Rates, set_process_budget
from agentcore.drivers.registry import get_driver
from agentcore.drivers.testing import LimitedServer, busiest_window

LIMIT = 60
BUDGET = 59
WINDOW = 6.0
AGENTS = int(os.environ.get("BENCH_AGENTS", "200"))
PROMPTS = int(os.environ.get("BENCH_PROMPTS", "1"))


async def run(agents: int = AGENTS, prompts: int = PROMPTS) -> tuple[LimitedServer, float, int]:
    """The provider after ``agents`` agents ran ``prompts`` prompts each, the seconds it
    took, and the ``rate_limited`` notices the agents delivered."""
    previous = set_process_budget(RateBudget({"openai": Rates(requests=RateLimit(BUDGET, WINDOW))}))
    notices = 0
    try:
        async with LimitedServer(LIMIT, WINDOW) as server:
            drivers = [
                get_driver("openai/fake-model", base_url=server.base_url, api_key="k")
                for _ in range(agents)
            ]
            agents = [Agent(driver) for driver in drivers]

            def count(output: object) -> None:
                nonlocal notices
                notices += getattr(output, "type", None) == "rate_limited"

            for agent in agents:
                agent.subscribe(count)

            async def one(agent: Agent) -> None:
                for _ in range(prompts):
                    await agent.run("hi")

            start = time.monotonic()
            await asyncio.gather(*(one(agent) for agent in agents))
            elapsed = time.monotonic() - start
            for agent in agents:
                await agent.aclose()
            for driver in drivers:
                await driver.aclose()
    finally:
        set_process_budget(previous)
    return server, elapsed, notices


def main() -> None:
    server, elapsed, notices = asyncio.run(run())
    times = server.accepted
    steady = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else 0.0
    limit_rate = LIMIT / WINDOW
    print(
        f"  {AGENTS} agents x {PROMPTS} prompt(s), limit {LIMIT} requests per {WINDOW:g} s, "
        f"budget {BUDGET}"
    )
    print(f"  answered {len(times)} requests in {elapsed:.1f} s; 429s sent: {len(server.rejected)}")
    print(
        f"  busiest {WINDOW:g} s window: {busiest_window(times, WINDOW)} requests (limit {LIMIT})"
    )
    print(
        f"  steady rate: {steady:.2f} requests/s = {steady / limit_rate:.1%} of the limit "
        f"({limit_rate:.1f}/s); rate_limited notices: {notices}"
    )


if __name__ == "__main__":
    main()
