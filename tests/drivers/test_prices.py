"""The price table: lookups the turn tracker makes, and costs that come out of them."""

from __future__ import annotations

import pytest

from agentcore.drivers.prices import PRICES
from agentcore.events import Usage
from agentcore.pricing import ModelPrice, cost_of, find_price


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("claude-sonnet-4-5", "claude-sonnet-4-5"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("anthropic/claude-haiku-4-5", "claude-haiku-4-5"),
        ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("openai/gpt-4.1", "gpt-4.1"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("gpt-4o-mini", "gpt-4o-mini"),
        ("o3-mini", "o3-mini"),
        ("o4-mini-2025-04-16", "o4-mini"),
        ("gpt-5-mini", "gpt-5-mini"),
        ("google/gemini-2.5-flash", "gemini-2.5-flash"),
        ("gemini-2.5-flash-lite", "gemini-2.5-flash-lite"),
        ("gemini-2.5-flash-preview-09-2025", "gemini-2.5-flash"),
        ("gemini-3-pro-preview", "gemini-3-pro"),
        ("gemini-3.1-pro-preview", "gemini-3.1-pro"),
    ],
)
def test_known_models_find_their_own_row(model: str, key: str) -> None:
    assert find_price(PRICES, model) is PRICES[key]


@pytest.mark.parametrize(
    "model", ["llama3.1:8b", "openrouter/meta/llama-4", "claude-opus-4-9", "gpt-9", "gemini-9-pro"]
)
def test_unknown_models_have_no_price(model: str) -> None:
    assert find_price(PRICES, model) is None


def test_dated_snapshots_price_as_their_own_model_not_a_shorter_sibling() -> None:
    for key in PRICES:
        assert find_price(PRICES, f"{key}-2099-01-01") is PRICES[key], key


def test_every_price_is_sane() -> None:
    for key, price in PRICES.items():
        assert isinstance(price, ModelPrice)
        assert 0 < price.input <= price.output, key
        if price.cache_read is not None:
            assert price.cache_read < price.input, key
        if price.cache_write is not None:
            assert price.cache_write >= price.input, key


def test_anthropic_cache_rates_follow_published_multiples() -> None:
    sonnet = PRICES["claude-sonnet-4-5"]
    assert (sonnet.input, sonnet.output, sonnet.cache_read, sonnet.cache_write) == (
        3.0,
        15.0,
        0.3,
        3.75,
    )


def test_cost_of_an_openai_call_with_cached_input() -> None:
    usage = Usage(input_tokens=1_000_000, cache_read_tokens=1_000_000, output_tokens=500_000)
    assert cost_of(usage, PRICES["gpt-4.1"]) == pytest.approx(2.0 + 0.5 + 4.0)
