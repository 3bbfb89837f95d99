"""OpenAI Chat Completions driver, for OpenAI and every OpenAI-compatible server.

``pip install 'agentcore-engine[openai]'``. See docs/providers.md (section OpenAI) for options, the
event mapping, compatible servers and how errors and retries behave; docs/drivers.md for
the normaliser interface.
"""

from .._common.openai_api import NO_KEY as NO_KEY
from .._common.openai_api import REASONING_EFFORT as REASONING_EFFORT
from .._common.openai_api import classify_openai_error as classify_openai_error
from .._common.retry import RetryPolicy as RetryPolicy
from .content import MEDIA as MEDIA
from .content import compatible_media as compatible_media
from .driver import OpenAIDriver as OpenAIDriver
from .stream import DONE as DONE
from .stream import FINISH_REASONS as FINISH_REASONS
from .stream import NORMALISER as NORMALISER
from .stream import ChatState as ChatState
from .stream import initial_state as initial_state
from .stream import stop_reason as stop_reason
from .stream import usage_from as usage_from

__all__ = [
    "ChatState",
    "DONE",
    "FINISH_REASONS",
    "MEDIA",
    "NORMALISER",
    "NO_KEY",
    "OpenAIDriver",
    "REASONING_EFFORT",
    "RetryPolicy",
    "classify_openai_error",
    "compatible_media",
    "initial_state",
    "stop_reason",
    "usage_from",
]
