"""``OpenAIResponsesDriver``: the OpenAI Responses API (``POST /responses``), streamed.

::

    driver = OpenAIResponsesDriver("gpt-5", thinking_level="low")        # OPENAI_API_KEY
    async for event in driver.receive(ModelRequest(messages=(...,))):
        ...

The request goes through the official ``openai`` SDK's HTTP client and SSE decoder
(``AsyncOpenAI.post("/responses", stream=True)``); events are taken as the JSON the SDK
decodes rather than as its pydantic models, which would cost several times the rest of
the path. The pure normaliser is ``drivers.openai_responses.stream``, the body
``drivers.openai_responses.request``, and retries, interrupts, flushing and scrubbing the
shared skeleton's (``drivers._common.stream``). Requests are stateless (``store: false``): the
engine holds the conversation, and reasoning is carried between turns as
``encrypted_content`` inside ``ThinkingPart``.

Errors never raise out of ``receive``: they end the call with ``error_received``.
Failures before the first event (429, 5xx, connection errors, an empty stream, an
``error`` event first) are retried per ``RetryPolicy``, honouring ``retry-after``; the
SDK's own retries are off. After the first event, a failure ends the message with the
error (a dropped connection: retryable ``CONNECTION_ERROR``, also when the stream ends
without ``response.completed``); what was streamed stays, nothing is sent twice. A
context-length error is ``CONTEXT_OVERFLOW``.

Cancellation (``drivers._common.call.StreamCall``): ``interrupt()`` stops the current call at
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

from agentcore import OUTPUT_MODES, ModelRequest, OutputMode, ThinkingLevel, ms_clock
from agentcore.errors import ConfigurationError
from agentcore.redaction import url_secrets

from .._common.base import ApiKeySource, Failure
from .._common.caching import openai_cache_fields
from .._common.call import Close
from .._common.content import MediaSupport
from .._common.openai_api import NO_KEY, classify_openai_error, post_sse
from .._common.retry import RetryPolicy
from .._common.stream import StreamingDriver
from .content import MEDIA
from .request import build_body
from .stream import NORMALISER, ResponsesState, error_event_failure, initial_state

__all__ = ["OpenAIResponsesDriver", "classify"]

_Event = dict[str, Any]


class _StreamError(Exception):
    """An ``error`` event as the first event of a stream: classified, and maybe retried."""

    def __init__(self, body: _Event) -> None:
        super().__init__(str(body.get("message") or body))
        self.body = body


def classify(exc: BaseException) -> Failure | None:
    """Classify what the Responses API or its stream raised; ``None`` for anything else."""
    if isinstance(exc, _StreamError):  # {"type": "error", "code", "message", "param"}
        return error_event_failure(exc.body)
    return classify_openai_error(exc)


class OpenAIResponsesDriver(StreamingDriver[ResponsesState, object]):
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

    normaliser = NORMALISER
    media: MediaSupport = MEDIA
    """What the provider takes of the content parts (``drivers.openai_responses.content.MEDIA``); a
    subclass may set another ``MediaSupport`` (a compatible server, a newer limit)."""

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
        clock: Callable[[], int] = ms_clock,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if not model:
            raise ConfigurationError("OpenAIResponsesDriver needs a model name, e.g. 'gpt-5'")
        owns_client = client is None
        if client is None:
            key = api_key or os.environ.get(api_key_env)
            if not key and get_api_key is None:
                raise ConfigurationError(
                    f"no API key: set {api_key_env}, or pass api_key=, get_api_key= or client="
                )
            client = openai.AsyncOpenAI(api_key=key or NO_KEY, base_url=base_url, max_retries=0)
        super().__init__(
            name=provider,
            retry=retry,
            get_api_key=get_api_key,
            keys=(
                client.api_key if client.api_key != NO_KEY else None,
                *url_secrets(str(client.base_url)),
            ),
            owns_client=owns_client,
            clock=clock,
            sleep=sleep,
        )
        self._client = client
        self.model = model
        self.thinking_level: ThinkingLevel = thinking_level
        self.max_tokens = max_tokens
        self.supports_xhigh = supports_xhigh

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        """Native structured output first (``output_config`` / ``text.format``)."""
        return OUTPUT_MODES

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body this driver posts for ``request`` (to inspect or log), with its
        ``prompt_cache_key``/``prompt_cache_retention`` (``drivers._common.caching``)."""
        body = build_body(
            request,
            model=self.model,
            thinking_level=self.thinking_level,
            max_tokens=self.max_tokens,
            supports_xhigh=self.supports_xhigh,
            media=self.media,
        )
        return {**openai_cache_fields(request), **body}  # request.options still win

    prepare = build_body

    def initial_state(self, body: dict[str, Any], keys: tuple[str, ...]) -> ResponsesState:
        return initial_state(message_id=f"resp_{uuid.uuid4().hex}", model=body["model"], keys=keys)

    def endpoint(self, body: dict[str, Any]) -> str:
        return str(self._client.base_url).rstrip("/") + "/responses"

    def classify(self, exc: BaseException) -> Failure | None:
        return classify(exc)

    def check_first(self, item: object) -> object:
        """The first event must be a JSON object; an ``error`` event fails the attempt."""
        if not isinstance(item, dict):
            raise ValueError(f"expected a JSON object, got {type(item).__name__}")
        if item.get("type") == "error":
            raise _StreamError(item)
        return item

    async def start_stream(
        self, body: dict[str, Any], key: str | None, attach: Callable[[Close], None]
    ) -> AsyncIterator[object]:
        stream = await post_sse(
            self._client, "/responses", body, key=key, timeout=self.retry.timeout, attach=attach
        )
        self.saw_headers(stream.response.headers)
        return stream

    async def close_client(self) -> None:
        await self._client.close()
