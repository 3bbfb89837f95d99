"""What the two OpenAI drivers (Chat Completions and Responses) share: the SDK's streamed
POST, the classification of what the SDK raises, the placeholder key for local servers and
the thinking level as ``reasoning_effort``.

Here rather than in either vendor package so that neither imports the other; importing this
module imports the ``openai`` SDK.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import httpx2
import openai

from agentcore import ThinkingLevel
from agentcore.errors import ConfigurationError, ErrorCode

from .base import Failure, failure_from_status
from .call import Close
from .retry import EMPTY_STREAM

__all__ = [
    "NO_KEY",
    "REASONING_EFFORT",
    "EmptyStream",
    "classify_openai_error",
    "post_sse",
    "reasoning_effort",
]

NO_KEY = "not-needed"
"""The placeholder key sent to local servers, which ignore it."""


class EmptyStream(Exception):
    """The stream held nothing but ``[DONE]``."""


def classify_openai_error(exc: BaseException) -> Failure | None:
    """Classify what the ``openai`` SDK (or its stream) raised; ``None`` for anything else."""
    if isinstance(exc, openai.APIStatusError):
        headers = exc.response.headers
        return failure_from_status(exc.status_code, exc.body, exc.message, headers)
    if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):  # timeouts too
        text = str(exc) or type(exc).__name__
        cause = exc.__cause__
        if cause is not None and str(cause) and str(cause) not in text:
            text += f" ({type(cause).__name__}: {cause})"
        return Failure(ErrorCode.CONNECTION_ERROR, f"connection failed: {text}", True)
    if isinstance(exc, openai.APIError):  # an error object sent inside the stream
        return failure_from_status(200, exc.body, exc.message, None)
    if isinstance(exc, EmptyStream):
        return EMPTY_STREAM
    if isinstance(exc, ValueError):  # a data: line that is not a JSON object
        return Failure(ErrorCode.PROVIDER_ERROR, f"malformed stream chunk: {exc}", False)
    return None


async def post_sse(
    client: openai.AsyncOpenAI,
    path: str,
    body: dict[str, Any],
    *,
    key: str | None,
    timeout: float | None,
    attach: Callable[[Close], None],
    stream_cls: type[openai.AsyncStream[object]] = openai.AsyncStream[object],
) -> openai.AsyncStream[object]:
    """One streamed POST of ``body`` to ``path`` (both OpenAI drivers' ``start_stream``).

    ``key`` (from ``get_api_key``) wins over the client's; the response is attached so that
    ``interrupt`` can close it. Items stay the SDK's decoded JSON: ``AsyncStream[object]``
    skips its pydantic model building.
    """
    options: Any = {"max_retries": 0, "timeout": timeout}
    if key is not None:
        options["headers"] = {"Authorization": f"Bearer {key}"}
    stream: openai.AsyncStream[object] = await client.post(
        path, body=body, cast_to=object, options=options, stream=True, stream_cls=stream_cls
    )
    attach(stream.close)
    return stream


REASONING_EFFORT: Mapping[ThinkingLevel, str | None] = {
    "off": None,
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
}
"""Thinking level -> ``reasoning_effort``; ``off`` sends no field at all."""


def reasoning_effort(level: ThinkingLevel, *, supports_xhigh: bool) -> str | None:
    """The ``reasoning_effort`` value for ``level`` (``xhigh`` falls back to ``high``)."""
    try:
        effort = REASONING_EFFORT[level]
    except KeyError:
        raise ConfigurationError(
            f"unknown thinking level {level!r}; use one of {', '.join(REASONING_EFFORT)}"
        ) from None
    if effort == "xhigh" and not supports_xhigh:
        return "high"
    return effort
