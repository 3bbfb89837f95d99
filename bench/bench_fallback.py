"""What a ``FallbackDriver`` costs per event, and what falling back costs per call.

A ``ScriptedDriver`` plays one answer of 20,000 text deltas; it is consumed directly, through
a one-entry ``FallbackDriver``, through one with a ``ProviderLimits`` slot to take, and
through a chain whose first driver fails at once (overloaded) so the second answers.
Reported: events/s and the cost per event the chain adds, in CPU time, best of 15
interleaved rounds (the machine is shared: wall time and single runs swing by 2x). Then
the cost of one fallback: calls/s of a short answer with and without a failing first
driver.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from agentcore import FallbackDriver, ModelRequest, ProviderLimits
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import ErrorReceived, UserMessage

DELTAS = 20_000
ROUNDS = 15
REQUEST = ModelRequest(messages=(UserMessage("u", "go"),))
ANSWER = text_turn("x" * DELTAS, chunk=1, model="m")
OVERLOADED = [ErrorReceived("overloaded", "OVERLOADED", True, timestamp=1)]


async def _consume(driver: Any) -> int:
    count = 0
    async for _ in driver.receive(REQUEST):
        count += 1
    return count


async def _timed(driver: Any) -> tuple[int, float]:
    start = time.process_time()
    count = await _consume(driver)
    return count, time.process_time() - start


def _best(cases: dict[str, Callable[[], Any]]) -> dict[str, tuple[int, float]]:
    """Each case's event count and best CPU time, the cases interleaved round by round."""
    best = {label: (0, float("inf")) for label in cases}

    async def rounds() -> None:
        for _ in range(ROUNDS):
            for label, make in cases.items():
                count, seconds = await _timed(make())
                best[label] = (count, min(best[label][1], seconds))

    asyncio.run(rounds())
    return best


def _report(label: str, count: int, seconds: float, base: float | None) -> None:
    extra = "" if base is None else f"  +{(seconds - base) / count * 1e9:6.0f} ns/event"
    print(f"  {label:<46} {count / seconds:>11,.0f} events/s{extra}")


def main() -> None:
    limits = ProviderLimits({"scripted": 4})
    cases: dict[str, Callable[[], Any]] = {
        "ScriptedDriver alone": lambda: ScriptedDriver([ANSWER]),
        "FallbackDriver([driver])": lambda: FallbackDriver([ScriptedDriver([ANSWER])]),
        "FallbackDriver([driver], limits=...)": lambda: FallbackDriver(
            [ScriptedDriver([ANSWER])], limits=limits
        ),
        "FallbackDriver([failing, driver])": lambda: FallbackDriver(
            [ScriptedDriver([OVERLOADED]), ScriptedDriver([ANSWER])]
        ),
    }
    results = _best(cases)
    bare = results["ScriptedDriver alone"][1]
    for label, (count, seconds) in results.items():
        _report(label, count, seconds, None if seconds == bare else bare)
    short = text_turn("hello", model="m")
    calls = 2_000

    async def many(fail: bool) -> float:
        chain = FallbackDriver(
            [ScriptedDriver([OVERLOADED] * calls), ScriptedDriver([short] * calls)]
            if fail
            else [ScriptedDriver([short] * calls)]
        )
        start = time.process_time()
        for _ in range(calls):
            await _consume(chain)
        return time.process_time() - start

    direct = fallen = float("inf")
    for _ in range(7):  # interleaved, best of each
        direct = min(direct, asyncio.run(many(False)))
        fallen = min(fallen, asyncio.run(many(True)))
    print(f"  {'short answers, no fallback':<46} {calls / direct:>11,.0f} calls/s")
    print(
        f"  {'short answers, first driver overloaded':<46} {calls / fallen:>11,.0f} calls/s"
        f"  +{(fallen - direct) / calls * 1e6:6.1f} µs/call"
    )


if __name__ == "__main__":
    main()
