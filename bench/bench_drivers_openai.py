"""OpenAI driver overhead: events/s from raw SSE bytes to agentcore stream events.

A local ReplayServer streams one long completion (20,000 content chunks, then a tool call
with 2,000 argument fragments and a usage chunk) to ``OpenAIDriver`` through the real SDK
HTTP client and SSE decoder. Reported: the whole path (socket, HTTP, SSE decode, JSON,
mapping), the normaliser alone (``NORMALISER.step`` on decoded dicts, without and with a
key to scrub), the SDK's decoded
JSON with no mapping (the floor the driver builds on) and, for scale, the SDK's typed path
(``chat.completions.create``, a pydantic model per chunk) that the driver avoids. The
server runs in the same process and loop, so its cost is in every HTTP figure; the
"server alone" line reads its bytes with a bare socket to show that share.

Each figure is the best of ``RUNS`` runs. Rates are given per wall-clock second and per
second of this process's CPU time: on a busy machine the CPU figure is the steadier one.
Target: the driver is never the bottleneck below 50,000 events/s.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlsplit

import openai

from agentcore import ModelRequest
from agentcore.drivers.openai import NORMALISER, OpenAIDriver, initial_state
from agentcore.drivers.testing import ReplayServer, ScriptedResponse, rechunk, sse_response
from agentcore.events import UserMessage

RUNS = 3
TEXT_CHUNKS = 20_000
ARG_CHUNKS = 2_000
STREAM_CHUNKS = TEXT_CHUNKS + ARG_CHUNKS + 4
"""Chunks in the stream: a role chunk, the text, the tool call's start, its fragments,
the finish chunk and the usage chunk."""
REQUEST = ModelRequest(messages=(UserMessage(message_id="u", content="go"),))
KEY = "sk-proj-" + "x" * 48
"""A key shaped like OpenAI's, for the figure with secret scrubbing on."""


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


async def _driver_run(response: ScriptedResponse, key: str = "k") -> int:
    """One call; ``key`` "k" is too short to be scrubbed, ``KEY`` is scrubbed from every delta."""
    async with ReplayServer([response]) as server:
        driver = OpenAIDriver("gpt-4.1", api_key=key, base_url=server.base_url + "/v1")
        count = 0
        async for _ in driver.receive(REQUEST):
            count += 1
        await driver.aclose()
        return count


async def _keyed_run(response: ScriptedResponse) -> int:
    return await _driver_run(response, KEY)


async def _sdk_typed_run(response: ScriptedResponse) -> int:
    async with ReplayServer([response]) as server:
        client = openai.AsyncOpenAI(api_key="k", base_url=server.base_url + "/v1", max_retries=0)
        stream = await client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": "go"}], stream=True
        )
        count = 0
        async for _ in stream:
            count += 1
        await client.close()
        return count


async def _sdk_raw_run(response: ScriptedResponse) -> int:
    async with ReplayServer([response]) as server:
        client = openai.AsyncOpenAI(api_key="k", base_url=server.base_url + "/v1", max_retries=0)
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
        await client.close()
        return count


async def _server_only_run(response: ScriptedResponse) -> int:
    """Read the response's bytes with a bare socket: what the in-process server costs."""
    async with ReplayServer([response]) as server:
        port = urlsplit(server.base_url).port
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 0\r\n\r\n")
        tail = b""
        while not tail.endswith(b"\r\n0\r\n\r\n"):
            data = await reader.read(1 << 16)
            if not data:
                raise RuntimeError("the server closed the connection early")
            tail = (tail + data)[-16:]
        writer.close()
        return STREAM_CHUNKS


def _mapping_only(decoded: list[dict[str, object]], keys: tuple[str, ...] = ()) -> int:
    step = NORMALISER.step
    state = initial_state(model="m", message_id="x", keys=keys)
    count = 0
    for chunk in decoded:
        state, events = step(state, chunk, 0)
        count += len(events)
    return count + len(NORMALISER.finish(state, 0)[1])


def _best(run: Callable[[], int], runs: int = RUNS) -> tuple[int, float, float]:
    """``run()``'s count with its best wall and best CPU seconds over ``runs`` runs."""
    walls: list[float] = []
    cpus: list[float] = []
    count = 0
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        count = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return count, min(walls), min(cpus)


def _report(label: str, measured: tuple[int, float, float], unit: str = "events") -> None:
    count, wall, cpu = measured
    print(
        f"  {label:<46} {count:>6} {unit} {wall * 1000:7.1f} ms"
        f" {count / wall:>9,.0f}/s wall {count / cpu:>9,.0f}/s cpu"
    )


def _http(
    run: Callable[[ScriptedResponse], Coroutine[Any, Any, int]], pieces: tuple[bytes, ...]
) -> int:
    return asyncio.run(run(sse_response(pieces)))


def _http_figures(label: str, pieces: tuple[bytes, ...]) -> None:
    """The driver, the SDK under it, and the server under both, for one way of writing."""
    print(f"  {label}:")
    _report("  driver, SSE bytes -> events", _best(lambda: _http(_driver_run, pieces)))
    _report("  the same, scrubbing a key", _best(lambda: _http(_keyed_run, pieces)))
    _report("  SDK decoded JSON, no mapping", _best(lambda: _http(_sdk_raw_run, pieces)), "chunks")
    _report(
        "  server alone, bytes read by a bare socket",
        _best(lambda: _http(_server_only_run, pieces)),
        "chunks",
    )


def main() -> None:
    decoded = chunks()
    assert len(decoded) == STREAM_CHUNKS
    raw = sse_bytes(decoded)
    print(f"  stream: {len(decoded)} chunks, {len(raw) / 1e6:.1f} MB of SSE, best of {RUNS}")
    _report("normaliser only (no key)", _best(lambda: _mapping_only(decoded)))
    _report("normaliser only (scrubbing a key)", _best(lambda: _mapping_only(decoded, (KEY,))))
    _http_figures("16 KiB writes", rechunk([raw], [16_384]))
    _http_figures("one write per SSE event", sse_response(raw).chunks)
    typed = _best(lambda: _http(_sdk_typed_run, rechunk([raw], [16_384])), runs=1)
    _report("SDK typed chunks (16 KiB writes, one run)", typed, "chunks")


if __name__ == "__main__":
    main()
