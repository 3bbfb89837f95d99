"""``OpenAIResponsesDriver``: the OpenAI Responses API (``POST /responses``), streamed.

::

    driver = OpenAIResponsesDriver("gpt-5", thinking_level="low")        # OPENAI_API_KEY
    async for event in driver.receive(ModelRequest(messages=(...,))):
        ...

The request goes through the official ``openai`` SDK's HTTP client and SSE decoder
(``AsyncOpenAI.post("/responses", stream=True)``); events are taken as the JSON the SDK
decodes rather than as its pydantic models, which would cost several times the rest of
the path. The mapping is in ``drivers._openai_responses_stream``, the body in
``drivers._openai_responses_request``. Requests are stateless (``store: false``): the
engine holds the conversation, and reasoning is carried between turns as
``encrypted_content`` inside ``ThinkingPart``.

Errors never raise out of ``receive``: they end the call with ``error_received``.
Failures before the first event (429, 5xx, connection errors, an empty stream, an
``error`` event first) are retried per ``RetryPolicy``, honouring ``retry-after``; the
SDK's own retries are off. After the first event, a failure ends the message with the
error (a dropped connection: retryable ``CONNECTION_ERROR``, also when the stream ends
without ``response.completed``); what was streamed stays, nothing is sent twice. A
context-length error is ``CONTEXT_OVERFLOW``.

Cancellation: ``interrupt()`` stops the current call at once, also while it waits for the
network or a backoff, and closes the HTTP response; ``receive`` then ends without further
events. It is idempotent, a no-op when idle, and must be called from the event loop that
runs ``receive``. The driver runs one call at a time.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, TypeVar

import openai

from agentcore import ModelRequest, ThinkingLevel
from agentcore.errors import AgentError, ConfigurationError, ErrorCode
from agentcore.events import ErrorReceived, StreamEvent

from ._base import ApiKeySource, Failure, failure_from_status, now_ms, resolve_api_key
from ._openai_responses_request import build_body
from ._openai_responses_stream import ResponseEventMapper
from ._retry import Opened, RetryPolicy, open_stream
from .openai import NO_KEY, classify_openai_error

__all__ = ["OpenAIResponsesDriver", "classify"]

T = TypeVar("T")
_INTERRUPTED = object()
_Event = dict[str, Any]


class _StreamError(Exception):
    """An ``error`` event inside a stream that had already answered ``200``."""

    def __init__(self, body: _Event) -> None:
        super().__init__(str(body.get("message") or body))
        self.body = body


def classify(exc: BaseException) -> Failure:
    """Classify anything raised while calling the Responses API or reading its stream."""
    if isinstance(exc, _StreamError):  # {"type": "error", "code", "message", "param"}
        error = {"code": exc.body.get("code"), "message": exc.body.get("message")}
        return failure_from_status(200, {"error": error}, str(exc), None)
    if isinstance(exc, AgentError):  # from get_api_key: not worth retrying
        return Failure(exc.code, exc.message, False)
    return classify_openai_error(exc)


async def _decoded(stream: openai.AsyncStream[object]) -> AsyncIterator[_Event]:
    """The SDK's decoded events as dicts; an ``error`` event raises ``_StreamError``."""
    async for event in stream:
        if not isinstance(event, dict):
            raise ValueError(f"expected a JSON object, got {type(event).__name__}")
        if event.get("type") == "error":
            raise _StreamError(event)
        yield event


