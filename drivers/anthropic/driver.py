"""The Anthropic Messages driver: its request, its HTTP stream and its errors.

The request goes through the official SDK's HTTP client and SSE decoder
(``messages.with_raw_response.create(stream=True)`` then ``AsyncStream.raw_events``); the
decoded JSON goes to the pure normaliser in ``drivers.anthropic.stream``, skipping the
SDK's per-event pydantic models, which alone would cap a process below 40,000 events/s.
Retries, interrupts, flushing and scrubbing are the shared skeleton's (``drivers._common.stream``).
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import anthropic
import httpx2

from agentcore import OUTPUT_MODES, ModelRequest, OutputMode, ThinkingLevel, ms_clock
from agentcore.errors import ConfigurationError, ErrorCode
from agentcore.redaction import url_secrets

from .._common.base import ApiKeySource, Failure, failure_from_status, is_loopback
from .._common.call import Close
from .._common.content import MediaSupport
from .._common.retry import RetryPolicy
from .._common.stream import StreamingDriver
from .caching import with_cache_control
from .content import MEDIA
from .request import build_params
from .stream import NORMALISER, AnthropicState, initial_state

__all__ = ["AnthropicDriver", "classify"]

_Event = Mapping[str, Any]
_PLACEHOLDER = "set-by-get_api_key"


class _SSEError(Exception):
    """An ``error`` event inside a stream that had already answered ``200``."""

    def __init__(self, body: object) -> None:
        super().__init__(str(body))
        self.body = body


def _described(exc: BaseException) -> str:
    """The SDK's message and, when it wraps one, the cause's ("Connection error." says little)."""
    text = str(exc) or type(exc).__name__
    cause = exc.__cause__
    if cause is not None and str(cause) and str(cause) not in text:
        text += f" ({type(cause).__name__}: {cause})"
    return text


def classify(exc: BaseException) -> Failure | None:
    """Classify what the Anthropic SDK or its stream raised; ``None`` for anything else."""
    if isinstance(exc, anthropic.APIStatusError):
        return failure_from_status(exc.status_code, exc.body, exc.message, exc.response.headers)
    if isinstance(exc, _SSEError):
        return failure_from_status(200, exc.body, str(exc), None)
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return Failure(ErrorCode.CONNECTION_ERROR, "the request to Anthropic timed out", True)
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        return Failure(
            ErrorCode.CONNECTION_ERROR, f"connection to Anthropic failed: {_described(exc)}", True
        )
    if isinstance(exc, json.JSONDecodeError):
        return Failure(ErrorCode.PROVIDER_ERROR, f"Anthropic sent an invalid event: {exc}", False)
    return None


async def _decoded(response: httpx2.Response) -> AsyncIterator[_Event]:
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


class AnthropicDriver(StreamingDriver[AnthropicState, _Event]):
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
    without yielding anything more than the text it held back (``drivers._common.guard``).
    """

    normaliser = NORMALISER
    media: MediaSupport = MEDIA
    """What the provider takes of the content parts (``drivers.anthropic.content.MEDIA``); a
    subclass may set another ``MediaSupport`` (a compatible server, a newer limit)."""

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
        clock: Callable[[], int] = ms_clock,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if max_tokens < 1:
            raise ConfigurationError(f"max_tokens must be a positive integer, got {max_tokens}")
        if client is not None and (api_key is not None or base_url is not None):
            raise ConfigurationError(
                "pass api_key and base_url to your AsyncAnthropic client, not to the driver"
            )
        owns_client = client is None
        if client is None:
            key = api_key or os.environ.get("ANTHROPIC_API_KEY")
            if key is None and get_api_key is None and not is_loopback(base_url):
                raise ConfigurationError(
                    "no Anthropic API key: set ANTHROPIC_API_KEY, or pass api_key=, "
                    "get_api_key= or client= (a loopback base_url needs none)",
                    details={"option": "api_key"},
                )
            client = anthropic.AsyncAnthropic(
                api_key=key or _PLACEHOLDER, base_url=base_url, max_retries=0
            )
        configured = client.api_key if client.api_key != _PLACEHOLDER else None
        super().__init__(
            name="anthropic",
            retry=retry,
            get_api_key=get_api_key,
            keys=(configured, *url_secrets(str(client.base_url))),
            owns_client=owns_client,
            clock=clock,
            sleep=sleep,
        )
        self._client = client.with_options(max_retries=0)
        self.model = model
        self.max_tokens = max_tokens
        self.thinking_level: ThinkingLevel = thinking_level

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        """Native structured output first (``output_config`` / ``text.format``)."""
        return OUTPUT_MODES

    def prepare(self, request: ModelRequest) -> dict[str, Any]:
        """The ``messages.create`` arguments for ``request`` (see ``build_params``), with
        its cache breakpoints (``drivers.anthropic.caching``)."""
        params = build_params(
            request,
            model=self.model,
            max_tokens=self.max_tokens,
            thinking_level=self.thinking_level,
            media=self.media,
        )
        return with_cache_control(params, request)

    def initial_state(self, body: dict[str, Any], keys: tuple[str, ...]) -> AnthropicState:
        return initial_state(message_id=f"msg_{uuid.uuid4().hex}", model=body["model"], keys=keys)

    def endpoint(self, body: dict[str, Any]) -> str:
        return str(self._client.base_url).rstrip("/") + "/v1/messages"

    def classify(self, exc: BaseException) -> Failure | None:
        return classify(exc)

    async def start_stream(
        self, body: dict[str, Any], key: str | None, attach: Callable[[Close], None]
    ) -> AsyncIterator[_Event]:
        """One attempt: the request (with ``key`` when ``get_api_key`` gave one), the response."""
        client = self._client if key is None else self._client.with_options(api_key=key)
        raw = await client.messages.with_raw_response.create(
            **body, stream=True, timeout=self.retry.timeout
        )
        attach(raw.http_response.aclose)
        self.saw_headers(raw.http_response.headers)
        return _decoded(raw.http_response)

    async def close_client(self) -> None:
        await self._client.close()
