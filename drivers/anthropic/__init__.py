"""Anthropic Messages API driver (``pip install 'agentcore-engine[anthropic]'``).

See docs/providers.md for options, the event mapping, stop reasons, thinking budgets,
retries and errors; docs/drivers.md for the normaliser interface.
"""

from .._common.retry import RetryPolicy as RetryPolicy
from .content import MEDIA as MEDIA
from .driver import AnthropicDriver as AnthropicDriver
from .driver import classify as classify
from .request import build_params as build_params
from .stream import NORMALISER as NORMALISER
from .stream import STOP_REASONS as STOP_REASONS
from .stream import AnthropicState as AnthropicState
from .stream import initial_state as initial_state

__all__ = [
    "AnthropicDriver",
    "AnthropicState",
    "MEDIA",
    "NORMALISER",
    "RetryPolicy",
    "STOP_REASONS",
    "build_params",
    "classify",
    "initial_state",
]
