"""MCP servers that fail: crashes, hangs, frozen processes, aborts, bad commands, closed
servers, many callers at once. The client answers every call, never hangs, and reconnects
on the next call; secrets never reach an error."""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from agentcore.mcp import MCPServer, MCPServerError
from agentcore.tools import AbortSignal


async def _pid(server: MCPServer) -> int:
    result = await server.call_tool("pid")
    assert not result.is_error, result.content
    return int(result.content)


async def _echoes(server: MCPServer, tag: str) -> list[str]:
    out = []
    for i in range(6):
        result = await server.call_tool("echo", {"text": f"{tag}{i}", "delay": 0.05})
        out.append("error" if result.is_error else result.content)
    return out


def test_a_server_that_crashes_mid_call_fails_the_calls_in_flight_then_reconnects(
    stdio: Callable[..., MCPServer],
) -> None:
    """Two tasks share the session; a third call crashes the process. Only calls in
    flight fail (promptly); every later call, from either task, runs on a new process."""

    async def main() -> None:
        async with stdio() as server:
            first = await _pid(server)
            a = asyncio.create_task(_echoes(server, "a"))
            b = asyncio.create_task(_echoes(server, "b"))
            await asyncio.sleep(0.12)
            began = time.monotonic()
            crashed = await server.call_tool("crash")
            assert time.monotonic() - began < 5
            assert crashed.is_error and crashed.details["kind"] == "lost"
            assert "'everything'" in crashed.content
            for tag, got in zip("ab", await asyncio.gather(a, b), strict=True):
                assert got.count("error") <= 1, got
                assert got[-1] == f"{tag}5"
                assert all(g in ("error", f"{tag}{i}") for i, g in enumerate(got))
            assert await _pid(server) != first  # reconnected: a new process

    asyncio.run(main())


async def _stats(server: MCPServer) -> dict[str, int]:
    result = await server.call_tool("stats")
    counts: dict[str, int] = result.details["structured_content"]
    return counts


def test_a_call_that_hangs_times_out_and_the_next_call_works(http_server: Any) -> None:
    async def main() -> None:
        async with http_server.server(timeout=0.5) as server:
            before = await _stats(server)
            began = time.monotonic()
            hung = await server.call_tool("hang")
            assert 0.5 <= time.monotonic() - began < 3
            assert hung.is_error and hung.details["kind"] == "timeout"
            assert "0.5 s" in hung.content
            assert (await server.call_tool("add", {"a": 1, "b": 2})).content == "3"
            after = before
            for _ in range(50):  # the server was told to stop the request
                after = await _stats(server)
                if after["cancelled"] > before["cancelled"]:
                    break
                await asyncio.sleep(0.02)
            assert after == {"started": before["started"] + 1, "cancelled": before["cancelled"] + 1}

    asyncio.run(main())


def test_a_frozen_server_is_replaced_after_a_timeout(stdio: Callable[..., MCPServer]) -> None:
    """A server whose whole event loop is blocked answers nothing: the call times out,
    the liveness probe times out too, and the next call starts a new process."""

    async def main() -> None:
        async with stdio(timeout=0.5, probe_timeout=0.5) as server:
            first = await _pid(server)
            frozen = await server.call_tool("freeze")
            assert frozen.is_error and frozen.details["kind"] == "timeout"
            deadline = time.monotonic() + 5
            while server.connected:  # the probe gives up on the frozen process
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            assert await _pid(server) != first

    asyncio.run(main())


def test_abort_signal_during_a_call_returns_at_once_and_cancels_on_the_server(
    http_server: Any,
) -> None:
    async def main() -> None:
        async with http_server.server() as server:
            before = await _stats(server)
            signal = AbortSignal()
            call = asyncio.create_task(server.call_tool("hang", signal=signal))
            await asyncio.sleep(0.3)
            began = time.monotonic()
            signal.abort()
            result = await call
            assert time.monotonic() - began < 1
            assert result.is_error and result.details == {"error_code": "ABORTED"}
            after = before
            for _ in range(50):  # the cancellation reaches the server shortly after
                after = await _stats(server)
                if after["cancelled"] > before["cancelled"]:
                    break
                await asyncio.sleep(0.02)
            assert after == {"started": before["started"] + 1, "cancelled": before["cancelled"] + 1}
            already = await server.call_tool("hang", signal=signal)
            assert already.details == {"error_code": "ABORTED"}  # never sent
            assert (await _stats(server))["started"] == after["started"]

    asyncio.run(main())


def test_cancelling_the_calling_task_cancels_the_request_only(http_server: Any) -> None:
    async def main() -> None:
        async with http_server.server() as server:
            call = asyncio.create_task(server.call_tool("hang"))
            slow = asyncio.create_task(server.call_tool("echo", {"text": "x", "delay": 0.5}))
            await asyncio.sleep(0.3)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            assert (await slow).content == "x"  # the other request was not disturbed
            assert (await server.call_tool("add", {"a": 1, "b": 1})).content == "2"

    asyncio.run(main())


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_hundred_calls_in_parallel(
    kind: str, stdio: Callable[..., MCPServer], request: pytest.FixtureRequest
) -> None:
    server = stdio() if kind == "stdio" else request.getfixturevalue("http_server").server()

    async def main() -> tuple[list[Any], float]:
        async with server:
            began = time.monotonic()
            results = await asyncio.gather(
                *(server.call_tool("echo", {"text": f"n{i}", "delay": 0.3}) for i in range(100))
            )
            return results, time.monotonic() - began

    results, elapsed = asyncio.run(main())
    assert [r.content for r in results] == [f"n{i}" for i in range(100)]
    assert elapsed < 10  # concurrent: one after the other would take 30 s


