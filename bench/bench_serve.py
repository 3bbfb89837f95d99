"""Serving figures: SSE fan-out to 200 clients, encode cost per protocol, OTel overhead.

1. Fan-out: one agent streams a reply of ``DELTAS`` text deltas (a scripted model, no
   delay) with a ``Feed`` as its presenter (the server's ``flush``); the agent's
   outputs/s are measured with no client, then with 200 clients attached to one
   ``agentcore`` channel, each draining its reader in its own task (the server's side of
   SSE: encoding once, framing, the ring buffer, waking the readers; the sockets are
   left out). Every client must get every frame. Two models: one that never yields to
   the event loop, and one that yields after every event, as a driver reading each
   chunk from the network does (the readers then run between deltas). Target: 200
   clients cost the agent at most 2x, medians of ``RUNS`` alternated runs.
2. Encode cost: the outputs of that run encoded by each wire protocol, µs per output.
3. OpenTelemetry: the same outputs through ``OtelPresenter`` on an SDK tracer provider
   with no exporter, µs per output (most outputs are deltas, which only mark the first
   chunk of a model call).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

import attrs

from agentcore import Agent, MemoryJournal, ModelRequest
from agentcore._runtime.plugins import wire_protocol
from agentcore.drivers.scripted import FunctionDriver, ScriptedDriver, text_turn
from agentcore.loop import create_conversation_machine
from agentcore.presenters.recording import RecordingPresenter
from agentcore.serve import Feed, ServeConfig

DELTAS = 20_000
CLIENTS = 200
RUNS = 5
FLUSH: float = attrs.fields(ServeConfig).flush.default


def _script() -> list[list[Any]]:
    return [text_turn("x" * (DELTAS * 4), chunk=4)]


def _yielding(request: ModelRequest) -> AsyncIterator[Any]:
    """The script's one call, yielding to the event loop before each event."""

    async def events() -> AsyncIterator[Any]:
        for event in _script()[0]:
            await asyncio.sleep(0)
            yield event

    return events()


async def _run(clients: int, yielding: bool) -> tuple[float, int, list[int]]:
    journal = MemoryJournal()
    feed = Feed("bench", journal, create_conversation_machine, max_frames=DELTAS * 2, flush=FLUSH)
    recorder = RecordingPresenter()
    driver = FunctionDriver(_yielding) if yielding else ScriptedDriver(_script())
    agent = Agent(driver, presenters=[feed, recorder], journal=journal, agent_id="bench")
    protocol = wire_protocol("agentcore")
    received = [0] * clients

    async def drain(i: int) -> None:
        reader = feed.read(protocol, {}, None)
        first = reader.index
        async for _chunk in reader:
            received[i] = reader.index - first

    tasks = [asyncio.create_task(drain(i)) for i in range(clients)]
    await asyncio.sleep(0)
    started = time.perf_counter()
    await agent.prompt("go")
    await agent.drain()
    elapsed = time.perf_counter() - started
    outputs = len(recorder.records)
    for _ in range(1000):
        if all(r >= outputs for r in received):
            break
        await asyncio.sleep(0.001)
    feed.close()
    await asyncio.gather(*tasks)
    await agent.aclose()
    return outputs / elapsed, outputs, received


def _encode_cost(outputs: list[Any]) -> dict[str, float]:
    costs = {}
    for name in ("agentcore", "ag-ui", "vercel"):
        protocol = wire_protocol(name)
        best = float("inf")
        for _ in range(RUNS):
            state = protocol.initial("bench", {})
            started = time.perf_counter()
            for output in outputs:
                state, _ = protocol.encode(state, "bench", output)
            best = min(best, time.perf_counter() - started)
        costs[name] = best / len(outputs) * 1e6
    return costs


def _otel_cost(outputs: list[Any]) -> float:
    from opentelemetry.sdk.trace import TracerProvider

    from agentcore.presenters.otel import OtelPresenter

    best = float("inf")
    for _ in range(RUNS):
        presenter = OtelPresenter(TracerProvider())
        started = time.perf_counter()
        for output in outputs:
            presenter.present("bench", output)
        best = min(best, time.perf_counter() - started)
    return best / len(outputs) * 1e6


def _fan_out(yielding: bool) -> None:
    alone, with_clients = [], []
    for _ in range(RUNS):  # alternate, as the machine is shared and noisy
        rate, _, _ = asyncio.run(_run(0, yielding))
        alone.append(rate)
        rate, outputs, received = asyncio.run(_run(CLIENTS, yielding))
        assert all(r == outputs for r in received), "a client missed frames"
        with_clients.append(rate)
    a, c = statistics.median(alone), statistics.median(with_clients)
    model = "yields per event" if yielding else "never yields"
    print(f"model {model}, flush {FLUSH * 1000:g} ms, medians of {RUNS}:")
    print(f"  agent outputs/s, no client:     {a:>10,.0f}")
    slowdown = f"slowdown {a / c:.2f}x; target <= 2x"
    print(f"  agent outputs/s, {CLIENTS} clients:  {c:>10,.0f} ({slowdown})")
    print(f"  frames delivered to clients/s:  {c * CLIENTS:>10,.0f}")


def main() -> None:
    _fan_out(yielding=False)
    _fan_out(yielding=True)

    async def record() -> list[Any]:
        recorder = RecordingPresenter()
        agent = Agent(ScriptedDriver(_script()), presenters=[recorder], agent_id="bench")
        await agent.prompt("go")
        await agent.aclose()
        return recorder.outputs()

    outputs = asyncio.run(record())
    for name, cost in _encode_cost(outputs).items():
        print(f"encode {name:<10} {cost:6.2f} µs/output")
    print(f"otel presenter    {_otel_cost(outputs):6.2f} µs/output")
