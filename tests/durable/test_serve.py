"""``agentcore serve`` in front of durable agents: uvicorn on 127.0.0.1, a real worker
process and PostgreSQL. A browser's SSE stream gets a durable run's text deltas while the
worker's model call streams; a client that comes back with its Last-Event-ID gets the
rest from the journal, frame for frame as it was sent live; the AG-UI and Vercel run
endpoints stream a durable run; a restarted server serves the agents the database holds.

Tests the private module ``agentcore._app.serve``: the demo agent ``agentcore serve`` runs,
here durably."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
import uvicorn
from harness import Cluster, fresh_database

from agentcore._app.serve import agent_options
from agentcore.serve import ServeConfig, create_app
from tests.serve.server_kit import datas, free_port, parse_sse


@pytest.fixture(scope="module")
def cluster(postgres_server: Any) -> Iterator[Cluster]:
    one = Cluster(fresh_database(postgres_server, "serving"), 1)
    try:
        yield one
    finally:
        assert one.close() == {0: 0}


@contextlib.asynccontextmanager
async def serving(url: str, definition: str) -> AsyncIterator[str]:
    port = free_port()
    config = ServeConfig(agent_options(None, 0.0), database_url=url, definition=definition)
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), host="127.0.0.1", port=port, log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


class Stream:
    """An SSE response read up to a marker, and on from there."""

    def __init__(self, response: httpx2.Response) -> None:
        self.chunks = response.aiter_text()
        self.text = ""

    async def until(self, marker: str) -> list[dict[str, str]]:
        while marker not in self.text:
            self.text += await anext(self.chunks)
        return parse_sse(self.text)


async def _frames_until(response: httpx2.Response, marker: str) -> list[dict[str, str]]:
    return await Stream(response).until(marker)


def test_a_browser_gets_deltas_live_and_resumes_from_the_journal(cluster: Cluster) -> None:
    async def main() -> None:
        async with (
            serving(cluster.url, "slow") as base,
            httpx2.AsyncClient(timeout=30) as client,
        ):
            created = await client.post(f"{base}/agents", json={"agent_id": "browser-1"})
            assert created.status_code == 201, created.text
            events = f"{base}/agents/browser-1/events"
            async with client.stream("GET", events, params={"after": "0"}) as live:
                posted = await client.post(
                    f"{base}/agents/browser-1/messages", json={"text": "talk"}
                )
                assert posted.status_code == 202
                stream = Stream(live)
                first = await stream.until("event: text_delta")
                state = (await client.get(f"{base}/agents/browser-1/state")).json()
                assert state["running"] and state["last_seq"] < 10  # the step streams on
                frames = await stream.until("event: agent_end")
            assert frames[: len(first) - 1] == first[:-1]
            outputs = [json.loads(f["data"]) for f in frames]
            text = "".join(o["data"]["text"] for o in outputs if o["type"] == "text_delta")
            assert text == "".join(f"w{i} " for i in range(60))
            ids = [f["id"] for f in frames]
            assert len(set(ids)) == len(ids)
            # the live stream is gone (its channel with it): a reconnection is replayed
            # from the journal, and gives exactly the frames sent live after its cursor
            for cut in (0, len(frames) // 3, len(frames) - 2):
                headers = {"Last-Event-ID": frames[cut]["id"]}
                async with client.stream("GET", events, headers=headers) as again:
                    replayed = await _frames_until(again, "event: agent_end")
                assert replayed == frames[cut + 1 :]
            state = (await client.get(f"{base}/agents/browser-1/state")).json()
            assert state["activity"] == "idle" and len(state["messages"]) == 2

        async with (  # a new server process follows the agents the database holds
            serving(cluster.url, "slow") as base,
            httpx2.AsyncClient(timeout=30) as client,
        ):
            listed = (await client.get(f"{base}/agents")).json()["agents"]
            assert [a["agent_id"] for a in listed] == ["browser-1"]
            headers = {"Last-Event-ID": frames[len(frames) // 2]["id"]}
            events = f"{base}/agents/browser-1/events"
            async with client.stream("GET", events, headers=headers) as again:
                replayed = await _frames_until(again, "event: agent_end")
            assert replayed == frames[len(frames) // 2 + 1 :]

    asyncio.run(main())


def test_ag_ui_and_vercel_run_endpoints_stream_a_durable_run(cluster: Cluster) -> None:
    async def main() -> None:
        async with (
            serving(cluster.url, "counter") as base,
            httpx2.AsyncClient(timeout=30) as client,
        ):
            body = {
                "threadId": "agui-1",
                "runId": "client-run-1",
                "messages": [{"id": "u1", "role": "user", "content": "hello"}],
            }
            response = await client.post(f"{base}/ag-ui", json=body)
            events = datas(response.text)
            assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
            said = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
            assert said.endswith("w5 ")
            calls = [e for e in events if e["type"] == "TOOL_CALL_START"]
            assert [c["toolCallName"] for c in calls] == ["lookup", "charge", "lookup"]
            chat = {
                "id": "chat-1",
                "messages": [
                    {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
                ],
            }
            response = await client.post(f"{base}/chat", json=chat)
            chunks = datas(response.text)
            assert chunks[-1] == "[DONE]"
            deltas = [c["delta"] for c in chunks[:-1] if c["type"] == "text-delta"]
            assert "".join(deltas).endswith("w5 ")

    asyncio.run(main())


def test_interrupt_and_approval_over_http(cluster: Cluster) -> None:
    async def main() -> None:
        async with (
            serving(cluster.url, "slow") as base,
            httpx2.AsyncClient(timeout=30) as client,
        ):
            await client.post(f"{base}/agents", json={"agent_id": "stop-1"})
            events = f"{base}/agents/stop-1/events"
            async with client.stream("GET", events, params={"after": "0"}) as live:
                await client.post(f"{base}/agents/stop-1/messages", json={"text": "talk"})
                stream = Stream(live)
                await stream.until("event: text_delta")
                stopped = await client.post(f"{base}/agents/stop-1/interrupt")
                assert stopped.status_code == 202
                frames = await stream.until("event: agent_end")
            end = json.loads(frames[-1]["data"])
            assert end["type"] == "agent_end" and end["data"]["reason"] == "aborted"

            created = await client.post(
                f"{base}/agents", json={"agent_id": "pay-1", "model": "guarded"}
            )
            assert created.json()["model"] == "guarded"
            posted = await client.post(f"{base}/agents/pay-1/messages", json={"text": "pay"})
            assert posted.status_code == 202
            for _ in range(200):
                state = (await client.get(f"{base}/agents/pay-1/state")).json()
                if state["pending_approvals"] and not state["running"]:
                    break
                await asyncio.sleep(0.05)
            (pending,) = state["pending_approvals"]
            assert pending["tool_name"] == "charge"
            approved = await client.post(
                f"{base}/agents/pay-1/approve", json={"tool_call_id": pending["tool_call_id"]}
            )
            assert approved.status_code == 202
            for _ in range(200):
                state = (await client.get(f"{base}/agents/pay-1/state")).json()
                if not state["running"] and state["activity"] == "idle":
                    break
                await asyncio.sleep(0.05)
            results = [m for m in state["messages"] if m["type"] == "tool_result_message"]
            assert [r["data"]["result"] for r in results][1] == "charged 3"

    asyncio.run(main())
