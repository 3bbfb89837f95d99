"""Pieces every provider driver shares: the clock, error classification, keys, budgets.

Vendor quirks stay in the vendor modules; what is here works from plain values (an HTTP
status, headers, the JSON error body) so each driver only has to pull those out of its
SDK's exceptions. Both ``{"error": {"type", "code", "message"}}`` bodies (Anthropic,
OpenAI and most OpenAI-compatible servers), Google's ``{"error": {"code": 503, "status",
"message"}}`` and bare ``{"type", "message"}`` dicts are read.
"""

from __future__ import annotations

import email.utils
import inspect
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeAlias
from urllib.parse import urlsplit

import attrs

from agentcore import ThinkingLevel
from agentcore.errors import ConfigurationError, ErrorCode

__all__ = [
    "ApiKeySource",
    "Failure",
    "THINKING_BUDGETS",
    "classify_status",
    "error_fields",
    "failure_from_status",
    "is_context_overflow",
    "is_loopback",
    "parse_retry_after",
    "plain",
    "resolve_api_key",
    "thinking_budget",
]


@attrs.frozen(slots=True)
class Failure:
    """A classified provider failure: what to report and whether trying again may help.

    ``retry_after`` is the wait in seconds the provider asked for (``retry-after``
    headers), ``None`` when it did not say; ``attempts`` how many requests were sent
    before giving up (``open_stream`` sets it).
    """

    code: ErrorCode
    message: str
    retryable: bool
    retry_after: float | None = None
    status: int | None = None
    attempts: int = 1


# Messages and codes providers use when the prompt does not fit the model's context.
_OVERFLOW = re.compile(
    r"prompt is too long|context[ _-]length|context window|maximum context|"
    r"too many (input )?tokens|input is too long|exceeds? the (model's )?(maximum|context)|"
    r"reduce the length of the (messages|prompt)",
    re.IGNORECASE,
)

_BY_TYPE: dict[str, tuple[ErrorCode, bool]] = {
    "overloaded_error": (ErrorCode.OVERLOADED, True),
    "rate_limit_error": (ErrorCode.RATE_LIMITED, True),
    "rate_limit_exceeded": (ErrorCode.RATE_LIMITED, True),
    "api_error": (ErrorCode.PROVIDER_ERROR, True),
    "server_error": (ErrorCode.PROVIDER_ERROR, True),
    "timeout_error": (ErrorCode.CONNECTION_ERROR, True),
    "authentication_error": (ErrorCode.AUTHENTICATION_ERROR, False),
    "permission_error": (ErrorCode.AUTHENTICATION_ERROR, False),
    "invalid_api_key": (ErrorCode.AUTHENTICATION_ERROR, False),
    # Google's canonical statuses (Gemini)
    "RESOURCE_EXHAUSTED": (ErrorCode.RATE_LIMITED, True),
    "UNAVAILABLE": (ErrorCode.OVERLOADED, True),
    "INTERNAL": (ErrorCode.PROVIDER_ERROR, True),
    "DEADLINE_EXCEEDED": (ErrorCode.PROVIDER_ERROR, True),
    "UNAUTHENTICATED": (ErrorCode.AUTHENTICATION_ERROR, False),
    "PERMISSION_DENIED": (ErrorCode.AUTHENTICATION_ERROR, False),
}


def is_context_overflow(message: str, error_type: str | None = None) -> bool:
    """Whether an error says the prompt exceeds the model's context window."""
    return error_type == "context_length_exceeded" or bool(_OVERFLOW.search(message))


def classify_status(
    status: int | None, error_type: str | None, message: str
) -> tuple[ErrorCode, bool]:
    """Map an HTTP status and the provider's error type/code to ``(ErrorCode, retryable)``.

    The error type wins over the status, because a stream that already answered ``200``
    reports later failures (``overloaded_error``...) as in-band error events.
    """
    if is_context_overflow(message, error_type):
        return ErrorCode.CONTEXT_OVERFLOW, False
    if error_type in _BY_TYPE:
        return _BY_TYPE[error_type]
    if status == 429:
        return ErrorCode.RATE_LIMITED, True
    if status == 529:
        return ErrorCode.OVERLOADED, True
    if status in (401, 403):
        return ErrorCode.AUTHENTICATION_ERROR, False
    if status in (408, 409) or (status is not None and status >= 500):
        return ErrorCode.PROVIDER_ERROR, True
    return ErrorCode.PROVIDER_ERROR, False


