"""Google Gemini driver over the official ``google-genai`` SDK.

Needs the ``google`` extra: ``pip install 'agentcore-engine[google]'``.

See docs/providers.md (section Google Gemini) for options, the event mapping, thinking,
thought signatures, retries and errors; docs/drivers.md for the normaliser interface.
"""

from ._google import GoogleDriver as GoogleDriver
from ._google import classify_google_error as classify_google_error
from ._google_request import SKIP_SIGNATURE as SKIP_SIGNATURE
from ._google_request import build_body as build_body
from ._google_request import thinking_config as thinking_config
from ._google_stream import FAILED_FINISH_REASONS as FAILED_FINISH_REASONS
from ._google_stream import FINISH_REASONS as FINISH_REASONS
from ._google_stream import NORMALISER as NORMALISER
from ._google_stream import GeminiState as GeminiState
from ._google_stream import initial_state as initial_state
from ._google_stream import usage_from as usage_from
from ._retry import RetryPolicy as RetryPolicy

__all__ = [
    "FAILED_FINISH_REASONS",
    "FINISH_REASONS",
    "GeminiState",
    "GoogleDriver",
    "NORMALISER",
    "RetryPolicy",
    "SKIP_SIGNATURE",
    "build_body",
    "classify_google_error",
    "initial_state",
    "thinking_config",
    "usage_from",
]
