"""The Anthropic Messages driver: SSE stream events in, agentcore stream events out.

The driver goes through the official SDK's HTTP client and SSE decoder
(``messages.with_raw_response.create(stream=True)`` then ``AsyncStream.raw_events``) and
maps the decoded JSON itself, skipping the SDK's per-event pydantic models, which alone
would cap a process below 40,000 events/s. Event mapping (see docs/providers.md):

=====================================  ==============================================
provider event                         agentcore event
=====================================  ==============================================
message_start                          MessageStart (input and cache usage remembered)
content_block_start text / thinking    TextDelta / ThinkingDelta, only if it has text
content_block_start redacted_thinking  ThinkingDelta(redacted_data=...)
content_block_start tool_use           ToolUseStart
text_delta / thinking_delta            TextDelta / ThinkingDelta
signature_delta                        ThinkingDelta(text="", signature=...)
input_json_delta                       InputJsonDelta
content_block_stop of a tool_use       ToolUseStop
message_delta                          MessageDelta(stop_reason, usage of the whole call)
message_stop                           MessageStop(stop_reason)
error (SSE event)                      ErrorReceived (overloaded_error: OVERLOADED, retryable)
ping, citations_delta, other blocks    nothing
=====================================  ==============================================
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anthropic
import httpx2

from agentcore import ModelRequest, ThinkingLevel
from agentcore.errors import AgentError, ConfigurationError, ErrorCode
from agentcore.events import (
    ErrorReceived,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    ToolUseStop,
)

from ._anthropic_request import build_params
from ._base import ApiKeySource, Failure, failure_from_status, now_ms, resolve_api_key
from ._call import StreamCall
from ._retry import RetryPolicy

__all__ = ["AnthropicDriver", "STOP_REASONS", "StreamMapper", "classify"]

STOP_REASONS = {
    "end_turn": "end_turn",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "pause_turn": "pause_turn",
    "refusal": "refusal",
    "model_context_window_exceeded": "max_tokens",
}
"""Provider stop reason -> agentcore stop reason; unknown values pass through unchanged."""

_USAGE_KEYS = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_input_tokens", "cache_read_tokens"),
    ("cache_creation_input_tokens", "cache_write_tokens"),
)


_CUT_SHORT = Failure(
    ErrorCode.CONNECTION_ERROR, "the Anthropic stream ended before message_stop", True
)


class _SSEError(Exception):
    """An ``error`` event inside a stream that had already answered ``200``."""

    def __init__(self, body: object) -> None:
        super().__init__(str(body))
        self.body = body


class StreamMapper:
    """Maps decoded Anthropic SSE events (dicts) to agentcore stream events, one call's worth.

    Holds the little state the mapping needs: usage so far, the stop reason, and which
    block indexes are tool calls. ``feed`` returns at most one event per provider event.
    """

    __slots__ = ("_clock", "_stop_reason", "_tools", "_usage", "finished")

    def __init__(self, clock: Callable[[], int] = now_ms) -> None:
        self._clock = clock
        self._usage: dict[str, int] = {}
        self._tools: dict[int, str] = {}
        self._stop_reason: str | None = None
        self.finished = False

    def feed(self, event: dict[str, Any]) -> StreamEvent | None:
        """The agentcore event for one provider event, or ``None`` when there is none."""
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._delta(event["index"], event["delta"])
        if kind == "content_block_start":
            return self._block_start(event["index"], event["content_block"])
        if kind == "content_block_stop":
            tool_id = self._tools.pop(event["index"], None)
            if tool_id is None:
                return None
            return ToolUseStop(tool_id, event["index"], timestamp=self._clock())
        if kind == "message_start":
            message = event["message"]
            self._add_usage(message.get("usage"))
            return MessageStart(message["id"], message["model"], timestamp=self._clock())
        if kind == "message_delta":
            reason = event.get("delta", {}).get("stop_reason")
            if reason is not None:
                self._stop_reason = STOP_REASONS.get(reason, reason)
            self._add_usage(event.get("usage"))
            return MessageDelta(self._stop_reason, self._usage_dict(), timestamp=self._clock())
        if kind == "message_stop":
            self.finished = True
            return MessageStop(self._stop_reason, timestamp=self._clock())
        return None

    def _delta(self, index: int, delta: dict[str, Any]) -> StreamEvent | None:
        kind = delta.get("type")
        if kind == "text_delta":
            return TextDelta(delta["text"], index, timestamp=self._clock())
        if kind == "input_json_delta":
            return InputJsonDelta(delta["partial_json"], index, timestamp=self._clock())
        if kind == "thinking_delta":
            return ThinkingDelta(delta["thinking"], index, timestamp=self._clock())
        if kind == "signature_delta":
            return ThinkingDelta("", index, signature=delta["signature"], timestamp=self._clock())
        return None

    def _block_start(self, index: int, block: dict[str, Any]) -> StreamEvent | None:
        kind = block.get("type")
        if kind == "tool_use":
            self._tools[index] = block["id"]
            return ToolUseStart(block["id"], block["name"], index, timestamp=self._clock())
        if kind == "text" and block.get("text"):
            return TextDelta(block["text"], index, timestamp=self._clock())
        if kind == "thinking" and block.get("thinking"):
            return ThinkingDelta(block["thinking"], index, timestamp=self._clock())
        if kind == "redacted_thinking":
            return ThinkingDelta("", index, redacted_data=block["data"], timestamp=self._clock())
        return None

    def _add_usage(self, usage: dict[str, Any] | None) -> None:
        """Anthropic's counts are cumulative: a later non-null value replaces an earlier one."""
        if usage:
            for source, target in _USAGE_KEYS:
                value = usage.get(source)
                if value is not None:
                    self._usage[target] = value

    def _usage_dict(self) -> dict[str, int]:
        return dict(self._usage)


