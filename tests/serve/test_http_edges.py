"""``agentcore serve`` at its edges, for real over HTTP: what a stream opens and keeps
alive with, a key a user pastes, a client that leaves mid-run, steering and follow-ups,
and the Vercel resume route joining a run in progress.

Tests the private module ``agentcore._app.serve_model``: the demo's story."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx2

from agentcore._app.serve_model import _STORY

from .server_kit import datas, parse_sse, serving

KEY = "sk-ant-api03-AbCdEf0123456789xyzAbCdEf0123456789"


async def _raw(response: httpx2.Response, seconds: float) -> bytes:
    got = b""

    async def read() -> None:
        nonlocal got
        async for chunk in response.aiter_bytes():
            got += chunk

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(read(), seconds)
    return got


async def _until(response: httpx2.Response, marker: str) -> str:
    text = ""
    async for chunk in response.aiter_text():
        text += chunk
        if marker in text:
            break
    return text


async def _idle(client: httpx2.AsyncClient, url: str) -> dict[str, Any]:
    for _ in range(500):
        state: dict[str, Any] = (await client.get(f"{url}/state")).json()
        if not state["running"] and state["activity"] == "idle":
            return state
        await asyncio.sleep(0.02)
    raise AssertionError("the agent never went idle")


def test_a_stream_opens_with_retry_and_keeps_alive_with_lf_only_comments() -> None:
    async def main() -> None:
        async with (
            serving(ping=0.2, retry_ms=1500) as base,
            httpx2.AsyncClient(timeout=10) as client,
        ):
            agent = (await client.post(f"{base}/agents", json={})).json()["agent_id"]
            for protocol in ("agentcore", "ag-ui", "vercel"):
                url = f"{base}/agents/{agent}/events"
                async with client.stream("GET", url, params={"protocol": protocol}) as response:
                    assert response.headers["content-type"].startswith("text/event-stream")
                    raw = await _raw(response, 0.7)
                assert raw.startswith(b"retry: 1500\n\n")
                assert raw.count(b": keep-alive\n\n") >= 2, raw
                assert b"\r" not in raw

    asyncio.run(main())


def test_a_key_a_user_pastes_reaches_no_stream_and_no_route() -> None:
    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            agent = (await client.post(f"{base}/agents", json={})).json()["agent_id"]
            url = f"{base}/agents/{agent}"
            await client.post(f"{url}/messages", json={"text": f"my key is {KEY}"})
            await _idle(client, url)
            seen = []
            for protocol, end in (
                ("agentcore", "event: agent_end"),
                ("ag-ui", "RUN_FINISHED"),
                ("vercel", '"finish"'),
            ):
                params = {"protocol": protocol, "after": "0"}
                async with client.stream("GET", f"{url}/events", params=params) as response:
                    seen.append(await _until(response, end))
            for route in ("state", "timeline", "journal", "state_at?seq=3"):
                seen.append((await client.get(f"{url}/{route}")).text)
            assert "my key is [REDACTED]" in seen[0]
            assert "[REDACTED]" in seen[3]  # the state
            assert not [s for s in seen if KEY in s or KEY[:20] in s]

    asyncio.run(main())


def test_a_client_that_leaves_mid_run_cancels_nothing() -> None:
    async def main() -> None:
        async with serving(delay=0.001) as base, httpx2.AsyncClient(timeout=10) as client:
            agent = (await client.post(f"{base}/agents", json={})).json()["agent_id"]
            url = f"{base}/agents/{agent}"
            async with client.stream("GET", f"{url}/events") as response:
                await client.post(f"{url}/messages", json={"text": "tell me a story"})
                await _until(response, "text_delta")  # then the client goes away
            state = await _idle(client, url)
            last = state["messages"][-1]
            assert last["data"]["parts"][0]["text"] == _STORY.rstrip("\n")
            assert last["data"]["stop_reason"] == "end_turn"

    asyncio.run(main())


def test_steer_and_follow_up_reach_the_run() -> None:
    async def main() -> None:
        async with serving(delay=0.001) as base, httpx2.AsyncClient(timeout=10) as client:
            agent = (await client.post(f"{base}/agents", json={})).json()["agent_id"]
            url = f"{base}/agents/{agent}"
            await client.post(f"{url}/messages", json={"text": "tell me a story"})
            steered = await client.post(f"{url}/steer", json={"text": "shorter please"})
            followed = await client.post(f"{url}/follow_up", json={"text": "and then?"})
            assert steered.status_code == followed.status_code == 202
            assert (await client.post(f"{url}/steer", json={})).status_code == 400
            state = await _idle(client, url)
            said = [m["data"]["content"] for m in state["messages"] if m["type"] == "user_message"]
            assert said == ["tell me a story", "shorter please", "and then?"]
            replies = [
                "".join(p["text"] for p in m["data"]["parts"] if p["type"] == "text")
                for m in state["messages"]
                if m["type"] == "assistant_message"
            ]
            assert replies[-2:] == ["You said: shorter please", "You said: and then?"]

    asyncio.run(main())


def test_the_vercel_resume_route_joins_the_run_in_progress() -> None:
    async def main() -> None:
        async with serving(delay=0.002) as base, httpx2.AsyncClient(timeout=20) as client:
            chat = {
                "id": "c9",
                "messages": [
                    {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "story"}]}
                ],
            }
            first: list[Any] = []

            async def post() -> None:
                async with client.stream("POST", f"{base}/chat", json=chat) as response:
                    first.extend(datas(await _until(response, "[DONE]")))

            posting = asyncio.create_task(post())
            for _ in range(200):
                state = await client.get(f"{base}/agents/c9/state")
                if state.status_code == 200 and state.json()["running"]:
                    break
                await asyncio.sleep(0.01)
            async with client.stream("GET", f"{base}/chat/c9/stream") as response:
                assert response.status_code == 200
                assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
                resumed = datas(await _until(response, "[DONE]"))
            await posting
            assert resumed[-1] == first[-1] == "[DONE]"
            assert resumed[0] == first[0] == {"type": "start", "messageId": first[0]["messageId"]}
            for chunks in (first, resumed):
                text = "".join(c["delta"] for c in chunks[:-1] if c["type"] == "text-delta")
                assert text == _STORY.rstrip("\n")
            assert (await client.get(f"{base}/chat/c9/stream")).status_code == 204
            assert resumed[-2] == first[-2] == {"type": "finish", "finishReason": "stop"}

    asyncio.run(main())


def test_parse_sse_reads_what_the_server_frames() -> None:
    frames = parse_sse("id: a:1.0\nevent: x\ndata: 1\n\n: keep-alive\n\ndata: [DONE]\n\n")
    assert frames == [{"id": "a:1.0", "event": "x", "data": "1"}, {"data": "[DONE]"}]


def test_deeply_nested_json_is_a_bad_request_on_every_route_that_reads_a_body() -> None:
    """JSON nested past the parser's recursion limit (200 KB, under the body cap) is the
    client's fault: 400 with the reason, never a 500 and a traceback."""
    deep = b"[" * 100_000 + b"]" * 100_000
    wrapped = b'{"messages": ' + deep + b"}"

    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=20) as client:
            await client.post(f"{base}/agents", json={"agent_id": "a1"})
            agent = "/agents/a1"
            for route in ("/agents", f"{agent}/messages", f"{agent}/steer", f"{agent}/follow_up",
                          f"{agent}/approve", "/chat", "/ag-ui"):  # fmt: skip
                for body in (deep, wrapped):
                    sent = await client.post(
                        f"{base}{route}", content=body, headers={"content-type": "application/json"}
                    )
                    assert sent.status_code == 400, (route, sent.status_code)
                    error = sent.json()["error"]  # AG-UI's parser (pydantic) has its own words
                    assert "nested too deeply" in error or "recursion limit exceeded" in error
            shallow = await client.post(f"{base}/agents/a1/steer", json=[[[["x"]]]])
            assert shallow.status_code == 400 and "JSON object" in shallow.json()["error"]

    asyncio.run(main())


