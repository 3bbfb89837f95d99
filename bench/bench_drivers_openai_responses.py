"""OpenAI Responses driver overhead: events/s from raw SSE bytes to agentcore stream events.

A local ReplayServer streams one long response (20,000 ``output_text.delta`` events, then
a function call with 2,000 argument deltas and ``response.completed``) to
``OpenAIResponsesDriver`` through the real SDK HTTP client and SSE decoder. Reported: the
whole path (socket, HTTP, SSE decode, JSON, mapping) with 16 KiB writes and with one write
per SSE event, the normaliser alone (``NORMALISER.step`` on decoded dicts, without and with a key to
scrub) and, for
scale, the SDK's typed path (``responses.create``, a pydantic model per event) that the
driver avoids. The server runs in the same process and loop, so its cost is in every HTTP
figure. Target: the driver is never the bottleneck below 50,000 events/s.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import openai

from agentcore import ModelRequest
from agentcore.drivers.openai_responses import NORMALISER, OpenAIResponsesDriver, initial_state
from agentcore.drivers.testing import ReplayServer, ScriptedResponse, rechunk, sse_response
from agentcore.events import UserMessage

TEXT_DELTAS = 20_000
ARG_DELTAS = 2_000
MODEL = "gpt-4.1-2025-04-14"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u", content="go"),))
KEY = "sk-proj-" + "x" * 48
"""A key shaped like OpenAI's, for the figure with secret scrubbing on."""


def events() -> list[dict[str, Any]]:
    """The decoded events of the benchmark stream."""
    response = {"id": "resp_bench", "object": "response", "model": MODEL, "status": "in_progress"}
    message = {"id": "msg_b", "type": "message", "role": "assistant", "content": []}
    call = {"id": "fc_b", "type": "function_call", "call_id": "call_b", "name": "f"}
    out: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": message},
    ]
    out += [
        {
            "type": "response.output_text.delta",
            "item_id": "msg_b",
            "output_index": 0,
            "content_index": 0,
            "delta": f"tok{i} ",
        }
        for i in range(TEXT_DELTAS)
    ]
    out.append({"type": "response.output_item.added", "output_index": 1, "item": call})
    out += [
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_b",
            "output_index": 1,
            "delta": '"x",',
        }
        for _ in range(ARG_DELTAS)
    ]
    out.append({"type": "response.output_item.done", "output_index": 1, "item": call})
    usage = {"input_tokens": 10, "output_tokens": TEXT_DELTAS, "total_tokens": TEXT_DELTAS + 10}
    done = {**response, "status": "completed", "usage": usage}
    out.append({"type": "response.completed", "response": done})
    for number, event in enumerate(out):
        event["sequence_number"] = number
    return out


def sse_bytes(decoded: list[dict[str, Any]]) -> bytes:
    return b"".join(
        b"event: %s\ndata: %s\n\n"
        % (e["type"].encode(), json.dumps(e, separators=(",", ":")).encode())
        for e in decoded
    )


async def _driver_run(response: ScriptedResponse) -> tuple[int, float]:
    async with ReplayServer([response]) as server:
        driver = OpenAIResponsesDriver("gpt-4.1", api_key="k", base_url=server.base_url + "/v1")
        start = time.perf_counter()
        count = 0
        async for _ in driver.receive(REQUEST):
            count += 1
        elapsed = time.perf_counter() - start
        await driver.aclose()
        return count, elapsed


async def _sdk_typed_run(response: ScriptedResponse) -> tuple[int, float]:
    async with ReplayServer([response]) as server:
        client = openai.AsyncOpenAI(api_key="k", base_url=server.base_url + "/v1", max_retries=0)
        start = time.perf_counter()
        stream = await client.responses.create(model="gpt-4.1", input="go", stream=True)
        count = 0
        async for _ in stream:
            count += 1
        elapsed = time.perf_counter() - start
        await client.close()
        return count, elapsed


def _mapping_only(decoded: list[dict[str, Any]], keys: tuple[str, ...] = ()) -> tuple[int, float]:
    step = NORMALISER.step
    state = initial_state(model="m", message_id="x", keys=keys)
    start = time.perf_counter()
    count = 0
    for event in decoded:
        state, events = step(state, event, 0)
        count += len(events)
    return count, time.perf_counter() - start


def _report(label: str, count: int, seconds: float, unit: str = "events") -> None:
    rate = count / seconds
    print(f"  {label:<52} {count:>7} {unit} {seconds * 1000:8.1f} ms  {rate:>10,.0f} {unit}/s")


def main() -> None:
    decoded = events()
    raw = sse_bytes(decoded)
    print(f"  stream: {len(decoded)} SSE events, {len(raw) / 1e6:.1f} MB")
    _report("normaliser only (no key)", *_mapping_only(decoded))
    _report("normaliser only (scrubbing a key)", *_mapping_only(decoded, (KEY,)))
    for size, label in ((16_384, "16 KiB writes"), (None, "one write per SSE event")):
        response = sse_response(rechunk([raw], [size]) if size else raw)
        _report(f"driver, SSE bytes -> events ({label})", *asyncio.run(_driver_run(response)))
    typed = asyncio.run(_sdk_typed_run(sse_response(rechunk([raw], [16_384]))))
    _report("SDK typed events, no mapping (16 KiB writes)", *typed, "events")


if __name__ == "__main__":
    main()
