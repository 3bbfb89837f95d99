"""Prices from ``genai-prices``, the maintained price dataset pydantic-ai depends on.

``DATASET.find("anthropic/claude-sonnet-4-5")`` reads the dataset bundled with the
installed ``genai-prices`` (no network) and turns the model's current rates into a
``ModelPrice``: input, output, cache reads, five-minute and one-hour cache writes, audio
input (``input_audio_mtok``, where the model has its own audio rate), and long-prompt tiers
(``PriceTier``), with the model's context window. The part before the
first ``/`` picks the dataset's provider, so ``openrouter/anthropic/claude-sonnet-4.5``
is priced at OpenRouter's rate; a bare id lets the dataset guess the provider.

``None`` (unknown, never 0) when ``genai-prices`` is not installed (``pip install
'agentcore-engine[prices]'``), when the dataset knows neither the provider nor the model,
or when it has no token rates for it. Why this dataset: it is versioned on PyPI, updated
by its maintainers as providers change prices, and models per-TTL cache writes and tiers
by prompt length, which a hand-written table kept going stale on (the table in
``agentcore.drivers.prices`` stays as the fallback when the package is missing).
Rates the dataset prices per unit other than tokens (web searches, audio hours) are not
counted: ``Usage`` has no such counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from agentcore.pricing import ModelPrice, PriceSource, PriceTier

__all__ = ["DATASET", "GenaiPrices", "PROVIDER_IDS"]

PROVIDER_IDS: dict[str, str] = {"openai-responses": "openai", "gemini": "google"}
"""agentcore provider name -> the dataset's provider id, where the two differ."""

_KEYS = (
    "input_mtok",
    "output_mtok",
    "cache_read_mtok",
    "cache_write_mtok",
    "cache_write_1h_mtok",
    "input_audio_mtok",
)
"""The dataset's price keys (USD per million tokens) of ``ModelPrice``'s input, output,
cache read, cache write, 1-hour cache write and audio input rates, in that order."""


def _rate_above(value: Any, prompt: int) -> float | None:
    """A dataset rate (a ``Decimal`` or tiered prices) for a prompt of ``prompt + 1`` tokens."""
    if value is None:
        return None
    if isinstance(value, Decimal):
        return float(value)
    rate = value.base
    for tier in value.tiers:  # sorted by start; the dataset's cliff: prompt > start
        if prompt + 1 > tier.start:
            rate = tier.price
    return float(rate)


def _rates(prices: Any, prompt: int) -> tuple[float | None, ...]:
    return tuple(_rate_above(getattr(prices, key, None), prompt) for key in _KEYS)


def to_model_price(prices: Any, context_window: int | None) -> ModelPrice | None:
    """The dataset's rates of one model as a ``ModelPrice`` (``None`` without token rates).

    Every threshold any rate has becomes one ``PriceTier`` holding all rates at that
    prompt length, which is exact for the dataset's cliff tiers.
    """
    input, output, read, write, write_1h, audio = _rates(prices, 0)
    if input is None or output is None:
        return None
    values = [getattr(prices, key, None) for key in _KEYS]
    starts = {
        t.start for v in values if v is not None and not isinstance(v, Decimal) for t in v.tiers
    }
    tiers = []
    for above in sorted(starts):
        t_input, t_output, t_read, t_write, t_write_1h, t_audio = _rates(prices, above)
        assert t_input is not None and t_output is not None  # the keys the base has
        tiers.append(
            PriceTier(above, t_input, t_output, t_read, t_write, t_write_1h, input_audio=t_audio)
        )
    return ModelPrice(
        input,
        output,
        read,
        write,
        cache_write_1h=write_1h,
        input_audio=audio,
        context_window=context_window,
        tiers=tiers,
    )


class GenaiPrices(PriceSource):
    """The ``genai-prices`` dataset as a ``PriceSource``, read at the rates in force at
    lookup time (``now``, for tests: a fixed instant)."""

    def __init__(self, now: datetime | None = None) -> None:
        self._now = now

    def __repr__(self) -> str:
        return "GenaiPrices()"

    def _snapshot(self) -> Any:
        try:
            from genai_prices import data_snapshot
        except ImportError:
            return None
        return data_snapshot.get_snapshot()

    def find(self, model: str) -> ModelPrice | None:
        snapshot = self._snapshot()
        if snapshot is None:
            return None
        provider, slash, ref = model.partition("/")
        provider_id = PROVIDER_IDS.get(provider, provider) if slash else None
        try:
            _, info = snapshot.find_provider_model(ref if slash else model, None, provider_id, None)
        except LookupError:
            return None
        when = self._now or datetime.now(UTC)
        return to_model_price(info.get_prices(when), info.context_window)

    def table(self) -> Mapping[str, ModelPrice]:
        """The dataset's Anthropic, OpenAI and Google models by their primary id."""
        snapshot = self._snapshot()
        if snapshot is None:
            return {}
        when = self._now or datetime.now(UTC)
        found = {
            info.id: to_model_price(info.get_prices(when), info.context_window)
            for provider in snapshot.providers
            if provider.id in ("anthropic", "openai", "google")
            for info in provider.models
        }
        return {model: price for model, price in found.items() if price is not None}


DATASET = GenaiPrices()
"""The entry point ``agentcore.prices:dataset`` registers (looked up before ``PRICES``)."""
