"""RetryPolicy and open_stream: retries before the first item only, retry-after honoured.

Tests the private module ``agentcore.drivers._common``: classifying failures, and retrying
before the first item."""

import asyncio
from collections.abc import AsyncIterator

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore.drivers._common.base import (
    Failure,
    classify_status,
    failure_from_status,
    is_context_overflow,
    parse_retry_after,
    resolve_api_key,
    thinking_budget,
)
from agentcore.drivers._common.retry import Opened, RetryPolicy, open_stream
from agentcore.errors import ErrorCode

RETRYABLE = Failure(ErrorCode.RATE_LIMITED, "slow down", True)
FATAL = Failure(ErrorCode.AUTHENTICATION_ERROR, "bad key", False)


class Boom(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def classify(exc: BaseException) -> Failure:
    assert isinstance(exc, Boom)
    return exc.failure


async def items(*values: int) -> AsyncIterator[int]:
    for v in values:
        yield v


def run_open(
    outcomes: list[Failure | None], policy: RetryPolicy
) -> tuple[Opened[int] | Failure, list[float], int]:
    """Attempt n fails with outcomes[n] (None: succeeds); returns result, sleeps, attempts."""
    sleeps: list[float] = []
    attempts = 0

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def start() -> AsyncIterator[int]:
        nonlocal attempts
        outcome = outcomes[attempts]
        attempts += 1
        if outcome is not None:
            raise Boom(outcome)
        return items(1, 2)

    result = asyncio.run(open_stream(start, classify, policy, sleep=sleep, draw=lambda: 0.5))
    return result, sleeps, attempts


def test_retries_until_success_with_backoff() -> None:
    policy = RetryPolicy(max_retries=3, initial_delay=1.0, multiplier=2.0, jitter=0.1)
    result, sleeps, attempts = run_open([RETRYABLE, RETRYABLE, None], policy)
    assert isinstance(result, Opened)
    assert result.first == 1 and result.attempts == 3 == attempts
    assert sleeps == [1.0, 2.0]  # draw 0.5 means no jitter


def test_honours_retry_after_and_gives_up_when_it_is_too_long() -> None:
    slow = Failure(ErrorCode.RATE_LIMITED, "slow", True, retry_after=7.5)
    result, sleeps, _ = run_open([slow, None], RetryPolicy())
    assert isinstance(result, Opened) and sleeps == [7.5]
    too_slow = Failure(ErrorCode.RATE_LIMITED, "slow", True, retry_after=500.0)
    result, sleeps, attempts = run_open([too_slow, None], RetryPolicy(max_retry_after=60))
    assert result == too_slow and sleeps == [] and attempts == 1


def test_non_retryable_and_exhausted() -> None:
    result, sleeps, attempts = run_open([FATAL], RetryPolicy())
    assert result == FATAL and sleeps == [] and attempts == 1
    result, sleeps, attempts = run_open([RETRYABLE] * 3, RetryPolicy(max_retries=2))
    assert result == attrs.evolve(RETRYABLE, attempts=3) and len(sleeps) == 2 and attempts == 3


def test_empty_stream_is_a_retryable_connection_error() -> None:
    async def start() -> AsyncIterator[int]:
        return items()

    async def sleep(_: float) -> None:
        return None

    result = asyncio.run(open_stream(start, classify, RetryPolicy(max_retries=1), sleep=sleep))
    assert isinstance(result, Failure)
    assert result.code == ErrorCode.CONNECTION_ERROR and result.retryable


@settings(max_examples=100)
@given(
    retry=st.integers(0, 20),
    draw=st.floats(0, 1, exclude_max=True),
    jitter=st.floats(0, 1),
)
def test_backoff_stays_within_bounds(retry: int, draw: float, jitter: float) -> None:
    policy = RetryPolicy(initial_delay=0.5, max_delay=10.0, jitter=jitter)
    delay = policy.delay(retry, None, lambda: draw)
    base = min(0.5 * 2.0**retry, 10.0)
    assert base * (1 - jitter) - 1e-9 <= delay <= base * (1 + jitter) + 1e-9


def test_policy_rejects_negative_values() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    date = "Wed, 21 Oct 2015 07:28:10 GMT"
    assert parse_retry_after({"retry-after": date}, now=lambda: 1445412490.0) == 0.0
    assert parse_retry_after({"retry-after": date}, now=lambda: 1445412480.0) == 10.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None


@pytest.mark.parametrize(
    ("status", "kind", "message", "expected"),
    [
        (429, "rate_limit_error", "slow", (ErrorCode.RATE_LIMITED, True)),
        (529, "overloaded_error", "Overloaded", (ErrorCode.OVERLOADED, True)),
        (200, "overloaded_error", "Overloaded", (ErrorCode.OVERLOADED, True)),
        (503, None, "unavailable", (ErrorCode.PROVIDER_ERROR, True)),
        (401, "authentication_error", "bad key", (ErrorCode.AUTHENTICATION_ERROR, False)),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
            (ErrorCode.CONTEXT_OVERFLOW, False),
        ),
        (400, "context_length_exceeded", "whatever", (ErrorCode.CONTEXT_OVERFLOW, False)),
        (400, "invalid_request_error", "messages: bad role", (ErrorCode.PROVIDER_ERROR, False)),
    ],
)
def test_classify_status(
    status: int, kind: str | None, message: str, expected: tuple[ErrorCode, bool]
) -> None:
    assert classify_status(status, kind, message) == expected


