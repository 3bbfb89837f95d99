"""The Google Gemini driver: its request, its HTTP stream and its errors.

The request goes through the official ``google-genai`` SDK's own HTTP path: its API
client builds the request (URL, API version, ``x-goog-api-key`` and library headers,
timeout), sends it with its HTTP client, raises its ``APIError`` for an error status, and
decodes the SSE body into JSON chunks. The driver stops there: the chunks go to the pure
normaliser in ``drivers.google.stream`` as dicts, skipping the SDK's per-chunk response
converters and pydantic models (the same trade the Anthropic and OpenAI drivers make).
That path is the API client's (``client.aio._api_client``), which the SDK's public
methods are written over; the extra pins the SDK's major version for that reason.

Retries, interrupts, flushing and scrubbing are the shared skeleton's (``drivers._common.stream``);
the SDK's own retries are switched off for every request.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import httpx2
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from agentcore import ModelRequest, ThinkingLevel, ms_clock
from agentcore.errors import ConfigurationError, ErrorCode
from agentcore.redaction import url_secrets

from .._common.base import ApiKeySource, Failure, failure_from_status
from .._common.call import Close
from .._common.content import MediaSupport
from .._common.retry import RetryPolicy
from .._common.stream import StreamingDriver
from .caching import with_cached_content
from .content import MEDIA
from .request import build_body, model_path
from .stream import NORMALISER, GeminiState, initial_state

__all__ = ["GoogleDriver", "classify_google_error"]

_Chunk = Mapping[str, Any]
_PLACEHOLDER = "set-by-get_api_key"
_KEY_ENVS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")


class _StreamError(Exception):
    """An ``{"error": ...}`` chunk inside a stream that had already answered ``200``."""

    def __init__(self, body: object) -> None:
        super().__init__(str(body))
        self.body = body


def _invalid_key(details: object) -> bool:
    """Whether an error body says the API key is invalid (Google answers that with 400)."""
    inner = details.get("error", details) if isinstance(details, Mapping) else None
    found = inner.get("details") if isinstance(inner, Mapping) else None
    return isinstance(found, list) and any(
        isinstance(d, Mapping) and d.get("reason") == "API_KEY_INVALID" for d in found
    )


def classify_google_error(exc: BaseException) -> Failure | None:
    """Classify what the ``google-genai`` SDK or its stream raised; ``None`` for the rest.

    Google's error bodies carry an HTTP ``code`` and a ``status`` (``RESOURCE_EXHAUSTED``,
    ``UNAVAILABLE``...), read by ``drivers._common.base``; an invalid key, which Google reports
    as ``400 INVALID_ARGUMENT`` with reason ``API_KEY_INVALID``, is an authentication error.
    """
    if isinstance(exc, genai_errors.APIError):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        failure = failure_from_status(exc.code, exc.details, exc.message or str(exc), headers)
        if _invalid_key(exc.details):
            return Failure(ErrorCode.AUTHENTICATION_ERROR, failure.message, False, None, exc.code)
        return failure
    if isinstance(exc, _StreamError):
        return failure_from_status(200, exc.body, str(exc), None)
    if isinstance(exc, httpx2.TimeoutException):
        return Failure(ErrorCode.CONNECTION_ERROR, "the request to Gemini timed out", True)
    if isinstance(exc, httpx2.TransportError):
        text = str(exc) or type(exc).__name__
        return Failure(ErrorCode.CONNECTION_ERROR, f"connection to Gemini failed: {text}", True)
    if isinstance(exc, ValueError):  # the SDK's UnknownApiResponseError: not JSON
        return Failure(ErrorCode.PROVIDER_ERROR, f"Gemini sent an invalid chunk: {exc}", False)
    return None


async def _decoded(response: Any) -> AsyncIterator[_Chunk]:
    """The SDK's SSE decoding of ``response``, as dicts; an error chunk raises."""
    async for chunk in response.async_segments():
        if isinstance(chunk, dict) and "error" in chunk:
            raise _StreamError(chunk)
        yield chunk