def error_fields(body: object) -> tuple[str | None, str | None]:
    """``(type, message)`` from a JSON error body; the type falls back to its ``code``, then
    (when the code is a number, as Google's is) to its ``status``."""
    if not isinstance(body, Mapping):
        return None, None
    inner = body.get("error", body)
    if not isinstance(inner, Mapping):
        return None, str(inner) if inner else None
    kind = inner.get("code") if inner.get("code") == "context_length_exceeded" else None
    kind = kind or inner.get("type") or inner.get("code")
    if not isinstance(kind, str):
        kind = inner.get("status")
    message = inner.get("message")
    return (
        kind if isinstance(kind, str) else None,
        message if isinstance(message, str) else None,
    )


def parse_retry_after(
    headers: Mapping[str, str] | None, now: Callable[[], float] = time.time
) -> float | None:
    """Seconds to wait from ``retry-after-ms``, or ``retry-after`` (seconds or an HTTP date).

    Returns ``None`` when absent or unreadable; a date in the past gives ``0.0``.
    """
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - now(), 0.0)


def _effective_status(status: int | None, body: object) -> int | None:
    """An in-band error (status 200) may carry the real HTTP status as a numeric ``code``.

    OpenRouter, for one, reports an upstream 502 mid-stream as ``{"error": {"code": 502}}``.
    """
    if status not in (None, 200) or not isinstance(body, Mapping):
        return status
    inner = body.get("error", body)
    code = inner.get("code") if isinstance(inner, Mapping) else None
    if isinstance(code, int) and not isinstance(code, bool) and 400 <= code <= 599:
        return code
    return status


def failure_from_status(
    status: int | None, body: object, fallback_message: str, headers: Mapping[str, str] | None
) -> Failure:
    """Classify an HTTP error response (or an in-band error event, status ``200``)."""
    error_type, message = error_fields(body)
    text = message or fallback_message
    code, retryable = classify_status(_effective_status(status, body), error_type, text)
    label = f"{error_type}: {text}" if error_type else text
    if status is not None and status != 200:
        label = f"HTTP {status} {label}"
    return Failure(code, label, retryable, parse_retry_after(headers), status)


THINKING_BUDGETS: Mapping[ThinkingLevel, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 32768,
}
"""Reasoning token budget per thinking level (``off`` has none). 1024 is Anthropic's minimum."""


def thinking_budget(level: ThinkingLevel) -> int | None:
    """The token budget for ``level``, ``None`` for ``off``; an unknown level is an error."""
    if level == "off":
        return None
    try:
        return THINKING_BUDGETS[level]
    except KeyError:
        raise ConfigurationError(
            f"unknown thinking level {level!r}; use one of off, {', '.join(THINKING_BUDGETS)}"
        ) from None


ApiKeySource: TypeAlias = Callable[[], "str | Awaitable[str]"]
"""A callback returning the API key, sync or async; called before every request."""


async def resolve_api_key(source: ApiKeySource) -> str:
    """Call ``source`` (awaiting it when it is async) and check it gave a non-empty string."""
    key: Any = source()
    if inspect.isawaitable(key):
        key = await key
    if not isinstance(key, str) or not key:
        raise ConfigurationError(
            f"get_api_key must return a non-empty string, got {type(key).__name__}"
        )
    return key


LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


def is_loopback(base_url: str | None) -> bool:
    """Whether ``base_url`` is a server on this machine (llama.cpp, Ollama, a proxy),
    which needs no API key."""
    return base_url is not None and urlsplit(base_url).hostname in LOOPBACK_HOSTS


def plain(value: Any) -> Any:
    """Mappings and sequences (frozen or not) as dicts and lists, for the JSON encoder:
    tool inputs, schemas and options may hold immutable mappings and tuples."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [plain(v) for v in value]
    return value
