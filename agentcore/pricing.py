"""Model prices: ``ModelPrice`` (USD per million tokens, with ``PriceTier`` rates for long
prompts), ``find_price``, ``cost_of``, ``call_cost`` (the one rule every cost ledger
charges a model call by) and ``PriceSource`` (a lookup registered beside tables)."""

from ._core.pricing import ModelPrice as ModelPrice
from ._core.pricing import PriceSource as PriceSource
from ._core.pricing import PriceTier as PriceTier
from ._core.pricing import call_cost as call_cost
from ._core.pricing import cost_of as cost_of
from ._core.pricing import find_price as find_price

__all__ = ["ModelPrice", "PriceSource", "PriceTier", "call_cost", "cost_of", "find_price"]
