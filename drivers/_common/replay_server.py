"""A scripted HTTP/1.1 server for driver tests: real sockets, real SDK parsing, no network.

``ReplayServer`` listens on 127.0.0.1 (an ephemeral port) and answers each request with
the next ``ScriptedResponse`` in order, whatever the path. Point an SDK's ``base_url`` at
``server.base_url`` and the SDK's own HTTP client, retry-free request path and SSE decoder
run exactly as against the provider; only the bytes are ours. Each response may pause
between body chunks, reset the connection mid-body (the chunked body never finishes, as
when a proxy drops the stream) or hang up before sending anything at all.

::

    responses = [
        ScriptedResponse.json(429, {"error": {...}}, headers={"retry-after": "2"}),
        sse_response(FIXTURES / "text.sse"),
    ]
    async with ReplayServer(responses) as server:
        client = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="k")
        ...
    assert len(server.requests) == 2
    assert server.requests[1].json["model"] == "..."

When the script runs out, the server answers ``500`` with a body saying so, so a test that
sends one request too many fails loudly instead of hanging. Built on asyncio streams only
(no extra dependency). The server is single-loop and not thread-safe: use it from the event
loop that runs the test.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

import attrs

__all__ = [
    "RecordedRequest",
    "ReplayServer",
    "ScriptedResponse",
    "rechunk",
    "sse_events",
    "sse_response",
]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    529: "Overloaded",
}


def _to_chunks(chunks: Iterable[bytes]) -> tuple[bytes, ...]:
    return tuple(chunks)


@attrs.frozen(slots=True)
class ScriptedResponse:
    """One scripted answer.

    ``chunks`` are written in order with ``pause`` seconds before each (chunked transfer
    encoding, so the client sees them as they come). ``reset_after=n`` aborts the TCP
    connection after ``n`` chunks without the terminating chunk (``0``: right after the
    headers). ``hang_up`` closes the connection without sending a status line at all.
    """

    status: int = 200
    headers: Mapping[str, str] = attrs.field(factory=dict)
    chunks: tuple[bytes, ...] = attrs.field(default=(), converter=_to_chunks)
    pause: float = 0.0
    reset_after: int | None = None
    hang_up: bool = False

    @classmethod
    def json(
        cls, status: int, body: Any, *, headers: Mapping[str, str] | None = None
    ) -> ScriptedResponse:
        """A JSON response (an error body, usually) with ``content-type: application/json``."""
        merged = {"content-type": "application/json", **(headers or {})}
        return cls(status=status, headers=merged, chunks=(json.dumps(body).encode(),))

    @classmethod
    def disconnect(cls) -> ScriptedResponse:
        """Close the connection as soon as the request arrives, sending nothing."""
        return cls(hang_up=True)


@attrs.frozen(slots=True)
class RecordedRequest:
    """A request the server received; header names are lower-cased."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body decoded as JSON (raises ``ValueError`` if it is not JSON)."""
        return json.loads(self.body)


def sse_events(source: pathlib.Path | str | bytes) -> tuple[bytes, ...]:
    """Split an SSE byte stream (or a fixture file holding one) into whole events.

    Each returned chunk ends with its blank line, so sending one chunk per event is how a
    provider streams; use ``rechunk`` to cut the same bytes at arbitrary places instead.
    """
    data = source if isinstance(source, bytes) else pathlib.Path(source).read_bytes()
    data = data.replace(b"\r\n", b"\n")
    events = [e + b"\n\n" for e in data.split(b"\n\n") if e.strip()]
    return tuple(events)


def rechunk(chunks: Iterable[bytes], sizes: Sequence[int]) -> tuple[bytes, ...]:
    """Re-cut ``chunks`` into pieces of the given sizes (cycled); the bytes are unchanged."""
    data = b"".join(chunks)
    if not sizes or any(s <= 0 for s in sizes):
        raise ValueError(f"sizes must be positive integers, got {list(sizes)}")
    out: list[bytes] = []
    pos = i = 0
    while pos < len(data):
        size = sizes[i % len(sizes)]
        out.append(data[pos : pos + size])
        pos += size
        i += 1
    return tuple(out)


