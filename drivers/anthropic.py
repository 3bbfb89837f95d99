"""Anthropic Messages API driver (``pip install 'agentcore-engine[anthropic]'``).

See docs/providers.md for options, the event mapping, stop reasons, thinking budgets,
retries and errors; docs/drivers.md for the normaliser interface.
"""

from ._anthropic import AnthropicDriver as AnthropicDriver
from ._anthropic import classify as classify
from ._anthropic_request import build_params as build_params
from ._anthropic_stream import NORMALISER as NORMALISER
from ._anthropic_stream import STOP_REASONS as STOP_REASONS
from ._anthropic_stream import AnthropicState as AnthropicState
from ._anthropic_stream import initial_state as initial_state
from ._retry import RetryPolicy as RetryPolicy

__all__ = [
    "AnthropicDriver",
    "AnthropicState",
    "NORMALISER",
    "RetryPolicy",
    "STOP_REASONS",
    "build_params",
    "classify",
    "initial_state",
]
