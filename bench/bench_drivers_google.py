"""Gemini driver overhead: chunks/s from raw SSE bytes to agentcore stream events.

A local ReplayServer streams one long answer (20,000 ``streamGenerateContent`` chunks of
text, then a chunk with two function calls and the finish reason) to ``GoogleDriver``
through the google-genai SDK's API client and SSE decoder. Reported: the whole path with
16 KiB writes and with one write per chunk, the normaliser alone (without and with a key
to scrub), and, for scale, the SDK's typed path (``aio.models.generate_content_stream``:
its response converters and a pydantic model per chunk) that the driver avoids. The
server runs in the same process and loop, so its cost is in every HTTP figure.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from google import genai

from agentcore import ModelRequest
from agentcore.drivers.google import NORMALISER, GoogleDriver, initial_state
from agentcore.drivers.testing import ReplayServer, ScriptedResponse, rechunk, sse_response
from agentcore.events import UserMessage

CHUNKS = 20_000
MODEL = "gemini-2.5-flash"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u", content="go"),))
KEY = "AIzaSy" + "x" * 33
"""A key shaped like Google's, for the figure with secret scrubbing on."""


def chunks() -> list[dict[str, Any]]:
    """The decoded chunks of the benchmark stream."""

    def chunk(parts: list[Any], **candidate: Any) -> dict[str, Any]:
        body = {"content": {"role": "model", "parts": parts}, "index": 0, **candidate}
        usage = {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}
        return {
            "candidates": [body],
            "usageMetadata": usage,
            "modelVersion": MODEL,
            "responseId": "bench",
        }

    out = [chunk([{"text": f"tok{i} "}]) for i in range(CHUNKS)]
    calls = [{"functionCall": {"id": f"c{i}", "name": "f", "args": {"x": i}}} for i in range(2)]
    out.append(chunk(calls, finishReason="STOP"))
    return out


def sse_bytes(decoded: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: %s\r\n\r\n" % json.dumps(c).encode() for c in decoded)


async def _driver_run(response: ScriptedResponse) -> tuple[int, float]:
    async with (
        ReplayServer([response]) as server,
        GoogleDriver(MODEL, api_key="k", base_url=server.base_url) as driver,
    ):
        start = time.perf_counter()
        count = 0
        async for _ in driver.receive(REQUEST):
            count += 1
        return count, time.perf_counter() - start


async def _sdk_typed_run(response: ScriptedResponse) -> tuple[int, float]:
    async with ReplayServer([response]) as server:
        options = genai.types.HttpOptions(base_url=server.base_url)
        client = genai.Client(api_key="k", http_options=options)
        start = time.perf_counter()
        stream = await client.aio.models.generate_content_stream(model=MODEL, contents="go")
        count = 0
        async for _ in stream:
            count += 1
        elapsed = time.perf_counter() - start
        await client.aio.aclose()
        return count, elapsed


def _normaliser_only(
    decoded: list[dict[str, Any]], keys: tuple[str, ...] = ()
) -> tuple[int, float]:
    step = NORMALISER.step
    state = initial_state(model=MODEL, message_id="x", keys=keys)
    start = time.perf_counter()
    count = 0
    for chunk in decoded:
        state, events = step(state, chunk, 0)
        count += len(events)
    return count, time.perf_counter() - start


def _report(label: str, count: int, seconds: float, unit: str = "events") -> None:
    rate = count / seconds
    print(f"  {label:<52} {count:>7} {unit} {seconds * 1000:8.1f} ms  {rate:>10,.0f} {unit}/s")


def main() -> None:
    decoded = chunks()
    raw = sse_bytes(decoded)
    print(f"  stream: {len(decoded)} chunks, {len(raw) / 1e6:.1f} MB")
    _report("normaliser only (no key)", *_normaliser_only(decoded))
    _report("normaliser only (scrubbing a key)", *_normaliser_only(decoded, (KEY,)))
    for size, label in ((16_384, "16 KiB writes"), (None, "one write per chunk")):
        response = sse_response(rechunk([raw], [size]) if size else raw)
        _report(f"driver, SSE bytes -> events ({label})", *asyncio.run(_driver_run(response)))
    typed = asyncio.run(_sdk_typed_run(sse_response(rechunk([raw], [16_384]))))
    _report("SDK typed chunks, no mapping (16 KiB writes)", *typed, "chunks")


if __name__ == "__main__":
    main()
