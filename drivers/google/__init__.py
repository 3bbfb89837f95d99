"""Google Gemini driver over the official ``google-genai`` SDK.

Needs the ``google`` extra: ``pip install 'agentcore-engine[google]'``.

See docs/providers.md (section Google Gemini) for options, the event mapping, thinking,
thought signatures, retries and errors; docs/drivers.md for the normaliser interface.
"""

from .._common.retry import RetryPolicy as RetryPolicy
from .content import MEDIA as MEDIA
from .driver import GoogleDriver as GoogleDriver
from .driver import classify_google_error as classify_google_error
from .request import SKIP_SIGNATURE as SKIP_SIGNATURE
from .request import build_body as build_body
from .request import thinking_config as thinking_config
from .stream import FAILED_FINISH_REASONS as FAILED_FINISH_REASONS
from .stream import FINISH_REASONS as FINISH_REASONS
from .stream import NORMALISER as NORMALISER
from .stream import GeminiState as GeminiState
from .stream import initial_state as initial_state
from .stream import usage_from as usage_from

__all__ = [
    "FAILED_FINISH_REASONS",
    "FINISH_REASONS",
    "GeminiState",
    "GoogleDriver",
    "MEDIA",
    "NORMALISER",
    "RetryPolicy",
    "SKIP_SIGNATURE",
    "build_body",
    "classify_google_error",
    "initial_state",
    "thinking_config",
    "usage_from",
]
