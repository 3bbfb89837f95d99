"""OpenAI Chat Completions driver, for OpenAI and every OpenAI-compatible server.

``pip install agentcore[openai]``. See docs/providers.md (section OpenAI) for options, the
event mapping, compatible servers and how errors and retries behave.
"""

from ._openai import NO_KEY as NO_KEY
from ._openai import OpenAIDriver as OpenAIDriver
from ._openai import classify_openai_error as classify_openai_error
from ._openai_request import REASONING_EFFORT as REASONING_EFFORT
from ._openai_stream import FINISH_REASONS as FINISH_REASONS
from ._openai_stream import ChunkMapper as ChunkMapper
from ._openai_stream import usage_from as usage_from
from ._retry import RetryPolicy as RetryPolicy

__all__ = [
    "ChunkMapper",
    "FINISH_REASONS",
    "NO_KEY",
    "OpenAIDriver",
    "REASONING_EFFORT",
    "RetryPolicy",
    "classify_openai_error",
    "usage_from",
]
