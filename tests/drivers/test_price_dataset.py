"""Prices from the genai-prices dataset: per-TTL cache writes, long-prompt tiers, provider
ids, ``None`` for unknown models, and the hand-written fallback table agreeing with it.

Tests the private module ``agentcore._runtime.plugins``: find_model_price, the lookup over
the registered price tables (not public)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from decimal import Decimal

import attrs
import pytest

from agentcore._runtime.plugins import find_model_price
from agentcore.drivers.price_dataset import DATASET, GenaiPrices
from agentcore.drivers.prices import PRICES
from agentcore.events import Usage
from agentcore.pricing import ModelPrice, PriceTier, call_cost, cost_of

genai_prices = pytest.importorskip("genai_prices")

WHEN = datetime(2026, 11, 28, tzinfo=UTC)
SOURCE = GenaiPrices(now=WHEN)

# Three calls of one Anthropic conversation and a fourth with a long prompt, as the
# Messages API reports their usage (cache_creation split by TTL), recorded per response.
RESPONSES = [
    {
        "model": "claude-sonnet-4-5-20250929",
        "usage": {
            "input_tokens": 21,
            "cache_creation_input_tokens": 3000,
            "cache_read_input_tokens": 0,
            "cache_creation": {
                "ephemeral_5m_input_tokens": 1000,
                "ephemeral_1h_input_tokens": 2000,
            },
            "output_tokens": 393,
        },
    },
    {
        "model": "claude-sonnet-4-5-20250929",
        "usage": {
            "input_tokens": 50,
            "cache_creation_input_tokens": 800,
            "cache_read_input_tokens": 3000,
            "cache_creation": {"ephemeral_5m_input_tokens": 800, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 120,
        },
    },
    {
        "model": "claude-sonnet-4-5-20250929",
        "usage": {
            "input_tokens": 12,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 3800,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 640,
        },
    },
    {
        "model": "claude-sonnet-4-5-20250929",
        "usage": {
            "input_tokens": 150_000,
            "cache_creation_input_tokens": 5000,
            "cache_read_input_tokens": 60_000,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 5000},
            "output_tokens": 2000,
        },
    },
]


def _usage(wire: dict[str, object]) -> Usage:
    """agentcore's counts for an Anthropic ``usage`` object: input excludes cache tokens,
    ``cache_write_tokens`` is every write and ``cache_write_1h_tokens`` its 1-hour part."""
    creation = wire["cache_creation"]
    assert isinstance(creation, dict)
    return Usage(
        input_tokens=wire["input_tokens"],  # type: ignore[arg-type]
        output_tokens=wire["output_tokens"],  # type: ignore[arg-type]
        cache_read_tokens=wire["cache_read_input_tokens"],  # type: ignore[arg-type]
        cache_write_tokens=wire["cache_creation_input_tokens"],  # type: ignore[arg-type]
        cache_write_1h_tokens=creation["ephemeral_1h_input_tokens"],
    )


def test_a_recorded_anthropic_conversation_is_priced_as_the_bill() -> None:
    price = SOURCE.find("anthropic/claude-sonnet-4-5-20250929")
    assert price is not None
    table = {"claude-sonnet-4-5-20250929": price}
    ours = [call_cost(_usage(r["usage"]), r["model"], None, table) for r in RESPONSES]  # type: ignore[arg-type]
    # the dataset's own calculation from the same responses, done by genai-prices
    bill = [
        genai_prices.extract_usage(r, provider_id="anthropic").calc_price(
            genai_request_timestamp=WHEN
        )
        for r in RESPONSES
    ]
    assert ours == pytest.approx([float(b.total_price) for b in bill], rel=1e-12)
    # and by hand at the dataset's rates ($/MTok): input 3, output 15, cache read 0.3,
    # 5-minute write 3.75, 1-hour write 6; above 200k prompt tokens 6, 22.5, 0.6, 7.5, 12
    by_hand = [
        21 * 3 + 393 * 15 + 1000 * 3.75 + 2000 * 6,
        50 * 3 + 120 * 15 + 3000 * 0.3 + 800 * 3.75,
        12 * 3 + 640 * 15 + 3800 * 0.3,
        150_000 * 6 + 2000 * 22.5 + 60_000 * 0.6 + 5000 * 12,
    ]
    assert ours == pytest.approx([d / 1e6 for d in by_hand], rel=1e-12)
    # a 1-hour write is not priced as a 5-minute one
    first = _usage(RESPONSES[0]["usage"])  # type: ignore[arg-type]
    as_5m = Usage(first.input_tokens, first.output_tokens, 0, first.cache_write_tokens)
    assert cost_of(as_5m, price) == pytest.approx(ours[0] - 2000 * (6 - 3.75) / 1e6)


def test_tiers_come_from_the_dataset_at_every_threshold() -> None:
    price = SOURCE.find("claude-sonnet-4-5")
    assert price == ModelPrice(
        input=3.0,
        output=15.0,
        cache_read=0.3,
        cache_write=3.75,
        cache_write_1h=6.0,
        context_window=200_000,
        tiers=(PriceTier(200_000, 6.0, 22.5, 0.6, 7.5, 12.0),),
    )


@pytest.mark.parametrize(
    ("model", "provider_id", "ref"),
    [
        ("openrouter/anthropic/claude-sonnet-4.5", "openrouter", "anthropic/claude-sonnet-4.5"),
        ("openai-responses/gpt-4.1", "openai", "gpt-4.1"),
        ("google/gemini-2.5-pro", "google", "gemini-2.5-pro"),
        ("claude-haiku-4-5", None, "claude-haiku-4-5"),
    ],
)
def test_provider_ids_pick_the_dataset_s_provider(
    model: str, provider_id: str | None, ref: str
) -> None:
    snapshot = genai_prices.data_snapshot.get_snapshot()
    _, info = snapshot.find_provider_model(ref, None, provider_id, None)
    found = SOURCE.find(model)
    assert found is not None
    expected = info.get_prices(WHEN).input_mtok
    assert found.input == float(expected if isinstance(expected, Decimal) else expected.base)
    assert found.context_window == info.context_window


@pytest.mark.parametrize(
    "model", ["anthropic/claude-opus-4-9", "ollama/llama3.1", "gpt-9", "nosuch/claude-sonnet-4-5"]
)
def test_a_model_the_dataset_does_not_know_has_no_price_never_zero(model: str) -> None:
    assert SOURCE.find(model) is None


def test_the_lookup_prefers_the_dataset_and_falls_back_to_the_table() -> None:
    # the dataset's window for Claude Sonnet 4.6 (1M) differs from the table's 200k
    assert find_model_price("anthropic/claude-sonnet-4-6") == DATASET.find(
        "anthropic/claude-sonnet-4-6"
    )
    assert find_model_price("anthropic/claude-sonnet-4-6") != PRICES["claude-sonnet-4-6"]
    # a model only the table knows
    assert DATASET.find("google/gemini-3-pro") is None
    assert find_model_price("google/gemini-3-pro") is PRICES["gemini-3-pro"]
    assert find_model_price("ollama/llama3.1") is None


def test_without_genai_prices_the_dataset_knows_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "genai_prices", None)
    assert SOURCE.find("anthropic/claude-sonnet-4-5") is None
    assert SOURCE.table() == {}
    assert find_model_price("anthropic/claude-sonnet-4-5") is PRICES["claude-sonnet-4-5"]


def test_importing_agentcore_and_its_drivers_does_not_load_the_dataset() -> None:
    code = (
        "import sys, agentcore, agentcore.drivers.prices, agentcore.drivers.price_dataset; "
        "print('genai_prices' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def _rates(rates: ModelPrice | PriceTier) -> tuple[float, ...]:
    """Every rate as billed (an unset cache or audio rate is the input's, an unset 1-hour
    write the cache write's)."""
    read = rates.input if rates.cache_read is None else rates.cache_read
    write = rates.input if rates.cache_write is None else rates.cache_write
    write_1h = write if rates.cache_write_1h is None else rates.cache_write_1h
    audio = rates.input if rates.input_audio is None else rates.input_audio
    return (rates.input, rates.output, read, write, write_1h, audio)


def test_the_fallback_table_agrees_with_the_dataset_for_every_model_both_know() -> None:
    both = 0
    for key, row in PRICES.items():
        found = SOURCE.find(key)
        if found is None:
            continue
        both += 1
        assert _rates(row) == pytest.approx(_rates(found)), key
        assert [t.above for t in row.tiers] == [t.above for t in found.tiers], key
        for mine, theirs in zip(row.tiers, found.tiers, strict=True):
            assert _rates(mine) == pytest.approx(_rates(theirs)), key
    assert both >= 35  # the dataset knows nearly every row: the check is not vacuous


def test_the_dataset_lists_its_models_for_a_table_driven_replay() -> None:
    table = SOURCE.table()
    assert table["claude-sonnet-4-5"] == SOURCE.find("claude-sonnet-4-5")
    assert "gpt-4.1" in table and "gemini-2.5-flash" in table
    assert all(isinstance(p, ModelPrice) for p in table.values())


# A Chat Completions response of gpt-audio that heard a voice message, as OpenAI reports
# its usage (the audio is part of prompt_tokens; the reply is text).
AUDIO_RESPONSE = {
    "model": "gpt-audio",
    "usage": {
        "prompt_tokens": 1240,
        "completion_tokens": 310,
        "total_tokens": 1550,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 1000},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    },
}