def sse_response(
    source: pathlib.Path | str | bytes | Iterable[bytes],
    *,
    pause: float = 0.0,
    reset_after: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> ScriptedResponse:
    """A ``200 text/event-stream`` response sending one SSE event per chunk.

    ``source`` is a fixture path, raw SSE bytes, or chunks already cut (e.g. by
    ``rechunk``). ``reset_after`` counts chunks, so ``sse_response(f, reset_after=3)``
    drops the connection after the third event.
    """
    chunks: tuple[bytes, ...]
    if isinstance(source, pathlib.Path | str | bytes):  # noqa: SIM108 (mypy narrows branches)
        chunks = sse_events(source)
    else:
        chunks = tuple(source)
    merged = {"content-type": "text/event-stream", "cache-control": "no-cache", **(headers or {})}
    return ScriptedResponse(
        status=200, headers=merged, chunks=chunks, pause=pause, reset_after=reset_after
    )


class ReplayServer:
    """Serve ``responses`` in order over HTTP/1.1 on 127.0.0.1 and record every request.

    Use as an async context manager; ``base_url`` is valid inside it. Connections are
    kept alive between requests unless a response resets or hangs up. Leaving the context
    closes the listener and aborts any connection still open.
    """

    def __init__(self, responses: Iterable[ScriptedResponse] = ()) -> None:
        self._script = list(responses)
        self._next = 0
        self.requests: list[RecordedRequest] = []
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._port = 0

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: give it to the SDK (add ``/v1`` where it expects one)."""
        if self._server is None:
            raise RuntimeError("ReplayServer is not running; use 'async with ReplayServer(...)'")
        return f"http://127.0.0.1:{self._port}"

    def add(self, *responses: ScriptedResponse) -> None:
        """Append responses to the script (e.g. between two calls of one test)."""
        self._script.extend(responses)

    @property
    def remaining(self) -> int:
        """How many scripted responses have not been served yet."""
        return len(self._script) - self._next

    async def __aenter__(self) -> ReplayServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self._port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    return
                self.requests.append(request)
                if not await self._respond(writer, self._take()):
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            # The client went away, or the server is shutting down: nothing left to serve.
            return
        finally:
            self._writers.discard(writer)
            self._tasks.discard(task)
            if not writer.transport.is_closing():
                writer.close()

    def _take(self) -> ScriptedResponse:
        if self._next >= len(self._script):
            return ScriptedResponse.json(
                500, {"error": {"type": "replay_error", "message": "ReplayServer: script empty"}}
            )
        response = self._script[self._next]
        self._next += 1
        return response

    @staticmethod
    async def _read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
        line = await reader.readline()
        if not line:
            return None
        method, path, _ = line.decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        while (raw := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = raw.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while size := int((await reader.readline()).strip() or b"0", 16):
                body += await reader.readexactly(size)
                await reader.readline()
            await reader.readline()
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        return RecordedRequest(method, path, headers, body)

    @staticmethod
    async def _respond(writer: asyncio.StreamWriter, response: ScriptedResponse) -> bool:
        """Write ``response``; return whether the connection may serve another request."""
        if response.hang_up:
            writer.transport.abort()
            return False
        reason = _REASONS.get(response.status, "Status")
        head = [f"HTTP/1.1 {response.status} {reason}", "transfer-encoding: chunked"]
        head += [f"{k}: {v}" for k, v in response.headers.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        for sent, chunk in enumerate(response.chunks):
            if response.reset_after is not None and sent >= response.reset_after:
                break
            if response.pause:
                await asyncio.sleep(response.pause)
            if chunk:
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()
        if response.reset_after is not None:
            writer.transport.abort()
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True
