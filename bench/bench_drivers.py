"""Driver overhead: events/s from raw SSE bytes to agentcore stream events, per provider.

Each provider function replays a long stream (20,000 text deltas) from a local
``ReplayServer`` through the official SDK's HTTP client and SSE decoder and the driver's
mapping, and reports the whole path and the mapping alone. Target: the driver is never the
bottleneck below 50,000 events/s per process.
"""

from __future__ import annotations

import asyncio
import json
import time

from agentcore import ModelRequest
from agentcore.drivers.testing import ReplayServer, rechunk, sse_response
from agentcore.events import UserMessage

DELTAS = 20_000
KEY = "sk-ant-api03-" + "x" * 80
"""A key shaped like Anthropic's, for the figure with secret scrubbing on."""
REQUEST = ModelRequest(messages=(UserMessage("u", "go"),))


def _sse(event: dict[str, object]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def anthropic_stream(deltas: int = DELTAS) -> list[bytes]:
    """A text-only Anthropic stream with ``deltas`` text deltas, one SSE event per item."""
    usage = {"input_tokens": 10, "output_tokens": 1}
    head = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_bench",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "bench",
                "usage": usage,
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    delta = _sse(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "word "},
        }
    )
    tail = [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": deltas},
        },
        {"type": "message_stop"},
    ]
    return [*map(_sse, head), *([delta] * deltas), *map(_sse, tail)]


def _report(name: str, events: int, seconds: float) -> None:
    print(f"{name:<44} {events:>7} events  {seconds * 1000:8.1f} ms  {events / seconds:>10,.0f}/s")


def bench_anthropic() -> None:
    from agentcore.drivers.anthropic import NORMALISER, AnthropicDriver, initial_state

    stream = anthropic_stream()
    chunks = rechunk(stream, [16_384])  # what a socket read hands the SDK

    async def through_sdk(key: str = "k", calls: int = 3) -> list[tuple[int, float]]:
        """The first call pays the SDK's one-off imports and model building: time both.

        ``key`` is the driver's key: the default is too short to be scrubbed, ``KEY`` is
        scrubbed from every delta."""
        runs = []
        async with ReplayServer([sse_response(chunks)] * calls) as server:
            driver = AnthropicDriver("bench", api_key=key, base_url=server.base_url)
            for _ in range(calls):
                start = time.perf_counter()
                count = 0
                async for _ in driver.receive(REQUEST):
                    count += 1
                runs.append((count, time.perf_counter() - start))
            await driver.aclose()
        return runs

    first, *rest = asyncio.run(through_sdk())
    _report("anthropic: SSE bytes -> events, first call", *first)
    _report("anthropic: SSE bytes -> events (SDK + driver)", *min(rest, key=lambda r: r[1]))
    keyed = asyncio.run(through_sdk(KEY, calls=2))
    _report("anthropic: the same, scrubbing a key", *min(keyed, key=lambda r: r[1]))

    decoded = [json.loads(item.split(b"data: ", 1)[1]) for item in stream]
    step = NORMALISER.step
    for label, keys in (("no key", ()), ("scrubbing a key", (KEY,))):
        state = initial_state(message_id="m", model="bench", keys=keys)
        start = time.perf_counter()
        mapped = 0
        for data in decoded:
            state, events = step(state, data, 0)
            mapped += len(events)
        _report(f"anthropic: normaliser only ({label})", mapped, time.perf_counter() - start)


def main() -> None:
    bench_anthropic()


if __name__ == "__main__":
    main()
