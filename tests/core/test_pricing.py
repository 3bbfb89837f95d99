"""Prices: lookup by exact id, provider prefix and dated suffix; cost in dollars."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.events import Usage
from agentcore.pricing import ModelPrice, cost_of, find_price

SONNET = ModelPrice(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)
HAIKU = ModelPrice(input=1.0, output=5.0)
GPT4 = ModelPrice(input=30.0, output=60.0)
TABLE = {
    "claude-sonnet-4-5": SONNET,
    "claude-sonnet-4-5-20250929-special": HAIKU,
    "anthropic/claude-haiku-4-5": HAIKU,
    "gpt-4": GPT4,
}


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-sonnet-4-5", SONNET),
        ("claude-sonnet-4-5-20250929", SONNET),
        ("claude-sonnet-4-5-20250929-special", HAIKU),
        ("claude-sonnet-4-5-20250929-special-2", HAIKU),
        ("anthropic/claude-sonnet-4-5", SONNET),
        ("claude-haiku-4-5", HAIKU),
        ("claude-haiku-4-5-20251001", HAIKU),
        ("openrouter/claude-haiku-4-5", HAIKU),
        ("gpt-4", GPT4),
        ("gpt-4-0613", GPT4),
        ("gpt-4o", None),
        ("gpt-4.1", None),
        ("claude-sonnet-4", None),
        ("unknown", None),
        ("", None),
    ],
)
def test_find_price(model: str, expected: ModelPrice | None) -> None:
    assert find_price(TABLE, model) == expected


def test_find_price_prefers_exact_key_and_is_order_independent() -> None:
    a, b = ModelPrice(1, 1), ModelPrice(2, 2)
    assert find_price({"x/m": a, "m": b}, "x/m") is a
    assert find_price({"x/m": a, "m": b}, "m") is b
    assert find_price({"y/m": b, "x/m": a}, "m") is a
    assert find_price({"x/m": a, "y/m": b}, "m") is a


def test_cost_of_prices_each_kind_of_token() -> None:
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=2_000_000,
        cache_read_tokens=1_000_000,
        cache_write_tokens=1_000_000,
        reasoning_tokens=500_000,
    )
    assert math.isclose(cost_of(usage, SONNET), 3.0 + 30.0 + 0.3 + 3.75)
    # cache prices default to the input price; reasoning is inside output, not billed twice
    assert math.isclose(cost_of(usage, HAIKU), 1.0 + 10.0 + 1.0 + 1.0)
    assert cost_of(Usage(), SONNET) == 0.0


@pytest.mark.parametrize("bad", [-1.0, math.nan])
def test_model_price_rejects_negative_or_nan(bad: float) -> None:
    with pytest.raises(ValueError, match="output must be >= 0"):
        ModelPrice(input=1.0, output=bad)


def test_model_price_rejects_non_numbers() -> None:
    with pytest.raises(TypeError, match="cache_read must be a number"):
        ModelPrice(input=1.0, output=1.0, cache_read="0.3")  # type: ignore[arg-type]


@given(
    st.builds(
        Usage,
        st.integers(0, 10**7),
        st.integers(0, 10**7),
        st.integers(0, 10**7),
        st.integers(0, 10**7),
        st.integers(0, 10**7),
    ),
    st.builds(
        Usage,
        st.integers(0, 10**7),
        st.integers(0, 10**7),
        st.integers(0, 10**7),
        st.integers(0, 10**7),
        st.integers(0, 10**7),
    ),
)
def test_cost_is_additive_over_usage(a: Usage, b: Usage) -> None:
    assert math.isclose(cost_of(a + b, SONNET), cost_of(a, SONNET) + cost_of(b, SONNET))
