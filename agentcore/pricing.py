"""Model prices: ``ModelPrice`` (USD per million tokens), ``find_price`` and ``cost_of``."""

from ._core.pricing import ModelPrice as ModelPrice
from ._core.pricing import cost_of as cost_of
from ._core.pricing import find_price as find_price

__all__ = ["ModelPrice", "cost_of", "find_price"]
