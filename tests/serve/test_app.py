"""``agentcore serve`` for real: uvicorn on 127.0.0.1, HTTP and SSE clients.

A run streams over SSE in every protocol; a client that drops and comes back with its
Last-Event-ID misses nothing and gets nothing twice; 200 clients on one agent each get
every event in order; a server restarted mid-session resumes its agents from their
journals and reconnecting clients lose nothing; the token, body limit and CORS rules hold.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import random

import httpx2

from agentcore import from_dict

from .server_kit import datas, parse_sse, serving


def run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


async def _create(client: httpx2.AsyncClient, base: str, **body: object) -> str:
    response = await client.post(f"{base}/agents", json=body)
    assert response.status_code == 201, response.text
    agent_id: str = response.json()["agent_id"]
    return agent_id


async def _read_until(response: httpx2.Response, marker: str) -> str:
    text = ""
    async for chunk in response.aiter_text():
        text += chunk
        if marker in text:
            break
    return text


def test_a_run_streams_and_reconnecting_loses_nothing() -> None:
    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            agent = await _create(client, base)
            events = f"{base}/agents/{agent}/events"
            async with client.stream("GET", events, params={"after": "0"}) as full:
                posted = await client.post(
                    f"{base}/agents/{agent}/messages", json={"text": "weather in Paris"}
                )
                assert posted.status_code == 202
                whole = await _read_until(full, "event: agent_end")
            frames = parse_sse(whole)
            outputs = [from_dict(json.loads(f["data"])) for f in frames]
            text = "".join(o.text for o in outputs if o.type == "text_delta")
            assert "Paris: 18 °C" in text
            # drop after any frame: Last-Event-ID gives exactly the rest, once
            for cut in random.Random(3).sample(range(len(frames) - 1), 8):
                headers = {"Last-Event-ID": frames[cut]["id"]}
                async with client.stream("GET", events, headers=headers) as again:
                    rest = parse_sse(await _read_until(again, "event: agent_end"))
                assert [f["id"] for f in rest] == [f["id"] for f in frames[cut + 1 :]]
                assert rest == frames[cut + 1 :]
            state = (await client.get(f"{base}/agents/{agent}/state")).json()
            assert state["activity"] == "idle" and len(state["messages"]) == 4

    run(main())


def test_protocols_over_http_and_their_run_endpoints() -> None:
    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            body = {
                "threadId": "t1",
                "runId": "client-run-1",
                "messages": [{"id": "u1", "role": "user", "content": "hello"}],
            }
            response = await client.post(f"{base}/ag-ui", json=body)
            events = datas(response.text)
            assert events[0]["type"] == "RUN_STARTED"
            assert events[0]["runId"] == "client-run-1" and events[-1]["type"] == "RUN_FINISHED"
            said = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
            assert said == "You said: hello"

            chat = {
                "id": "c1",
                "messages": [
                    {
                        "id": "m1",
                        "role": "user",
                        "parts": [{"type": "text", "text": "delete notes.txt"}],
                    }
                ],
            }
            response = await client.post(f"{base}/chat", json=chat)
            assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
            chunks = datas(response.text)
            assert chunks[-1] == "[DONE]"
            request = next(
                c for c in chunks if c != "[DONE]" and c["type"] == "tool-approval-request"
            )
            message_id = chunks[0]["messageId"]
            answer = {
                "id": "c1",
                "messages": [
                    chat["messages"][0],
                    {
                        "id": message_id,
                        "role": "assistant",
                        "parts": [
                            {
                                "type": "tool-delete_file",
                                "toolCallId": request["toolCallId"],
                                "state": "approval-responded",
                                "approval": {"id": request["approvalId"], "approved": True},
                            }
                        ],
                    },
                ],
            }
            response = await client.post(f"{base}/chat", json=answer)
            chunks = datas(response.text)
            assert chunks[0] == {"type": "start", "messageId": message_id}  # the same UI message
            output = next(
                c for c in chunks if c != "[DONE]" and c["type"] == "tool-output-available"
            )
            assert "deleted notes.txt" in output["output"]
            assert (await client.get(f"{base}/chat/c1/stream")).status_code == 204

            bad = await client.get(f"{base}/agents/c1/events", params={"protocol": "nope"})
            assert bad.status_code == 400 and "agentcore" in bad.json()["error"]
            bad = await client.get(f"{base}/agents/c1/events", params={"layers": "strem"})
            assert bad.status_code == 400 and "strem" in bad.json()["error"]

    run(main())


def test_interrupt_approval_and_inspector_routes() -> None:
    async def main() -> None:
        async with serving(delay=0.001) as base, httpx2.AsyncClient(timeout=10) as client:
            agent = await _create(client, base)
            url = f"{base}/agents/{agent}"
            await client.post(f"{url}/messages", json={"text": "tell me a story"})
            busy = await client.post(f"{url}/messages", json={"text": "again"})
            assert busy.status_code == 409 and "steer" in busy.json()["error"]
            await asyncio.sleep(0.3)
            assert (await client.post(f"{url}/interrupt")).status_code == 202
            async with client.stream(
                "GET", f"{url}/events", params={"after": "0", "types": "agent_end"}
            ) as events:
                ended = parse_sse(await _read_until(events, "agent_end"))
            assert json.loads(ended[-1]["data"])["data"]["reason"] == "aborted"

            await client.post(f"{url}/messages", json={"text": "delete a.txt"})
            for _ in range(100):
                state = (await client.get(f"{url}/state")).json()
                if state["pending_approvals"]:
                    break
                await asyncio.sleep(0.02)
            call = state["pending_approvals"][0]["tool_call_id"]
            wrong = await client.post(f"{url}/approve", json={"tool_call_id": "nope"})
            assert wrong.status_code == 409 and call in wrong.json()["error"]
            assert (
                await client.post(
                    f"{url}/approve", json={"tool_call_id": call, "approved": False, "reason": "no"}
                )
            ).status_code == 202
            timeline = (await client.get(f"{url}/timeline")).json()["entries"]
            assert timeline[0]["seq"] == 1 and {"stream", "message", "state", "turn", "loop"} <= {
                o["layer"] for e in timeline for o in e["outputs"]
            }
            at = (await client.get(f"{url}/state_at", params={"seq": "3"})).json()
            assert at["seq"] == 3 and at["text"]
            assert (await client.get(f"{url}/state_at", params={"seq": "99999"})).status_code == 400
            journal = await client.get(f"{url}/journal")
            lines = journal.text.splitlines()
            assert (
                json.loads(lines[0])["seq"] == 1
                and "attachment" in journal.headers["content-disposition"]
            )

    run(main())


def test_two_hundred_clients_each_get_every_event_in_order() -> None:
    async def main() -> None:
        async with (
            serving() as base,
            httpx2.AsyncClient(timeout=30, limits=httpx2.Limits(max_connections=300)) as client,
        ):
            agent = await _create(client, base)
            events = f"{base}/agents/{agent}/events"
            ready = 0

            async def listen() -> list[str]:
                nonlocal ready
                async with client.stream("GET", events, params={"after": "0"}) as response:
                    ready += 1
                    return [
                        f["id"] for f in parse_sse(await _read_until(response, "event: agent_end"))
                    ]

            listeners = [asyncio.create_task(listen()) for _ in range(200)]
            while ready < 200:
                await asyncio.sleep(0.01)
            await client.post(f"{base}/agents/{agent}/messages", json={"text": "weather in Oslo"})
            got = await asyncio.gather(*listeners)
            assert len({tuple(ids) for ids in got}) == 1 and len(got[0]) > 20

    run(main())


def test_a_restarted_server_resumes_and_reconnects_lose_nothing(tmp_path: pathlib.Path) -> None:
    async def main() -> None:
        async with (
            serving(journal_dir=tmp_path, delay=0.001) as base,
            httpx2.AsyncClient(timeout=10) as client,
        ):
            agent = await _create(client, base, agent_id="kept")
            async with client.stream(
                "GET", f"{base}/agents/{agent}/events", params={"after": "0"}
            ) as response:
                await client.post(
                    f"{base}/agents/{agent}/messages", json={"text": "tell me a story"}
                )
                seen = await _read_until(response, "text_delta")
        last_id = parse_sse(seen)[-1]["id"]  # the server stops mid-run
        async with (
            serving(journal_dir=tmp_path, delay=0.0) as base,
            httpx2.AsyncClient(timeout=10) as client,
        ):
            url = f"{base}/agents/kept/events"
            async with client.stream("GET", url, headers={"Last-Event-ID": last_id}) as response:
                rest = parse_sse(await _read_until(response, "event: agent_end"))
            async with client.stream("GET", url, params={"after": "0"}) as response:
                whole = parse_sse(await _read_until(response, "event: agent_end"))
            ids = [f["id"] for f in whole]
            assert [f["id"] for f in rest] == ids[ids.index(last_id) + 1 :]
            assert len(set(ids)) == len(ids)

    run(main())


def test_token_body_limit_and_cors() -> None:
    async def main() -> None:
        async with (
            serving(token="s3cret", max_body=100, allow_origins=("http://ui.example",)) as base,
            httpx2.AsyncClient(timeout=10) as client,
        ):
            assert (await client.get(f"{base}/")).status_code == 200  # the page is public
            assert "agentcore" in (await client.get(f"{base}/static/app.js")).text
            denied = await client.post(f"{base}/agents", json={})
            assert denied.status_code == 401 and "s3cret" not in denied.text
            auth = {"Authorization": "Bearer s3cret"}
            assert (await client.post(f"{base}/agents", json={}, headers=auth)).status_code == 201
            assert (
                await client.get(f"{base}/agents", params={"token": "s3cret"})
            ).status_code == 200
            big = await client.post(
                f"{base}/agents", content=b"{" + b" " * 200 + b"}", headers=auth
            )
            assert big.status_code == 413
            preflight = await client.options(
                f"{base}/agents",
                headers={"Origin": "http://ui.example", "Access-Control-Request-Method": "POST"},
            )
            assert preflight.headers["access-control-allow-origin"] == "http://ui.example"
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            plain = await client.get(f"{base}/agents", headers={"Origin": "http://evil.example"})
            assert "access-control-allow-origin" not in plain.headers

    run(main())
