"""Anthropic Messages API driver (``pip install agentcore[anthropic]``).

See docs/providers.md for options, the event mapping, stop reasons, thinking budgets,
retries and errors.
"""

from ._anthropic import STOP_REASONS as STOP_REASONS
from ._anthropic import AnthropicDriver as AnthropicDriver
from ._anthropic import StreamMapper as StreamMapper
from ._anthropic_request import build_params as build_params
from ._retry import RetryPolicy as RetryPolicy

__all__ = ["AnthropicDriver", "RetryPolicy", "STOP_REASONS", "StreamMapper", "build_params"]
