"""OpenAI Chat Completions driver, for OpenAI and every OpenAI-compatible server.

``pip install 'agentcore-engine[openai]'``. See docs/providers.md (section OpenAI) for options, the
event mapping, compatible servers and how errors and retries behave; docs/drivers.md for
the normaliser interface.
"""

from ._openai import NO_KEY as NO_KEY
from ._openai import OpenAIDriver as OpenAIDriver
from ._openai import classify_openai_error as classify_openai_error
from ._openai_request import REASONING_EFFORT as REASONING_EFFORT
from ._openai_stream import DONE as DONE
from ._openai_stream import FINISH_REASONS as FINISH_REASONS
from ._openai_stream import NORMALISER as NORMALISER
from ._openai_stream import ChatState as ChatState
from ._openai_stream import initial_state as initial_state
from ._openai_stream import stop_reason as stop_reason
from ._openai_stream import usage_from as usage_from
from ._retry import RetryPolicy as RetryPolicy

__all__ = [
    "ChatState",
    "DONE",
    "FINISH_REASONS",
    "NORMALISER",
    "NO_KEY",
    "OpenAIDriver",
    "REASONING_EFFORT",
    "RetryPolicy",
    "classify_openai_error",
    "initial_state",
    "stop_reason",
    "usage_from",
]