class GoogleDriver(StreamingDriver[GeminiState, _Chunk]):
    """Streams one Gemini ``generateContent`` call at a time as agentcore stream events.

    Pass ``client`` (a ``google.genai.Client``) to reuse your configuration (Vertex AI
    included); otherwise one is built for the Gemini Developer API from ``api_key``
    (default: ``GOOGLE_API_KEY``, then ``GEMINI_API_KEY``, as the SDK reads them),
    ``base_url`` and ``api_version`` (the SDK's default when ``None``). ``get_api_key``
    (sync or async) is called before every request and its key wins. ``max_tokens``
    bounds the answer (``maxOutputTokens``; unset: the model's limit). ``clock`` and
    ``sleep`` are injectable for tests.

    ``receive`` never raises for provider or configuration failures: it yields
    ``ErrorReceived`` (see ``classify_google_error``), retried per ``retry`` before the
    first chunk only; ``interrupt`` closes the HTTP response.
    """

    normaliser = NORMALISER
    media: MediaSupport = MEDIA
    """What the provider takes of the content parts (``drivers.google.content.MEDIA``); a
    subclass may set another ``MediaSupport`` (a compatible server, a newer limit)."""

    def __init__(
        self,
        model: str,
        *,
        client: genai.Client | None = None,
        api_key: str | None = None,
        get_api_key: ApiKeySource | None = None,
        base_url: str | None = None,
        api_version: str | None = None,
        max_tokens: int | None = None,
        thinking_level: ThinkingLevel = "off",
        retry: RetryPolicy | None = None,
        clock: Callable[[], int] = ms_clock,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if not model:
            raise ConfigurationError("GoogleDriver needs a model name, e.g. 'gemini-2.5-flash'")
        if max_tokens is not None and max_tokens < 1:
            raise ConfigurationError(f"max_tokens must be a positive integer, got {max_tokens}")
        if client is not None and (api_key, base_url, api_version) != (None, None, None):
            raise ConfigurationError(
                "pass api_key, base_url and api_version to your genai.Client, not to the driver"
            )
        owns_client = client is None
        if client is None:
            key = api_key or next((os.environ[e] for e in _KEY_ENVS if os.environ.get(e)), None)
            if key is None and get_api_key is None:
                raise ConfigurationError(
                    "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or pass "
                    "api_key=, get_api_key= or client=",
                    details={"option": "api_key"},
                )
            options = genai_types.HttpOptions(base_url=base_url, api_version=api_version)
            client = genai.Client(api_key=key or _PLACEHOLDER, vertexai=False, http_options=options)
        self._api = client.aio._api_client
        configured = self._api.api_key if self._api.api_key != _PLACEHOLDER else None
        super().__init__(
            name="google",
            retry=retry,
            get_api_key=get_api_key,
            keys=(configured, *url_secrets(base_url)),
            owns_client=owns_client,
            clock=clock,
            sleep=sleep,
        )
        self.client = client
        self.model = model
        self.max_tokens = max_tokens
        self.thinking_level: ThinkingLevel = thinking_level

    def prepare(self, request: ModelRequest) -> tuple[str, dict[str, Any]]:
        """``(model, body)`` for ``request`` (see ``drivers.google.request.build_body``),
        naming its cached content (``drivers.google.caching``)."""
        model, body = build_body(
            request,
            model=self.model,
            thinking_level=self.thinking_level,
            max_tokens=self.max_tokens,
            media=self.media,
        )
        return model, with_cached_content(body, request)

    def initial_state(self, body: tuple[str, dict[str, Any]], keys: tuple[str, ...]) -> GeminiState:
        return initial_state(message_id=f"gemini-{uuid.uuid4().hex}", model=body[0], keys=keys)

    def _path(self, model: str) -> str:
        path = model_path(model)
        if self._api.vertexai and not path.startswith(("publishers/", "projects/")):
            path = f"publishers/google/{path}"
        return f"{path}:streamGenerateContent?alt=sse"

    def endpoint(self, body: tuple[str, dict[str, Any]]) -> str:
        return self._api._build_request("post", self._path(body[0]), {}).url.partition("?")[0]

    def classify(self, exc: BaseException) -> Failure | None:
        return classify_google_error(exc)

    async def start_stream(
        self, body: tuple[str, dict[str, Any]], key: str | None, attach: Callable[[Close], None]
    ) -> AsyncIterator[_Chunk]:
        """One attempt: the SDK's request (``key`` from ``get_api_key`` wins), its response."""
        timeout = self.retry.timeout
        options = genai_types.HttpOptions(
            retry_options=genai_types.HttpRetryOptions(attempts=1),
            timeout=None if timeout is None else max(1, round(timeout * 1000)),
            headers=None if key is None else {"x-goog-api-key": key},
        )
        model, payload = body
        request = self._api._build_request("post", self._path(model), dict(payload), options)
        response = await self._api._async_request(request, options, stream=True)
        raw = response.response_stream
        attach(raw.aclose if hasattr(raw, "aclose") else _closer(raw))
        return _decoded(response)

    async def close_client(self) -> None:
        await self.client.aio.aclose()


def _closer(raw: Any) -> Close:
    """A coroutine closing a response without ``aclose`` (aiohttp's ``close`` is sync)."""

    async def close() -> None:
        raw.close()

    return close