def test_a_recorded_openai_call_with_audio_pays_the_dataset_s_audio_rate() -> None:
    from agentcore.drivers.openai.stream import usage_from

    price = SOURCE.find("openai/gpt-audio")
    assert price is not None and price.input_audio is not None
    usage = usage_from(AUDIO_RESPONSE["usage"])  # type: ignore[arg-type]
    assert usage.audio_tokens == 1000
    ours = call_cost(usage, "gpt-audio", price, None)
    # by hand at the dataset's own rates, read from the snapshot
    _, info = genai_prices.data_snapshot.get_snapshot().find_provider_model(
        "gpt-audio", None, "openai", None
    )
    rates = info.get_prices(WHEN)
    assert rates.input_audio_mtok > rates.input_mtok
    by_hand = (
        240 * rates.input_mtok + 1000 * rates.input_audio_mtok + 310 * rates.output_mtok
    ) / Decimal(1_000_000)
    assert ours == pytest.approx(float(by_hand), rel=1e-12)
    # and as genai-prices bills the same response
    bill = genai_prices.extract_usage(
        AUDIO_RESPONSE, provider_id="openai", api_flavor="chat"
    ).calc_price(genai_request_timestamp=WHEN)
    assert ours == pytest.approx(float(bill.total_price), rel=1e-12)


def test_a_model_without_an_audio_rate_prices_audio_as_input() -> None:
    price = SOURCE.find("openai/gpt-4.1")
    assert price is not None and price.input_audio is None
    heard = Usage(input_tokens=1240, output_tokens=310, audio_tokens=1000)
    assert cost_of(heard, price) == cost_of(attrs.evolve(heard, audio_tokens=0), price)
    assert cost_of(heard, price) == pytest.approx((1240 * price.input + 310 * price.output) / 1e6)
