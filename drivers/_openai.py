"""``OpenAIDriver``: Chat Completions streaming, for OpenAI and every compatible server.

::

    driver = OpenAIDriver("gpt-4.1")                                   # OPENAI_API_KEY
    local = OpenAIDriver("llama3.1", base_url="http://127.0.0.1:11434/v1", provider="ollama")
    async for event in driver.receive(ModelRequest(messages=(...,))):
        ...

The request goes through the official ``openai`` SDK's HTTP client and SSE decoder
(``AsyncOpenAI.post`` to ``/chat/completions`` with ``stream=True``). Chunks are taken as
the decoded JSON the SDK hands over rather than as its pydantic models, which would make
the SDK ten times slower than the rest of the engine; the mapping is in
``drivers._openai_stream`` and the request body in ``drivers._openai_request``.

Errors never raise out of ``receive``: they end the call with ``error_received``.
Failures before the first chunk (429, 5xx, connection errors, an empty stream) are retried
per ``RetryPolicy``, honouring ``retry-after``; the SDK's own retries are switched off.
A failure after the first chunk ends the message with a retryable ``CONNECTION_ERROR``
(or what the error says): what was streamed stays streamed, and nothing is sent twice.
A context-length error is reported as ``CONTEXT_OVERFLOW``.

Cancellation: ``interrupt()`` stops the current call at once: while the request is being
opened or retried it cancels the task doing that (never the caller's task); once chunks
flow it closes the HTTP response, which ends the read in progress. ``receive`` then ends
without further events (the engine records the interruption). It is idempotent, a no-op
when idle, and may be called from any thread. The driver runs one call at a time.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import openai

from agentcore import ModelRequest, ThinkingLevel
from agentcore.errors import AgentError, ConfigurationError, ErrorCode
from agentcore.events import ErrorReceived, StreamEvent

from ._base import ApiKeySource, Failure, failure_from_status, now_ms, resolve_api_key
from ._call import StreamCall
from ._openai_request import build_body
from ._openai_stream import ChunkMapper
from ._retry import Opened, RetryPolicy

__all__ = ["NO_KEY", "OpenAIDriver", "classify_openai_error", "open_sse"]

NO_KEY = "not-needed"
"""The placeholder key sent to local servers, which ignore it."""

_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


def _is_local(base_url: str | None) -> bool:
    return base_url is not None and urlsplit(base_url).hostname in _LOCAL_HOSTS


def classify_openai_error(exc: BaseException) -> Failure:
    """Turn an exception from the ``openai`` SDK (or the stream) into a ``Failure``."""
    if isinstance(exc, openai.APIStatusError):
        headers = exc.response.headers
        return failure_from_status(exc.status_code, exc.body, exc.message, headers)
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return Failure(ErrorCode.CONNECTION_ERROR, f"connection failed: {exc}", True)
    if isinstance(exc, openai.APIError):  # an error object sent inside the stream
        return failure_from_status(200, exc.body, exc.message, None)
    if isinstance(exc, ValueError):  # a data: line that is not JSON
        return Failure(ErrorCode.PROVIDER_ERROR, f"malformed stream chunk: {exc}", False)
    return Failure(ErrorCode.DRIVER_ERROR, f"{type(exc).__name__}: {exc}", False)


class OpenAIDriver:
    """Stream one Chat Completions call at a time as agentcore stream events.

    ``client``: an ``openai.AsyncOpenAI`` to use as is (its key, base URL and headers);
    otherwise one is built from ``api_key`` (default: the ``api_key_env`` variable) and
    ``base_url``. A loopback ``base_url`` needs no key. ``get_api_key`` (sync or async)
    is called before every request and its key wins, so short-lived tokens work.
    ``provider`` becomes the driver's ``name`` and picks defaults: for ``"openai"`` the
    limit is sent as ``max_completion_tokens`` and ``xhigh`` effort is passed through,
    elsewhere ``max_tokens`` and ``high``. ``system_role="developer"`` sends the system
    prompt with the newer role. ``include_usage=False`` drops ``stream_options`` for
    servers that reject it (usage then stays zero). ``clock`` (ms) stamps events and
    ``sleep`` waits between retries; both are there for tests.

    Raises ``ConfigurationError`` at construction when no key can be found for a remote
    server; the message names the environment variable to set.
    """

    def __init__(
        self,
        model: str,
        *,
        client: openai.AsyncOpenAI | None = None,
        api_key: str | None = None,
        get_api_key: ApiKeySource | None = None,
        base_url: str | None = None,
        provider: str = "openai",
        api_key_env: str = "OPENAI_API_KEY",
        thinking_level: ThinkingLevel = "off",
        retry: RetryPolicy | None = None,
        max_tokens: int | None = None,
        max_tokens_field: str | None = None,
        system_role: str = "system",
        supports_xhigh: bool | None = None,
        include_usage: bool = True,
        clock: Callable[[], int] = now_ms,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if not model:
            raise ConfigurationError("OpenAIDriver needs a model name, e.g. 'gpt-4.1'")
        self.name = provider
        self.model = model
        self.thinking_level: ThinkingLevel = thinking_level
        self.retry = retry if retry is not None else RetryPolicy()
        self.max_tokens = max_tokens
        self._body_options: dict[str, Any] = {
            "max_tokens_field": max_tokens_field
            or ("max_completion_tokens" if provider == "openai" else "max_tokens"),
            "system_role": system_role,
            "supports_xhigh": provider == "openai" if supports_xhigh is None else supports_xhigh,
            "include_usage": include_usage,
        }
        self._get_api_key = get_api_key
        self._clock = clock
        self._sleep = sleep
        self._owns_client = client is None
        self._client = client or self._build_client(api_key, api_key_env, base_url)
        self.base_url = str(self._client.base_url)
        self._call: StreamCall | None = None

    def _build_client(
        self, api_key: str | None, api_key_env: str, base_url: str | None
    ) -> openai.AsyncOpenAI:
        key = api_key or os.environ.get(api_key_env)
        if not key:
            if self._get_api_key is None and not _is_local(base_url):
                where = f" for {base_url}" if base_url else ""
                raise ConfigurationError(
                    f"no API key{where}: set {api_key_env}, or pass api_key= or get_api_key="
                )
            key = NO_KEY
        return openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0)

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body this driver posts for ``request`` (useful to inspect or log)."""
        return build_body(
            request,
            model=self.model,
            thinking_level=self.thinking_level,
            max_tokens=self.max_tokens,
            **self._body_options,
        )

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
        """Stream one assistant message for ``request`` (see the module docstring).

        The hot loop is a plain ``async for`` over the SDK stream: ``interrupt`` reaches
        it by closing the HTTP response, never by cancelling a read, so a chunk costs no
        more than the SDK's own decoding plus ``ChunkMapper.feed``.
        """
        call = StreamCall()
        self._call = call
        try:
            try:
                body = self.build_body(request)
            except AgentError as exc:
                yield ErrorReceived(exc.message, exc.code.value, timestamp=self._clock())
                return
            opened = await open_sse(
                call,
                self._client,
                "/chat/completions",
                body,
                get_api_key=self._get_api_key,
                retry=self.retry,
                sleep=self._sleep,
                classify=_classify,
                check=_checked,
            )
            if opened is None:
                return
            if isinstance(opened, Failure):
                yield opened.to_event(self._clock())
                return
            clock = self._clock
            mapper = ChunkMapper(model=body["model"], message_id=f"chatcmpl-{uuid.uuid4().hex}")
            try:
                for event in mapper.feed(_checked(opened.first), clock()):
                    yield event
                    if call.interrupted:
                        return
                async for chunk in opened.stream:
                    if call.interrupted:
                        return
                    data = chunk if isinstance(chunk, dict) else _checked(chunk)
                    for event in mapper.feed(data, clock()):
                        yield event
                        if call.interrupted:
                            return
            except Exception as exc:
                if not call.interrupted:
                    yield classify_openai_error(exc).to_event(clock())
                return
            if not call.interrupted:
                for event in mapper.finish(clock()):
                    yield event
        finally:
            if self._call is call:
                self._call = None
            await call.aclose()


