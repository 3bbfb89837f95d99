"""Prices: lookup by exact id, provider prefix and dated suffix; cost in dollars."""

import itertools
import json
import math

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.events import Usage
from agentcore.pricing import ModelPrice, PriceTier, cost_of, find_price

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


LONG = ModelPrice(
    input=3.0,
    output=15.0,
    cache_read=0.3,
    cache_write=3.75,
    cache_write_1h=6.0,
    tiers=(PriceTier(200_000, 6.0, 22.5, 0.6, 7.5, 12.0),),
)


def test_a_one_hour_cache_write_is_priced_at_its_own_rate() -> None:
    usage = Usage(cache_write_tokens=3_000_000, cache_write_1h_tokens=1_000_000)
    assert math.isclose(cost_of(usage, attrs.evolve(LONG, tiers=())), 2 * 3.75 + 6.0)
    # past the tier (3M prompt tokens), at the tier's two write rates
    assert math.isclose(cost_of(usage, LONG), 2 * 7.5 + 12.0)
    # without a 1-hour rate, 1-hour writes cost what 5-minute ones do
    assert math.isclose(cost_of(usage, SONNET), 3 * 3.75)


def test_a_prompt_longer_than_a_tier_pays_the_tier_s_rates_on_every_token() -> None:
    at = Usage(input_tokens=100_000, cache_read_tokens=100_000, output_tokens=1_000_000)
    above = Usage(input_tokens=100_001, cache_read_tokens=100_000, output_tokens=1_000_000)
    assert math.isclose(cost_of(at, LONG), 0.3 + 0.03 + 15.0)
    assert math.isclose(cost_of(above, LONG), 100_001 * 6e-6 + 0.06 + 22.5)


def test_tiers_are_sorted_distinct_and_read_back_from_their_wire_form() -> None:
    two = ModelPrice(1.0, 2.0, tiers=[PriceTier(500, 3.0, 4.0), PriceTier(100, 2.0, 3.0)])
    assert [t.above for t in two.tiers] == [100, 500]
    assert ModelPrice(**attrs.asdict(two)) == two
    assert ModelPrice(**json.loads(json.dumps(attrs.asdict(LONG)))) == LONG
    with pytest.raises(ValueError, match="two tiers with the same threshold"):
        ModelPrice(1.0, 2.0, tiers=[PriceTier(100, 2.0, 3.0), PriceTier(100, 3.0, 4.0)])
    with pytest.raises(ValueError, match=r"PriceTier\.above must be an int >= 1"):
        PriceTier(0, 1.0, 1.0)


_RATE = st.floats(0, 100, allow_nan=False)


@given(
    st.builds(Usage, *([st.integers(0, 10**6)] * 5), st.integers(0, 10**6)),
    st.lists(st.integers(1, 3 * 10**6), max_size=3, unique=True),
    _RATE,
    _RATE,
)
def test_tiers_with_the_base_rates_change_nothing(
    usage: Usage, thresholds: list[int], input: float, output: float
) -> None:
    """A tier only ever changes the rates, never which tokens are billed."""
    base = ModelPrice(input, output)
    tiered = ModelPrice(input, output, tiers=[PriceTier(t, input, output) for t in thresholds])
    assert math.isclose(cost_of(usage, tiered), cost_of(usage, base), abs_tol=1e-12)


@given(st.builds(Usage, *([st.integers(0, 10**6)] * 6)), st.integers(1, 10**6))
def test_the_rates_in_force_are_the_highest_tier_the_prompt_passes(
    usage: Usage, above: int
) -> None:
    tier = PriceTier(above, 7.0, 9.0)
    prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    expected = ModelPrice(7.0, 9.0) if prompt > above else ModelPrice(1.0, 2.0)
    got = cost_of(usage, ModelPrice(1.0, 2.0, tiers=[tier]))
    assert math.isclose(got, cost_of(usage, expected))


@given(
    st.integers(0, 10**7),
    st.integers(0, 10**7),
    st.integers(0, 10**7),
    st.floats(0, 100),
    st.floats(0, 100),
)
def test_audio_replacing_text_at_a_higher_rate_never_lowers_the_cost(
    input_tokens: int, audio: int, cache_read: int, rate: float, extra: float
) -> None:
    price = ModelPrice(input=rate, output=15.0, cache_read=0.3, input_audio=rate + extra)
    text = Usage(input_tokens=input_tokens, cache_read_tokens=cache_read)
    costs = [
        cost_of(attrs.evolve(text, audio_tokens=heard), price)
        for heard in sorted({0, audio // 2, audio})
    ]
    assert all(b >= a - 1e-12 * a for a, b in itertools.pairwise(costs))
    # the uncached audio (at most the input tokens) pays the audio rate, the rest input's
    heard = min(audio, input_tokens)
    expected = ((input_tokens - heard) * rate + heard * (rate + extra) + cache_read * 0.3) / 1e6
    assert math.isclose(costs[-1], expected, rel_tol=1e-9, abs_tol=1e-12)


def test_an_audio_rate_journals_only_when_set_and_reads_back() -> None:
    plain = ModelPrice(input=2.5, output=10.0)
    assert "input_audio" not in plain.to_wire()
    heard = ModelPrice(
        input=2.5, output=10.0, input_audio=32.0, tiers=(PriceTier(1000, 5.0, 20.0),)
    )
    wire = heard.to_wire()
    assert wire["input_audio"] == 32.0 and "input_audio" not in wire["tiers"][0]
    assert ModelPrice(**json.loads(json.dumps(wire))) == heard
    assert ModelPrice(**plain.to_wire()) == plain