def test_a_message_sent_while_the_agent_answers_is_refused_in_http_terms() -> None:
    """The 409 names the routes to use, not the Python API (``steer(msg)``)."""

    async def main() -> None:
        async with serving(delay=0.002) as base, httpx2.AsyncClient(timeout=10) as client:
            agent = (await client.post(f"{base}/agents", json={})).json()["agent_id"]
            url = f"{base}/agents/{agent}"
            await client.post(f"{url}/messages", json={"text": "tell me a story"})
            busy = await client.post(f"{url}/messages", json={"text": "weather in Paris"})
            assert busy.status_code == 409
            error = busy.json()["error"]
            assert f"POST /agents/{agent}/steer" in error and f"/agents/{agent}/follow_up" in error
            assert "(msg)" not in error and "()" not in error
            await client.post(f"{url}/interrupt")
            await _idle(client, url)
            await client.post(f"{url}/messages", json={"text": "delete notes.txt"})
            for _ in range(500):
                state = (await client.get(f"{url}/state")).json()
                if state["pending_approvals"]:
                    break
                await asyncio.sleep(0.01)
            waiting = await client.post(f"{url}/messages", json={"text": "hi"})
            assert waiting.status_code == 409
            assert f"POST /agents/{agent}/approve" in waiting.json()["error"]
            assert "approve()" not in waiting.json()["error"]

    asyncio.run(main())
