"""OpenAI driver overhead: events/s from raw SSE bytes to agentcore stream events.

A local ReplayServer streams one long completion (20,000 content chunks, then a tool call
with 2,000 argument fragments and a usage chunk) to ``OpenAIDriver`` through the real SDK
HTTP client and SSE decoder. Reported: the whole path (socket, HTTP, SSE decode, JSON,
mapping), the mapping alone (``ChunkMapper.feed`` on decoded dicts), the SDK's decoded
JSON with no mapping (the floor the driver builds on) and, for scale, the SDK's typed path
(``chat.completions.create``, a pydantic model per chunk) that the driver avoids. The
server runs in the same process and loop, so its cost is in every HTTP figure.
Target: the driver is never the bottleneck below 50,000 events/s.
"""

from __future__ import annotations

import asyncio
import json
import time

import openai

from agentcore import ModelRequest
from agentcore.events import UserMessage
from drivers._openai_stream import ChunkMapper
from drivers.openai import OpenAIDriver
from drivers.testing import ReplayServer, ScriptedResponse, rechunk, sse_response

TEXT_CHUNKS = 20_000
ARG_CHUNKS = 2_000
REQUEST = ModelRequest(messages=(UserMessage(message_id="u", content="go"),))


def _chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1763800000,
        "model": "gpt-4.1",
        "system_fingerprint": "fp_bench",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def chunks() -> list[dict[str, object]]:
    """The decoded chunks of the benchmark stream."""
    out = [_chunk({"role": "assistant", "content": ""})]
    out += [_chunk({"content": f"tok{i} "}) for i in range(TEXT_CHUNKS)]
    call = {"index": 0, "id": "call_1", "type": "function"}
    out.append(_chunk({"tool_calls": [{**call, "function": {"name": "f", "arguments": ""}}]}))
    out += [
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"x",'}}]})
        for _ in range(ARG_CHUNKS)
    ]
    out.append(_chunk({}, "tool_calls"))
    usage = {"prompt_tokens": 10, "completion_tokens": TEXT_CHUNKS, "total_tokens": 0}
    out.append({"id": "chatcmpl-bench", "model": "gpt-4.1", "choices": [], "usage": usage})
    return out


def sse_bytes(decoded: list[dict[str, object]]) -> bytes:
    lines = (b"data: " + json.dumps(c, separators=(",", ":")).encode() + b"\n\n" for c in decoded)
    return b"".join(lines) + b"data: [DONE]\n\n"


async def _driver_run(response: ScriptedResponse) -> tuple[int, float]:
    async with ReplayServer([response]) as server:
        driver = OpenAIDriver("gpt-4.1", api_key="k", base_url=server.base_url + "/v1")
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
        stream = await client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": "go"}], stream=True
        )
        count = 0
        async for _ in stream:
            count += 1
        elapsed = time.perf_counter() - start
        await client.close()
        return count, elapsed


async def _sdk_raw_run(response: ScriptedResponse) -> tuple[int, float]:
    async with ReplayServer([response]) as server:
        client = openai.AsyncOpenAI(api_key="k", base_url=server.base_url + "/v1", max_retries=0)
        start = time.perf_counter()
        stream = await client.post(
            "/chat/completions",
            body={"model": "gpt-4.1", "messages": [], "stream": True},
            cast_to=object,
            stream=True,
            stream_cls=openai.AsyncStream[object],
        )
        count = 0
        async for _ in stream:
            count += 1
        elapsed = time.perf_counter() - start
        await client.close()
        return count, elapsed


def _mapping_only(decoded: list[dict[str, object]]) -> tuple[int, float]:
    mapper = ChunkMapper(model="m", message_id="x")
    start = time.perf_counter()
    count = 0
    for chunk in decoded:
        count += len(mapper.feed(chunk, 0))
    count += len(mapper.finish(0))
    return count, time.perf_counter() - start


def _report(label: str, count: int, seconds: float, unit: str = "events") -> None:
    rate = count / seconds
    print(f"  {label:<52} {count:>7} {unit} {seconds * 1000:8.1f} ms  {rate:>10,.0f} {unit}/s")


def main() -> None:
    decoded = chunks()
    raw = sse_bytes(decoded)
    print(f"  stream: {len(decoded)} chunks, {len(raw) / 1e6:.1f} MB of SSE")
    _report("mapping only (ChunkMapper.feed)", *_mapping_only(decoded))
    for size, label in ((16_384, "16 KiB writes"), (None, "one write per SSE event")):
        pieces = rechunk([raw], [size]) if size else None
        response = sse_response(pieces if pieces is not None else raw)
        count, seconds = asyncio.run(_driver_run(response))
        _report(f"driver, SSE bytes -> events ({label})", count, seconds)
    count, seconds = asyncio.run(_sdk_raw_run(sse_response(rechunk([raw], [16_384]))))
    _report("SDK decoded JSON, no mapping (16 KiB writes)", count, seconds, "chunks")
    count, seconds = asyncio.run(_sdk_typed_run(sse_response(rechunk([raw], [16_384]))))
    _report("SDK typed chunks, no mapping (16 KiB writes)", count, seconds, "chunks")


if __name__ == "__main__":
    main()
