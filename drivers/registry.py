"""Drivers by model spec: ``get_driver("anthropic/claude-sonnet-4-5")``, ``"ollama/qwen3"``.

See docs/providers.md for the provider table, environment variables and base URLs.
"""

from ._registry import PROVIDERS as PROVIDERS
from ._registry import Provider as Provider
from ._registry import get_driver as get_driver
from ._registry import split_model as split_model

__all__ = ["PROVIDERS", "Provider", "get_driver", "split_model"]
