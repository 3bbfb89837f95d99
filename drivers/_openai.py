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

Cancellation: ``interrupt()`` stops the current call at once, also while it waits for the
network or a backoff, and closes the HTTP response; ``receive`` then ends without further
events (the engine records the interruption). It is idempotent, a no-op when idle, and
must be called from the event loop that runs ``receive``. The driver runs one call at a
time.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, TypeVar
from urllib.parse import urlsplit

import openai

from agentcore import ModelRequest, ThinkingLevel
from agentcore.errors import AgentError, ConfigurationError, ErrorCode
from agentcore.events import ErrorReceived, StreamEvent

from ._base import ApiKeySource, Failure, failure_from_status, now_ms, resolve_api_key
from ._openai_request import build_body
from ._openai_stream import ChunkMapper
from ._retry import Opened, RetryPolicy, open_stream

__all__ = ["NO_KEY", "OpenAIDriver", "classify_openai_error"]

NO_KEY = "not-needed"
"""The placeholder key sent to local servers, which ignore it."""

_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})

_Chunk = object
"""Chunks stay the SDK's decoded JSON: ``AsyncStream[object]`` skips its model building."""
T = TypeVar("T")
_INTERRUPTED = object()


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
        self._task: asyncio.Task[Any] | None = None
        self._waiting = False
        self._interrupted = False

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
        """Stop the current call now; idempotent, a no-op when idle."""
        if self._task is None or self._interrupted:
            return
        self._interrupted = True
        if self._waiting:
            self._task.cancel()

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one assistant message for ``request`` (see the module docstring)."""
        self._task = asyncio.current_task()
        self._interrupted = False
        try:
            async with aclosing(self._call(request)) as events:
                async for event in events:
                    yield event
                    if self._interrupted:
                        return
        finally:
            self._task = None

    async def _options(self) -> Any:
        options: dict[str, Any] = {"max_retries": 0, "timeout": self.retry.timeout}
        if self._get_api_key is not None:
            key = await resolve_api_key(self._get_api_key)
            options["headers"] = {"Authorization": f"Bearer {key}"}
        return options

    async def _call(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        try:
            body = self.build_body(request)
        except AgentError as exc:
            yield ErrorReceived(exc.message, exc.code.value, timestamp=self._clock())
            return
        streams: list[openai.AsyncStream[_Chunk]] = []

        async def start() -> AsyncIterator[_Chunk]:
            stream: openai.AsyncStream[_Chunk] = await self._client.post(
                "/chat/completions",
                body=body,
                cast_to=object,
                options=await self._options(),
                stream=True,
                stream_cls=openai.AsyncStream[_Chunk],
            )
            streams.append(stream)
            return stream

        mapper = ChunkMapper(model=body["model"], message_id=f"chatcmpl-{uuid.uuid4().hex}")
        try:
            opened = await self._wait(
                lambda: open_stream(start, _classify, self.retry, sleep=self._sleep)
            )
            if isinstance(opened, Failure):
                yield opened.to_event(self._clock())
                return
            if not isinstance(opened, Opened):
                return  # interrupted
            stream, chunk = opened.stream, opened.first
            while True:
                if not isinstance(chunk, dict):
                    raise ValueError(f"expected a JSON object, got {type(chunk).__name__}")
                for event in mapper.feed(chunk, self._clock()):
                    yield event
                try:
                    chunk = await self._wait(lambda: anext(stream))
                except StopAsyncIteration:
                    break
                if chunk is _INTERRUPTED:
                    return
            for event in mapper.finish(self._clock()):
                yield event
        except Exception as exc:
            yield classify_openai_error(exc).to_event(self._clock())
        finally:
            for stream in streams:
                await stream.close()

    async def _wait(self, start: Callable[[], Awaitable[T]]) -> T | object:
        """Await ``start()`` so that ``interrupt()`` can cut it short (``_INTERRUPTED``).

        ``interrupt()`` cancels the task only while it is parked here, so the
        cancellation lands in this frame and is withdrawn (``uncancel``) on the spot; a
        cancellation from anyone else propagates as usual.
        """
        if self._interrupted:
            return _INTERRUPTED
        self._waiting = True
        try:
            return await start()
        except asyncio.CancelledError:
            task = self._task
            if self._interrupted and task is not None and task.uncancel() == 0:
                return _INTERRUPTED
            raise
        finally:
            self._waiting = False


def _classify(exc: BaseException) -> Failure:
    if isinstance(exc, AgentError):  # from get_api_key: not worth retrying
        return Failure(exc.code, exc.message, False)
    return classify_openai_error(exc)
