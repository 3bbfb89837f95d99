"""OpenAI Responses API driver (``POST /responses``, streamed, stateless).

``pip install 'agentcore-engine[openai]'``. See docs/providers.md (section OpenAI Responses API)
for options, the event mapping, how reasoning is carried between turns, and errors;
docs/drivers.md for the normaliser interface.
"""

from .._common.retry import RetryPolicy as RetryPolicy
from .content import MEDIA as MEDIA
from .driver import OpenAIResponsesDriver as OpenAIResponsesDriver
from .driver import classify as classify
from .request import build_body as build_body
from .request import model_family as model_family
from .stream import INCOMPLETE_REASONS as INCOMPLETE_REASONS
from .stream import NORMALISER as NORMALISER
from .stream import REASONING_PREFIX as REASONING_PREFIX
from .stream import ResponsesState as ResponsesState
from .stream import initial_state as initial_state
from .stream import usage_from as usage_from

__all__ = [
    "INCOMPLETE_REASONS",
    "MEDIA",
    "NORMALISER",
    "OpenAIResponsesDriver",
    "REASONING_PREFIX",
    "ResponsesState",
    "RetryPolicy",
    "build_body",
    "classify",
    "initial_state",
    "model_family",
    "usage_from",
]
