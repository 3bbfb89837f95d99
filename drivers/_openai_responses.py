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

Cancellation (``drivers._call.StreamCall``): ``interrupt()`` stops the current call at
once: while the request is being opened or retried it cancels the task doing that (never
the caller's task); once events flow it closes the HTTP response, which ends the read in
progress. ``receive`` then ends without further events. It is idempotent, a no-op when
idle, and may be called from any thread. The driver runs one call at a time.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import openai

from agentcore import ModelRequest, ThinkingLevel
from agentcore.errors import AgentError, ConfigurationError, ErrorCode
from agentcore.events import ErrorReceived, StreamEvent

from ._base import ApiKeySource, Failure, failure_from_status, now_ms
from ._call import StreamCall
from ._openai import NO_KEY, classify_openai_error, open_sse
from ._openai_responses_request import build_body
from ._openai_responses_stream import ResponseEventMapper
from ._retry import RetryPolicy

__all__ = ["OpenAIResponsesDriver", "classify"]

_Event = dict[str, Any]
_CUT_SHORT = Failure(
    ErrorCode.CONNECTION_ERROR, "the Responses stream ended before response.completed", True
)


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


def _checked(event: object) -> _Event:
    """``event`` if it is a JSON object; an ``error`` event raises ``_StreamError``."""
    if not isinstance(event, dict):
        raise ValueError(f"expected a JSON object, got {type(event).__name__}")
    if event.get("type") == "error":
        raise _StreamError(event)
    return event


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
        self._call: StreamCall | None = None

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
        """Stop the current call promptly (idempotent; a no-op when idle; any thread)."""
        call = self._call
        if call is not None:
            call.interrupt()

    async def receive(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one assistant message for ``request`` (see the module docstring).

        The hot loop is a plain ``async for`` over the SDK stream, as in ``OpenAIDriver``.
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
                "/responses",
                body,
                get_api_key=self._get_api_key,
                retry=self.retry,
                sleep=self._sleep,
                classify=classify,
                check=_checked,
            )
            if opened is None:
                return
            if isinstance(opened, Failure):
                yield opened.to_event(self._clock())
                return
            clock = self._clock
            mapper = ResponseEventMapper(model=body["model"], message_id=f"resp_{uuid.uuid4().hex}")
            try:
                for out in mapper.feed(_checked(opened.first), clock()):
                    yield out
                    if call.interrupted:
                        return
                if mapper.finished:
                    return
                async for event in opened.stream:
                    if call.interrupted:
                        return
                    for out in mapper.feed(_checked(event), clock()):
                        yield out
                        if call.interrupted:
                            return
                    if mapper.finished:
                        return
            except Exception as exc:
                if not call.interrupted:
                    yield classify(exc).to_event(clock())
                return
            if not call.interrupted:
                yield _CUT_SHORT.to_event(clock())
        finally:
            if self._call is call:
                self._call = None
            await call.aclose()
