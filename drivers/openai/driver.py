"""``OpenAIDriver``: Chat Completions streaming, for OpenAI and every compatible server.

::

    driver = OpenAIDriver("gpt-4.1")                                   # OPENAI_API_KEY
    local = OpenAIDriver("llama3.1", base_url="http://127.0.0.1:11434/v1", provider="ollama")
    async for event in driver.receive(ModelRequest(messages=(...,))):
        ...

The request goes through the official ``openai`` SDK's HTTP client and SSE decoder
(``AsyncOpenAI.post`` to ``/chat/completions`` with ``stream=True``). Chunks are taken as
the decoded JSON the SDK hands over rather than as its pydantic models, which would make
the SDK ten times slower than the rest of the engine; the pure normaliser is
``drivers.openai.stream``, the request body ``drivers.openai.request``, and retries,
interrupts, flushing and scrubbing the shared skeleton's (``drivers._common.stream``).

The SDK swallows the ``data: [DONE]`` line; this driver's stream class hands it over as
``DONE`` (and reads on to the end of the body, so the connection is reused), so that a
stream cut cleanly with neither a ``finish_reason`` nor ``[DONE]`` is reported as a
retryable ``CONNECTION_ERROR``, as the other drivers report a cut.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import openai
from openai._streaming import ServerSentEvent

from agentcore import OUTPUT_MODES, ModelRequest, OutputMode, ThinkingLevel, ms_clock
from agentcore.errors import ConfigurationError
from agentcore.provider_tools import refuse_provider_tools
from agentcore.redaction import url_secrets

from .._common.base import ApiKeySource, Failure, is_loopback
from .._common.caching import openai_cache_fields
from .._common.call import Close
from .._common.content import MediaSupport
from .._common.openai_api import NO_KEY, EmptyStream, classify_openai_error, post_sse
from .._common.retry import RetryPolicy
from .._common.stream import StreamingDriver
from .content import MEDIA, compatible_media
from .request import build_body
from .stream import DONE, NORMALISER, ChatState, initial_state

__all__ = ["OpenAIDriver"]

_DONE_EVENT = ServerSentEvent(data=json.dumps(DONE))


class _ChatStream(openai.AsyncStream[object]):
    """The SDK's stream of decoded JSON, which also hands over ``[DONE]`` as ``DONE``.

    The SDK's own ``_iter_events`` stops at ``[DONE]``; this one, the same decoder on the
    same bytes, passes it on as the JSON string ``"[DONE]"``, so the SDK yields it and
    reads on to the end of the body (the connection is then reused). Transport errors
    come out as the HTTP client raises them (``classify_openai_error`` reads both).
    """

    async def _iter_events(self) -> AsyncIterator[ServerSentEvent]:
        async for sse in self._decoder.aiter_bytes(self.response.aiter_bytes()):
            yield _DONE_EVENT if sse.data.startswith("[DONE]") else sse


class OpenAIDriver(StreamingDriver[ChatState, object]):
    """Stream one Chat Completions call at a time as agentcore stream events.

    ``client``: an ``openai.AsyncOpenAI`` to use as is (its key, base URL and headers);
    otherwise one is built from ``api_key`` (default: the ``api_key_env`` variable) and
    ``base_url``. A loopback ``base_url`` needs no key. ``get_api_key`` (sync or async)
    is called before every request and its key wins, so short-lived tokens work.
    ``provider`` becomes the driver's ``name`` and picks defaults: for ``"openai"`` the
    limit is sent as ``max_completion_tokens`` and ``xhigh`` effort is passed through,
    elsewhere ``max_tokens`` and ``high``. ``system_role="developer"`` sends the system
    prompt with the newer role. ``include_usage=False`` drops ``stream_options`` for
    servers that reject it (usage then stays zero). ``output_modes`` are the
    structured-output modes the server supports, best first (default: all for
    ``"openai"``; ``tool`` and ``prompted`` elsewhere, since not every compatible server
    takes ``response_format`` with a JSON schema). ``media`` is what the server takes of
    the content parts (default: OpenAI's documented ``MEDIA`` for ``"openai"``,
    ``compatible_media(provider)`` elsewhere). ``clock`` (ms) stamps events and
    ``sleep`` waits between retries; both are there for tests.

    Raises ``ConfigurationError`` at construction when no key can be found for a remote
    server; the message names the environment variable to set.
    """

    normaliser = NORMALISER
    media: MediaSupport = MEDIA
    """What the server takes of the content parts (see ``media=``)."""

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
        output_modes: Sequence[OutputMode] | None = None,
        media: MediaSupport | None = None,
        clock: Callable[[], int] = ms_clock,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if not model:
            raise ConfigurationError("OpenAIDriver needs a model name, e.g. 'gpt-4.1'")
        owns_client = client is None
        if client is None:
            client = _build_client(api_key, api_key_env, base_url, get_api_key)
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
        self._body_options: dict[str, Any] = {
            "max_tokens_field": max_tokens_field
            or ("max_completion_tokens" if provider == "openai" else "max_tokens"),
            "system_role": system_role,
            "supports_xhigh": provider == "openai" if supports_xhigh is None else supports_xhigh,
            "include_usage": include_usage,
        }
        self.base_url = str(client.base_url)
        if output_modes is None:
            output_modes = OUTPUT_MODES if provider == "openai" else ("tool", "prompted")
        unknown = [m for m in output_modes if m not in OUTPUT_MODES]
        if unknown or not output_modes:
            raise ConfigurationError(
                f"output_modes must be a non-empty subset of {OUTPUT_MODES}, got {output_modes!r}"
            )
        self._output_modes = tuple(output_modes)
        if media is not None:
            self.media = media
        elif provider != "openai":
            self.media = compatible_media(provider)

    @property
    def output_modes(self) -> tuple[OutputMode, ...]:
        return self._output_modes

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body this driver posts for ``request`` (useful to inspect or log), with
        its ``prompt_cache_key``/``prompt_cache_retention`` (``drivers._common.caching``)."""
        refuse_provider_tools(
            request.provider_tools,
            "the OpenAI Chat Completions driver",
            request.model or self.model,
            "no provider-side tool; use the openai_responses driver for WebSearch and "
            "CodeExecution",
        )
        body = build_body(
            request,
            model=self.model,
            thinking_level=self.thinking_level,
            max_tokens=self.max_tokens,
            media=self.media,
            **self._body_options,
        )
        return {**openai_cache_fields(request), **body}  # request.options still win

    prepare = build_body

    def initial_state(self, body: dict[str, Any], keys: tuple[str, ...]) -> ChatState:
        return initial_state(
            message_id=f"chatcmpl-{uuid.uuid4().hex}", model=body["model"], keys=keys
        )

    def endpoint(self, body: dict[str, Any]) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def classify(self, exc: BaseException) -> Failure | None:
        return classify_openai_error(exc)

    def check_first(self, item: object) -> object:
        """A stream holding only ``[DONE]`` is empty (retried); anything else must be JSON."""
        if item == DONE:
            raise EmptyStream
        if not isinstance(item, dict):
            raise ValueError(f"expected a JSON object, got {type(item).__name__}")
        return item

    async def start_stream(
        self, body: dict[str, Any], key: str | None, attach: Callable[[Close], None]
    ) -> AsyncIterator[object]:
        stream = await post_sse(
            self._client,
            "/chat/completions",
            body,
            key=key,
            timeout=self.retry.timeout,
            attach=attach,
            stream_cls=_ChatStream,
        )
        self.saw_headers(stream.response.headers)
        return stream

    async def close_client(self) -> None:
        await self._client.close()


def _build_client(
    api_key: str | None, api_key_env: str, base_url: str | None, get_api_key: ApiKeySource | None
) -> openai.AsyncOpenAI:
    key = api_key or os.environ.get(api_key_env)
    if not key:
        if get_api_key is None and not is_loopback(base_url):
            where = f" for {base_url}" if base_url else ""
            raise ConfigurationError(
                f"no API key{where}: set {api_key_env}, or pass api_key= or get_api_key=",
                details={"option": "api_key"},
            )
        key = NO_KEY
    return openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0)