class OpenAIResponsesDriver:
    """Stream one Responses API call at a time as agentcore stream events.

    ``client``: an ``openai.AsyncOpenAI`` to use as is (never closed by the driver);
    otherwise one is built from ``api_key`` (default: ``OPENAI_API_KEY``) and
    ``base_url``, and ``aclose()`` closes it. ``get_api_key`` (sync or async) is called
    before every request, retries included, and its key wins. ``thinking_level`` maps to
    ``reasoning.effort`` (``off`` sends no ``reasoning``; ``xhigh`` falls back to ``high``
    when ``supports_xhigh=False``); ``max_tokens`` becomes ``max_output_tokens``.
    ``clock`` (ms) stamps events and ``sleep`` waits between retries, for tests.

    Raises ``ConfigurationError`` at construction for an empty model name or when no key
    can be found; the message names the variable to set.
    """

    def __init__(
        self,
        model: str,
        *,
        client: openai.AsyncOpenAI | None = None,
        api_key: str | None = None,
        get_api_key: ApiKeySource | None = None,
        base_url: str | None = None,
        provider: str = "openai-responses",
        api_key_env: str = "OPENAI_API_KEY",
        thinking_level: ThinkingLevel = "off",
        max_tokens: int | None = None,
        supports_xhigh: bool = True,
        retry: RetryPolicy | None = None,
        clock: Callable[[], int] = now_ms,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if not model:
            raise ConfigurationError("OpenAIResponsesDriver needs a model name, e.g. 'gpt-5'")
        self.name = provider
        self.model = model
        self.thinking_level: ThinkingLevel = thinking_level
        self.max_tokens = max_tokens
        self.supports_xhigh = supports_xhigh
        self.retry = retry if retry is not None else RetryPolicy()
        self._get_api_key = get_api_key
        self._clock = clock
        self._sleep = sleep
        self._owns_client = client is None
        if client is None:
            key = api_key or os.environ.get(api_key_env)
            if not key and get_api_key is None:
                raise ConfigurationError(
                    f"no API key: set {api_key_env}, or pass api_key=, get_api_key= or client="
                )
            client = openai.AsyncOpenAI(api_key=key or NO_KEY, base_url=base_url, max_retries=0)
        self._client = client
        self._task: asyncio.Task[Any] | None = None
        self._waiting = False
        self._interrupted = False

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body this driver posts for ``request`` (to inspect or log)."""
        return build_body(
            request,
            model=self.model,
            thinking_level=self.thinking_level,
            max_tokens=self.max_tokens,
            supports_xhigh=self.supports_xhigh,
        )

    async def aclose(self) -> None:
        """Close the HTTP client if this driver built it; idempotent."""
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

    async def _call(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        try:
            body = self.build_body(request)
        except AgentError as exc:
            yield ErrorReceived(exc.message, exc.code.value, timestamp=self._clock())
            return
        streams: list[openai.AsyncStream[object]] = []

        async def start() -> AsyncIterator[_Event]:
            options: Any = {"max_retries": 0, "timeout": self.retry.timeout}
            if self._get_api_key is not None:
                key = await resolve_api_key(self._get_api_key)
                options["headers"] = {"Authorization": f"Bearer {key}"}
            stream: openai.AsyncStream[object] = await self._client.post(
                "/responses",
                body=body,
                cast_to=object,
                options=options,
                stream=True,
                stream_cls=openai.AsyncStream[object],
            )
            streams.append(stream)
            return _decoded(stream)

        mapper = ResponseEventMapper(model=body["model"], message_id=f"resp_{uuid.uuid4().hex}")
        try:
            opened = await self._wait(
                lambda: open_stream(start, classify, self.retry, sleep=self._sleep)
            )
            if isinstance(opened, Failure):
                yield opened.to_event(self._clock())
                return
            if not isinstance(opened, Opened):
                return  # interrupted
            events, event = opened.stream, opened.first
            while True:
                for out in mapper.feed(event, self._clock()):
                    yield out
                if mapper.finished:
                    return
                try:
                    following = await self._wait(lambda: anext(events))
                except StopAsyncIteration:
                    break
                if not isinstance(following, dict):
                    return  # interrupted
                event = following
            yield ErrorReceived(
                "the Responses stream ended before response.completed",
                ErrorCode.CONNECTION_ERROR.value,
                retryable=True,
                timestamp=self._clock(),
            )
        except Exception as exc:
            yield classify(exc).to_event(self._clock())
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