def test_a_server_that_cannot_start_is_an_error_not_a_hang() -> None:
    server = MCPServer.stdio(
        "/nonexistent/mcp-server", env={"API_TOKEN": "tok-very-secret-value"}, name="ghost"
    )

    async def main() -> Any:
        with pytest.raises(MCPServerError) as info:
            await server.connect()
        assert info.value.kind == "connect" and info.value.server == "ghost"
        return await server.call_tool("anything")

    result = asyncio.run(main())
    assert result.is_error and result.details["kind"] == "connect"
    assert "ghost" in result.content and "tok-very-secret-value" not in result.content
    assert "tok-very-secret-value" not in repr(server)


def test_a_server_that_exits_at_once_is_a_connect_error() -> None:
    server = MCPServer.stdio(sys.executable, ["-c", "print('not json')"], name="liar")

    async def main() -> None:
        began = time.monotonic()
        with pytest.raises(MCPServerError) as info:
            await server.connect()
        assert info.value.kind == "connect"
        assert time.monotonic() - began < 10

    asyncio.run(main())


def test_a_slow_handshake_hits_the_connect_timeout() -> None:
    silent = "import sys; sys.stdin.read()"  # reads, never answers, exits on end of input
    server = MCPServer.stdio(sys.executable, ["-c", silent], name="silent", connect_timeout=0.5)

    async def main() -> None:
        began = time.monotonic()
        with pytest.raises(MCPServerError, match="could not connect") as info:
            await server.connect()
        assert info.value.kind == "connect" and "0.5 s" in info.value.message
        await server.aclose()
        assert time.monotonic() - began < 5

    asyncio.run(main())


def test_an_http_server_that_dies_mid_call_gives_errors_without_hanging(
    own_http_server: Any,
) -> None:
    secret = "Bearer abcdefgh-12345678-secret"
    server = own_http_server.server(headers={"Authorization": secret}, timeout=5)

    async def main() -> None:
        async with server:
            assert (await server.call_tool("add", {"a": 1, "b": 1})).content == "2"
            began = time.monotonic()
            crashed = await server.call_tool("crash")
            assert crashed.is_error and crashed.details["kind"] in ("lost", "connect")
            again = await server.call_tool("add", {"a": 1, "b": 1})
            assert again.is_error and again.details["kind"] in ("lost", "connect")
            assert time.monotonic() - began < 8
            for message in (crashed.content, again.content):
                assert secret not in message and "abcdefgh-12345678-secret" not in message

    asyncio.run(main())
    assert "abcdefgh" not in repr(server)


def test_http_secrets_never_reach_errors() -> None:
    """Nothing listens on port 9 of 127.0.0.1; the connect error names the server, not
    the token in the URL or the headers."""
    server = MCPServer.http(
        "http://user:pa55word-xyz@127.0.0.1:9/mcp?api_key=qwerty-123456",
        headers={"X-Api-Key": "hdr-secret-987654"},
        name="remote",
        connect_timeout=3,
    )

    async def main() -> MCPServerError:
        with pytest.raises(MCPServerError) as info:
            await server.connect()
        return info.value

    error = asyncio.run(main())
    text = f"{error} {error.details} {server!r}"
    for secret in ("pa55word-xyz", "qwerty-123456", "hdr-secret-987654"):
        assert secret not in text


def test_close_is_idempotent_and_a_closed_server_says_so(http_server: Any) -> None:
    server = http_server.server()

    async def main() -> None:
        async with server:
            call = asyncio.create_task(server.call_tool("hang"))
            await asyncio.sleep(0.3)
        in_flight = await call
        assert in_flight.is_error and in_flight.details["kind"] == "closed"
        await server.aclose()
        after = await server.call_tool("add", {"a": 1, "b": 1})
        assert after.is_error and after.details["kind"] == "closed"
        assert "async with" in after.content
        with pytest.raises(MCPServerError):
            await server.tools()
        await server.connect()  # reopens
        assert (await server.call_tool("add", {"a": 1, "b": 1})).content == "2"
        await server.aclose()

    asyncio.run(main())


def test_a_server_survives_its_event_loop(http_server: Any) -> None:
    """``asyncio.run`` twice: the session of the first loop ended with it; the second
    loop gets a new one."""
    server = http_server.server()
    tools = asyncio.run(server.tools())
    assert any(t.name == "add" for t in tools)

    async def second() -> Any:
        try:
            return await server.call_tool("add", {"a": 2, "b": 2})
        finally:
            await server.aclose()

    assert asyncio.run(second()).content == "4"


def test_tokens_in_the_url_or_headers_never_reach_the_logs(
    http_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    url = f"{http_server.url}?token=tok-in-the-url-123456"
    server = MCPServer.http(url, headers={"X-Api-Key": "hdr-in-a-header-654321"}, name="logged")

    async def main() -> Any:
        async with server:
            return await server.call_tool("add", {"a": 1, "b": 1})

    assert asyncio.run(main()).content == "2"
    assert any(r.name == "httpx2" for r in caplog.records)  # requests were logged...
    assert "tok-in-the-url-123456" not in caplog.text  # ...without the token
    assert "hdr-in-a-header-654321" not in caplog.text
