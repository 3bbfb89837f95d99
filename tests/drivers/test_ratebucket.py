"""The rate budget's bucket arithmetic: never more than the limit in any window, refilled
at its rate, corrected by usage, lowered by what the provider reports.

Tests the private module ``agentcore.drivers._common.ratebucket``: the rate budget's bucket
arithmetic."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.drivers._common.ratebucket import (
    Bucket,
    RateLimit,
    block,
    full,
    level_at,
    observe,
    reserve,
    settle,
)

LIMITS = st.builds(
    RateLimit,
    st.integers(2, 500).map(float),
    st.sampled_from([1.0, 6.0, 60.0]),
)


@st.composite
def calls(draw: st.DrawFn) -> tuple[RateLimit, list[tuple[float, float]]]:
    """A limit and calls ``(request time, amount)`` in time order, amounts within the burst."""
    limit = draw(LIMITS)
    gaps = draw(st.lists(st.floats(0, limit.window / 4), min_size=1, max_size=60))
    amounts = draw(
        st.lists(st.floats(0.01, limit.capacity), min_size=len(gaps), max_size=len(gaps))
    )
    return limit, list(zip(itertools.accumulate(gaps), amounts, strict=True))


def _grants(limit: RateLimit, requests: list[tuple[float, float]]) -> list[tuple[float, float]]:
    bucket = full(limit, 0.0)
    grants = []
    for now, amount in requests:
        bucket, when = reserve(bucket, amount, limit, now)
        assert when >= now
        grants.append((when, amount))
    return grants


@given(calls())
def test_no_window_ever_holds_more_than_the_limit(case: tuple[RateLimit, list]) -> None:
    limit, requests = case
    grants = _grants(limit, requests)
    assert [w for w, _ in grants] == sorted(w for w, _ in grants)  # first come, first served
    for start, _ in grants:  # the fullest window starts at a grant
        inside = sum(a for w, a in grants if start <= w < start + limit.window)
        assert inside <= limit.limit + 1e-6


@given(LIMITS, st.integers(1, 400))
def test_a_queue_is_served_at_the_refill_rate_after_the_burst(limit: RateLimit, n: int) -> None:
    grants = _grants(limit, [(0.0, 1.0)] * n)
    for k, (when, _) in enumerate(grants, start=1):
        expected = max(0.0, (k - limit.capacity) / limit.rate)
        assert when == pytest.approx(expected, abs=1e-6)


@given(LIMITS, st.floats(0, 1e4), st.floats(0, 1e4))
def test_a_bucket_refills_up_to_its_burst_and_no_further(
    limit: RateLimit, drawn: float, idle: float
) -> None:
    bucket, _ = reserve(full(limit, 0.0), min(drawn, limit.capacity), limit, 0.0)
    later = level_at(bucket, limit, idle)
    expected = min(limit.capacity, bucket.level + limit.rate * idle)
    assert later == pytest.approx(expected)
    assert later <= limit.capacity


@given(LIMITS, st.floats(0, 1e3), st.floats(0, 1e3))
def test_settling_gives_back_what_was_not_used_and_owes_the_rest(
    limit: RateLimit, reserved: float, used: float
) -> None:
    bucket, when = reserve(full(limit, 0.0), reserved, limit, 0.0)
    after = settle(bucket, used, reserved, limit, when)
    assert after.level == pytest.approx(min(limit.capacity, bucket.level + reserved - used))
    assert settle(bucket, reserved, reserved, limit, when) == bucket


def test_an_amount_above_the_burst_waits_for_a_full_bucket_and_is_owed() -> None:
    limit = RateLimit(600, 60.0, burst=10)  # refills 590/60 a second
    bucket, when = reserve(full(limit, 0.0), 100, limit, 0.0)
    assert (bucket, when) == (Bucket(-90, 0.0), 0.0)
    _, next_at = reserve(bucket, 1, limit, 0.0)
    assert next_at == pytest.approx(91 / limit.rate)


def test_what_the_provider_reports_and_retry_after_hold_the_bucket_back() -> None:
    limit = RateLimit(60, 60.0)
    bucket = observe(full(limit, 0.0), 0, limit, 0.0)
    assert bucket == Bucket(0, 0.0)
    assert observe(full(limit, 0.0), 5, limit, 0.0) == full(limit, 0.0)  # never raises it
    held = block(full(limit, 0.0), 30.0, limit, 10.0)
    _, when = reserve(held, 1, limit, 10.0)
    assert when == pytest.approx(30.0 + 1 / limit.rate)


def test_the_default_burst_is_a_sixtieth_of_the_limit_between_one_and_half() -> None:
    assert [RateLimit(n).capacity for n in (1, 2, 60, 6000)] == [0.5, 1.0, 1.0, 100.0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0,), "RateLimit.limit must be a number > 0, got 0"),
        ((10, -1.0), "RateLimit.window must be a number > 0"),
        ((10, 60.0, 10), r"RateLimit.burst must be below the limit \(10\), got 10"),
    ],
)
def test_a_bad_limit_names_what_is_wrong(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RateLimit(*args)
