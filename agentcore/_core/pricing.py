"""Model prices, context windows, and what a model call cost.

A price table maps model ids (or id prefixes) to ``ModelPrice`` values in US dollars per
million tokens, with the model's context window when the table knows it (compaction
measures the context against it). The turn tracker looks prices up with ``find_price``
and turns usage into dollars with ``cost_of``; an unknown model has no price, and its
cost is ``None``, never 0.

Usage counts follow ``Usage``: ``input_tokens`` excludes cache reads and writes (they are
priced separately), and ``reasoning_tokens`` are already part of ``output_tokens`` (they
are never billed twice).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .content import Usage

__all__ = ["ModelPrice", "call_cost", "cost_of", "find_price"]

_PER_TOKEN = 1e-6


def _non_negative(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"ModelPrice.{attribute.name} must be a number, got {value!r}")
    if not value >= 0:  # also rejects NaN
        raise ValueError(f"ModelPrice.{attribute.name} must be >= 0 USD per million, got {value}")


def _window(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"ModelPrice.context_window must be an int >= 1 or None, got {value!r}")


@attrs.frozen(slots=True)
class ModelPrice:
    """USD per million tokens for one model, and how many tokens its requests may hold.

    ``cache_read`` and ``cache_write`` default to ``None``, meaning "priced like ordinary
    input": a table that does not know a provider's cache discount overestimates rather
    than pretending cached tokens are free. ``context_window`` is the most input tokens
    one request may carry (``None``: unknown); compaction keeps the context under it.
    """

    input: float = attrs.field(validator=_non_negative)
    output: float = attrs.field(validator=_non_negative)
    cache_read: float | None = attrs.field(default=None, validator=_non_negative)
    cache_write: float | None = attrs.field(default=None, validator=_non_negative)
    context_window: int | None = attrs.field(default=None, validator=_window, kw_only=True)


def cost_of(usage: Usage, price: ModelPrice) -> float:
    """The cost of ``usage`` in US dollars at ``price``."""
    cache_read = price.input if price.cache_read is None else price.cache_read
    cache_write = price.input if price.cache_write is None else price.cache_write
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * cache_read
        + usage.cache_write_tokens * cache_write
    ) * _PER_TOKEN


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