def test_failure_from_status_reads_both_body_shapes() -> None:
    anthropic_body = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    failure = failure_from_status(529, anthropic_body, "fallback", {"retry-after": "2"})
    assert failure == Failure(
        ErrorCode.OVERLOADED, "HTTP 529 overloaded_error: busy", True, 2.0, 529
    )
    openai_body = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    failure = failure_from_status(400, openai_body, "fallback", None)
    assert failure.code == ErrorCode.CONTEXT_OVERFLOW
    assert failure_from_status(500, "not json", "fallback", None).message == "HTTP 500 fallback"
    assert is_context_overflow("Input is too long for requested model.")


def test_thinking_budget_and_api_key_resolution() -> None:
    assert thinking_budget("off") is None
    assert thinking_budget("minimal") == 1024 < thinking_budget("xhigh")  # type: ignore[operator]
    with pytest.raises(ValueError, match="unknown thinking level"):
        thinking_budget("max")  # type: ignore[arg-type]

    async def async_key() -> str:
        return "k2"

    assert asyncio.run(resolve_api_key(lambda: "k1")) == "k1"
    assert asyncio.run(resolve_api_key(async_key)) == "k2"
    with pytest.raises(ValueError, match="non-empty string"):
        asyncio.run(resolve_api_key(lambda: ""))


def test_inband_numeric_code_is_read_as_the_http_status() -> None:
    """OpenRouter reports an upstream 502 mid-stream as ``{"error": {"code": 502}}``."""
    failure = failure_from_status(200, {"error": {"code": 502, "message": "upstream"}}, "x", None)
    assert (failure.code, failure.retryable) == (ErrorCode.PROVIDER_ERROR, True)
    plain = failure_from_status(200, {"error": {"code": "weird", "message": "no"}}, "x", None)
    assert plain.retryable is False


@pytest.mark.parametrize(("failure", "attempts"), [(RETRYABLE, 2), (FATAL, 1)])
def test_a_first_item_the_check_rejects_fails_that_attempt(failure: Failure, attempts: int) -> None:
    """``check`` sees only the first item; what it raises is classified, then maybe retried."""
    firsts = iter([0, 7])
    started = 0

    async def start() -> AsyncIterator[int]:
        nonlocal started
        started += 1
        return items(next(firsts), 8)

    def check(first: int) -> None:
        if first == 0:
            raise Boom(failure)

    async def no_sleep(_: float) -> None:
        return None

    result = asyncio.run(open_stream(start, classify, RetryPolicy(), sleep=no_sleep, check=check))
    expected = Opened if failure.retryable else Failure
    assert (started, type(result)) == (attempts, expected)
    if isinstance(result, Opened):
        assert (result.first, result.attempts) == (7, 2)
    else:
        assert result == failure
