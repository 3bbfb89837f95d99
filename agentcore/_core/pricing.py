"""Model prices, context windows, and what a model call cost.

A price table maps model ids (or id prefixes) to ``ModelPrice`` values in US dollars per
million tokens, with the model's context window when the table knows it (compaction
measures the context against it). The turn tracker looks prices up with ``find_price``
and turns usage into dollars with ``cost_of``; an unknown model has no price, and its
cost is ``None``, never 0.

Usage counts follow ``Usage``: ``input_tokens`` excludes cache reads and writes (they are
priced separately), ``cache_write_1h_tokens`` is the one-hour part of
``cache_write_tokens``, and ``reasoning_tokens`` are already part of ``output_tokens``
(they are never billed twice). Audio input has its own rate where the provider charges
one (``input_audio``): ``audio_tokens`` are a breakdown of the input side, so up to
``input_tokens`` of them (the uncached part) pay the audio rate instead of the input rate,
assuming audio is the uncached part first (which overestimates when the audio rate is the
higher one); audio in cache reads and writes pays the cache rates. Images and documents
are priced as text input, as the providers bill them.

A price may have tiers by prompt length: a prompt (input, cache reads and writes together)
longer than a tier's ``above`` pays that tier's rates on every token of the call, output
included, as Anthropic and Google bill long prompts.

Where prices come from is the edges' business: ``agentcore.drivers.prices`` reads a
maintained dataset (``genai-prices``) and keeps a hand-written table as its offline
fallback; a ``PriceSource`` is how such a lookup plugs in beside plain tables.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .content import Usage

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .records import frozen

__all__ = ["ModelPrice", "PriceSource", "PriceTier", "call_cost", "cost_of", "find_price"]

_PER_TOKEN = 1e-6


def _non_negative(owner: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    name = f"{type(owner).__name__}.{attribute.name}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not value >= 0:  # also rejects NaN
        raise ValueError(f"{name} must be >= 0 USD per million, got {value}")


def _window(owner: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(
            f"{type(owner).__name__}.{attribute.name} must be an int >= 1, got {value!r}"
        )


@frozen
class PriceTier:
    """The rates of a prompt longer than ``above`` tokens (input, cache reads and writes
    counted together); a cache or audio rate left ``None`` is this tier's input rate, a
    one-hour write rate left ``None`` is its cache-write rate."""

    above: int = attrs.field(validator=_window)
    input: float = attrs.field(validator=_non_negative)
    output: float = attrs.field(validator=_non_negative)
    cache_read: float | None = attrs.field(default=None, validator=_non_negative)
    cache_write: float | None = attrs.field(default=None, validator=_non_negative)
    cache_write_1h: float | None = attrs.field(default=None, validator=_non_negative)
    input_audio: float | None = attrs.field(default=None, validator=_non_negative, kw_only=True)


def _tier(value: PriceTier | Mapping[str, Any]) -> PriceTier:
    return value if isinstance(value, PriceTier) else PriceTier(**value)


def _tiers(value: Iterable[PriceTier | Mapping[str, Any]]) -> tuple[PriceTier, ...]:
    """Tiers sorted by threshold; dicts (a journaled price's wire form) become tiers."""
    tiers = tuple(sorted((_tier(v) for v in value), key=lambda t: t.above))
    if len({t.above for t in tiers}) != len(tiers):
        raise ValueError(f"ModelPrice.tiers has two tiers with the same threshold: {tiers!r}")
    return tiers


@frozen
class ModelPrice:
    """USD per million tokens for one model, and how many tokens its requests may hold.

    ``cache_read`` and ``cache_write`` default to ``None``, meaning "priced like ordinary
    input": a table that does not know a provider's cache discount overestimates rather
    than pretending cached tokens are free. ``cache_write_1h`` prices one-hour cache
    writes (``None``: like ``cache_write``). ``input_audio`` prices uncached audio input
    tokens (``None``: like ``input``). ``tiers`` hold the rates of longer prompts
    (``PriceTier``). ``context_window`` is the most input tokens one request may carry
    (``None``: unknown); compaction keeps the context under it.
    """

    input: float = attrs.field(validator=_non_negative)
    output: float = attrs.field(validator=_non_negative)
    cache_read: float | None = attrs.field(default=None, validator=_non_negative)
    cache_write: float | None = attrs.field(default=None, validator=_non_negative)
    context_window: int | None = attrs.field(default=None, validator=_window, kw_only=True)
    cache_write_1h: float | None = attrs.field(default=None, validator=_non_negative, kw_only=True)
    input_audio: float | None = attrs.field(default=None, validator=_non_negative, kw_only=True)
    tiers: tuple[PriceTier, ...] = attrs.field(default=(), converter=_tiers, kw_only=True)

    def to_wire(self) -> dict[str, Any]:
        """The journaled form, read back by ``ModelPrice(**wire)``: a 1-hour rate, an audio
        rate and tiers appear only when set, so a price without them journals as it did
        before them."""
        wire = attrs.asdict(self, recurse=False)
        for key in ("cache_write_1h", "input_audio"):
            if wire[key] is None:
                del wire[key]
        if self.tiers:
            wire["tiers"] = [_tier_wire(tier) for tier in self.tiers]
        else:
            del wire["tiers"]
        return wire


def _tier_wire(tier: PriceTier) -> dict[str, Any]:
    """A tier's wire form (``PriceTier(**wire)``): its audio rate only when set."""
    wire = attrs.asdict(tier)
    if tier.input_audio is None:
        del wire["input_audio"]
    return wire


def _rates(price: ModelPrice | PriceTier, usage: Usage) -> float:
    cache_read = price.input if price.cache_read is None else price.cache_read
    cache_write = price.input if price.cache_write is None else price.cache_write
    cache_write_1h = cache_write if price.cache_write_1h is None else price.cache_write_1h
    audio = price.input if price.input_audio is None else price.input_audio
    written_1h = min(usage.cache_write_1h_tokens, usage.cache_write_tokens)
    heard = min(usage.audio_tokens, usage.input_tokens)
    return (
        (usage.input_tokens - heard) * price.input
        + heard * audio
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * cache_read
        + (usage.cache_write_tokens - written_1h) * cache_write
        + written_1h * cache_write_1h
    ) * _PER_TOKEN


def cost_of(usage: Usage, price: ModelPrice) -> float:
    """The cost of ``usage`` in US dollars at ``price``: at the rates of the highest tier
    the prompt is longer than, else the base rates."""
    prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    rates: ModelPrice | PriceTier = price
    for tier in price.tiers:
        if prompt > tier.above:
            rates = tier
    return _rates(rates, usage)


class PriceSource(ABC):
    """A price lookup that is not a plain table (a dataset with its own model matching),
    registered in the ``agentcore.prices`` entry-point group beside tables."""

    @abstractmethod
    def find(self, model: str) -> ModelPrice | None:
        """The price of ``model`` (``"provider/model"`` or a bare id), ``None`` if unknown."""

    def table(self) -> Mapping[str, ModelPrice]:
        """Every price this source can list by model id (for a table-driven replay)."""
        return {}


def _bare(model_id: str) -> str:
    """``"anthropic/claude-x"`` -> ``"claude-x"``; ids without a provider stay as they are."""
    return model_id.rpartition("/")[2]


_SUFFIX_STARTS = ("-", ":", "@")
"""A prefix key only prices ids that continue with one of these, so ``gpt-4`` never prices
``gpt-4o`` or ``gpt-4.1`` (different models), while ``claude-sonnet-4-5`` prices the dated
``claude-sonnet-4-5-20250929`` and ``llama3:8b`` style tags."""


def find_price(prices: Mapping[str, ModelPrice], model: str) -> ModelPrice | None:
    """The price of ``model`` in ``prices``, or ``None`` when the table does not know it.

    Lookup order: the exact id; then the same id without a ``provider/`` prefix on either
    side (``"anthropic/claude-sonnet-4-5"`` matches ``"claude-sonnet-4-5"``); then the
    longest key that is a prefix of the id followed by ``-``, ``:`` or ``@``, so
    ``"claude-sonnet-4-5"`` prices the dated ``"claude-sonnet-4-5-20250929"``. Ties go to
    the key that sorts first, so the answer never depends on the table's order.
    """
    exact = prices.get(model)
    if exact is not None:
        return exact
    bare = _bare(model)
    best: tuple[int, int, str] | None = None
    for key in prices:
        key_bare = _bare(key)
        if key_bare == bare:
            rank = (0, 0, key)
        elif key_bare and bare.startswith(key_bare) and bare[len(key_bare)] in _SUFFIX_STARTS:
            rank = (1, -len(key_bare), key)
        else:
            continue
        if best is None or rank < best:
            best = rank
    return None if best is None else prices[best[2]]


def call_cost(
    usage: Usage, model: str, price: ModelPrice | None, prices: Mapping[str, ModelPrice] | None
) -> float | None:
    """The cost of one model call, the one rule every ledger charges by (the loop, the turn
    tracker, the session tally): at the answering ``model``'s row in ``prices`` when the
    table knows it, else at ``price``; ``None`` when neither prices it (never a made-up 0).
    """
    found = None if prices is None else find_price(prices, model)
    if found is None:
        found = price
    return None if found is None else cost_of(usage, found)