def classify(exc: BaseException) -> Failure:
    """Classify anything raised while calling Anthropic or reading its stream."""
    if isinstance(exc, anthropic.APIStatusError):
        return failure_from_status(exc.status_code, exc.body, exc.message, exc.response.headers)
    if isinstance(exc, _SSEError):
        return failure_from_status(200, exc.body, str(exc), None)
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return Failure(ErrorCode.CONNECTION_ERROR, "the request to Anthropic timed out", True)
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        text = str(exc) or type(exc).__name__
        return Failure(ErrorCode.CONNECTION_ERROR, f"connection to Anthropic failed: {text}", True)
    if isinstance(exc, AgentError):
        return Failure(exc.code, exc.message, False)
    if isinstance(exc, json.JSONDecodeError):
        return Failure(ErrorCode.PROVIDER_ERROR, f"Anthropic sent an invalid event: {exc}", False)
    return Failure(ErrorCode.DRIVER_ERROR, f"{type(exc).__name__}: {exc}", False)


async def _decoded(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    """The SDK's SSE decoding of ``response``, as dicts; an ``error`` event raises."""
    try:
        async for sse in anthropic.AsyncStream.raw_events(response):
            if sse.event == "error":
                try:
                    body: object = json.loads(sse.data)
                except ValueError:
                    body = sse.data
                raise _SSEError(body)
            if sse.data and sse.event != "ping":
                yield json.loads(sse.data)
    finally:
        await response.aclose()


class AnthropicDriver:
    """Streams one Anthropic Messages call at a time as agentcore stream events.

    Pass ``client`` (an ``anthropic.AsyncAnthropic``) to reuse your configuration; the
    driver uses a copy of it with ``max_retries=0`` (sharing its connection pool) so that
    ``retry`` is the only retry policy. Otherwise a client is built from ``base_url`` and
    ``api_key`` (default: the ``ANTHROPIC_API_KEY`` environment variable). ``get_api_key``
    (sync or async) is called before every request, retries included, for short-lived
    tokens. ``max_tokens`` bounds the answer; with thinking on, the thinking budget is added
    to it. ``clock`` and ``sleep`` are injectable for tests.

    ``receive`` never raises for provider or configuration failures: it yields
    ``ErrorReceived`` (see ``classify``). Failures before the first event are retried per
    ``retry``; a failure after events were yielded ends the message with a retryable
    ``CONNECTION_ERROR`` (or the provider's error), so what was streamed is kept and
    nothing is streamed twice. ``interrupt`` closes the HTTP stream; ``receive`` then ends
    without yielding anything more (the engine records the interrupt itself).
    """

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        client: anthropic.AsyncAnthropic | None = None,
        api_key: str | None = None,
        get_api_key: ApiKeySource | None = None,
        base_url: str | None = None,
        max_tokens: int = 8192,
        thinking_level: ThinkingLevel = "off",
        retry: RetryPolicy | None = None,
        clock: Callable[[], int] = now_ms,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if max_tokens < 1:
            raise ConfigurationError(f"max_tokens must be a positive integer, got {max_tokens}")
        if client is not None and (api_key is not None or base_url is not None):
            raise ConfigurationError(
                "pass api_key and base_url to your AsyncAnthropic client, not to the driver"
            )
        self._owns_client = client is None
        if client is None:
            key = api_key or os.environ.get("ANTHROPIC_API_KEY")
            if key is None and get_api_key is None:
                raise ConfigurationError(
                    "no Anthropic API key: set ANTHROPIC_API_KEY, or pass api_key=, "
                    "get_api_key= or client="
                )
            client = anthropic.AsyncAnthropic(
                api_key=key or "set-by-get_api_key", base_url=base_url, max_retries=0
            )
        self._client = client.with_options(max_retries=0)
        self.model = model
        self.max_tokens = max_tokens
        self.thinking_level: ThinkingLevel = thinking_level
        self._get_api_key = get_api_key
        self._retry = retry or RetryPolicy()
        self._clock = clock
        self._sleep = sleep
        self._call: StreamCall | None = None

    async def aclose(self) -> None:
        """Close the HTTP client if this driver built it; a client passed in is the caller's.

        Idempotent. Call it when the driver is done (``Agent.aclose`` does for a driver it
        resolved from a model name), so no connection outlives its event loop.
        """
        if self._owns_client:
            await self._client.close()

    def interrupt(self) -> None:
        """Stop the current call promptly (idempotent; a no-op when idle; any thread)."""
        call = self._call
        if call is not None:
            call.interrupt()

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one assistant message for ``request`` (see the class docstring)."""
        call = StreamCall()
        self._call = call
        try:
            try:
                params = build_params(
                    request,
                    model=self.model,
                    max_tokens=self.max_tokens,
                    thinking_level=self.thinking_level,
                )
            except AgentError as exc:
                yield ErrorReceived(exc.message, exc.code.value, timestamp=self._clock())
                return
            opened = await call.open(
                self._starter(call, params), classify, self._retry, sleep=self._sleep
            )
            if opened is None:
                return
            if isinstance(opened, Failure):
                yield opened.to_event(self._clock())
                return
            mapper = StreamMapper(self._clock)
            event = mapper.feed(opened.first)
            if event is not None:
                yield event
            try:
                async for data in opened.stream:
                    if call.interrupted:
                        return
                    event = mapper.feed(data)
                    if event is not None:
                        yield event
            except Exception as exc:
                if not call.interrupted:
                    yield classify(exc).to_event(self._clock())
                return
            if not mapper.finished and not call.interrupted:
                yield _CUT_SHORT.to_event(self._clock())
        finally:
            if self._call is call:
                self._call = None
            await call.aclose()

    def _starter(
        self, call: StreamCall, params: dict[str, Any]
    ) -> Callable[[], Awaitable[AsyncIterator[dict[str, Any]]]]:
        """One attempt: a fresh key if ``get_api_key`` is set, the request, the response."""

        async def start() -> AsyncIterator[dict[str, Any]]:
            client = self._client
            if self._get_api_key is not None:
                client = client.with_options(api_key=await resolve_api_key(self._get_api_key))
            raw = await client.messages.with_raw_response.create(
                **params, stream=True, timeout=self._retry.timeout
            )
            call.attach(raw.http_response.aclose)
            return _decoded(raw.http_response)

        return start
