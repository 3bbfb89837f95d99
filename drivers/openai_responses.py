"""OpenAI Responses API driver (``POST /responses``, streamed, stateless).

``pip install 'agentcore-engine[openai]'``. See docs/providers.md (section OpenAI Responses API)
for options, the event mapping, how reasoning is carried between turns, and errors;
docs/drivers.md for the normaliser interface.
"""

from ._openai_responses import OpenAIResponsesDriver as OpenAIResponsesDriver
from ._openai_responses import classify as classify
from ._openai_responses_request import build_body as build_body
from ._openai_responses_request import model_family as model_family
from ._openai_responses_stream import INCOMPLETE_REASONS as INCOMPLETE_REASONS
from ._openai_responses_stream import NORMALISER as NORMALISER
from ._openai_responses_stream import REASONING_PREFIX as REASONING_PREFIX
from ._openai_responses_stream import ResponsesState as ResponsesState
from ._openai_responses_stream import initial_state as initial_state
from ._openai_responses_stream import usage_from as usage_from
from ._retry import RetryPolicy as RetryPolicy

__all__ = [
    "INCOMPLETE_REASONS",
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