async def open_sse(
    call: StreamCall,
    client: openai.AsyncOpenAI,
    path: str,
    body: dict[str, Any],
    *,
    get_api_key: ApiKeySource | None,
    retry: RetryPolicy,
    sleep: Callable[[float], Awaitable[object]],
    classify: Callable[[BaseException], Failure],
    check: Callable[[object], object],
) -> Opened[object] | Failure | None:
    """``call.open`` for a streamed POST of ``body`` to ``path`` (both OpenAI drivers).

    Each attempt asks ``get_api_key`` afresh (its key wins over the client's) and attaches
    the response to ``call`` so that ``interrupt`` can close it. Items stay the SDK's
    decoded JSON: ``AsyncStream[object]`` skips its pydantic model building.
    """

    async def start() -> openai.AsyncStream[object]:
        options: Any = {"max_retries": 0, "timeout": retry.timeout}
        if get_api_key is not None:
            key = await resolve_api_key(get_api_key)
            options["headers"] = {"Authorization": f"Bearer {key}"}
        stream: openai.AsyncStream[object] = await client.post(
            path,
            body=body,
            cast_to=object,
            options=options,
            stream=True,
            stream_cls=openai.AsyncStream[object],
        )
        call.attach(stream.close)
        return stream

    return await call.open(start, classify, retry, sleep=sleep, check=check)


def _checked(chunk: object) -> dict[str, Any]:
    """``chunk`` if it is a JSON object; a ``data:`` line holding anything else is malformed."""
    if not isinstance(chunk, dict):
        raise ValueError(f"expected a JSON object, got {type(chunk).__name__}")
    return chunk


def _classify(exc: BaseException) -> Failure:
    if isinstance(exc, AgentError):  # from get_api_key: not worth retrying
        return Failure(exc.code, exc.message, False)
    return classify_openai_error(exc)
