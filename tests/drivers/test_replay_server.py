"""ReplayServer: scripted HTTP/1.1 responses over real sockets, requests recorded."""

import asyncio
import pathlib

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.drivers.testing import (
    ReplayServer,
    ScriptedResponse,
    rechunk,
    sse_events,
    sse_response,
)

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "anthropic"


def test_serves_in_order_and_records_requests() -> None:
    async def run() -> None:
        responses = [
            ScriptedResponse.json(429, {"error": "slow"}, headers={"retry-after": "3"}),
            sse_response(b"event: a\ndata: 1\n\nevent: b\ndata: 2\n\n"),
        ]
        async with ReplayServer(responses) as server, httpx2.AsyncClient() as client:
            first = await client.post(server.base_url + "/v1/x", json={"n": 1})
            second = await client.post(server.base_url + "/v1/y", json={"n": 2})
        assert first.status_code == 429
        assert first.headers["retry-after"] == "3"
        assert first.json() == {"error": "slow"}
        assert second.headers["content-type"] == "text/event-stream"
        assert second.content == b"event: a\ndata: 1\n\nevent: b\ndata: 2\n\n"
        assert [r.path for r in server.requests] == ["/v1/x", "/v1/y"]
        assert [r.json for r in server.requests] == [{"n": 1}, {"n": 2}]
        assert server.requests[0].method == "POST"
        assert server.remaining == 0

    asyncio.run(run())


def test_empty_script_answers_500() -> None:
    async def run() -> None:
        async with ReplayServer() as server, httpx2.AsyncClient() as client:
            response = await client.get(server.base_url + "/")
        assert response.status_code == 500
        assert "script empty" in response.text

    asyncio.run(run())


def test_reset_mid_body_and_hang_up_are_transport_errors() -> None:
    async def run() -> None:
        responses = [
            sse_response(FIXTURES / "text.sse", reset_after=2),
            ScriptedResponse.disconnect(),
        ]
        async with ReplayServer(responses) as server, httpx2.AsyncClient() as client:
            received = b""
            with pytest.raises(httpx2.RemoteProtocolError):
                async with client.stream("POST", server.base_url + "/") as response:
                    async for chunk in response.aiter_bytes():
                        received += chunk
            assert received == b"".join(sse_events(FIXTURES / "text.sse")[:2])
            with pytest.raises(httpx2.TransportError):
                await client.post(server.base_url + "/")

    asyncio.run(run())


def test_base_url_outside_context_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        _ = ReplayServer().base_url


def test_sse_events_splits_whole_events() -> None:
    events = sse_events(FIXTURES / "text.sse")
    assert events[0].startswith(b"event: message_start\n")
    assert all(e.endswith(b"\n\n") and e.count(b"\n\n") == 1 for e in events)
    assert sse_events(b"event: a\r\ndata: 1\r\n\r\n") == (b"event: a\ndata: 1\n\n",)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 300), min_size=1, max_size=5))
def test_rechunk_keeps_bytes(sizes: list[int]) -> None:
    data = (FIXTURES / "parallel_tools.sse").read_bytes()
    pieces = rechunk([data], sizes)
    assert b"".join(pieces) == data
    assert all(0 < len(p) <= max(sizes) for p in pieces)


def test_rechunk_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="positive"):
        rechunk([b"abc"], [0])
