"""Model prices: ``ModelPrice`` (USD per million tokens), ``find_price``, ``cost_of`` and
``call_cost`` (the one rule every cost ledger charges a model call by)."""

from ._core.pricing import ModelPrice as ModelPrice
from ._core.pricing import call_cost as call_cost
from ._core.pricing import cost_of as cost_of
from ._core.pricing import find_price as find_price

__all__ = ["ModelPrice", "call_cost", "cost_of", "find_price"]
