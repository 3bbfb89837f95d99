"""The kit the provider drivers are tested with, for your driver too.

- ``ReplayServer`` serves scripted responses (``ScriptedResponse``) over HTTP/1.1 on
  127.0.0.1: point an SDK's ``base_url`` at it and the SDK's own HTTP client and SSE
  decoder run exactly as against the provider (statuses, ``retry-after``, pauses, a
  connection cut after n chunks, a hang-up). ``sse_response``, ``sse_events`` and
  ``rechunk`` build and re-cut SSE bodies.
- ``LimitedServer`` is a fake provider that answers 429 above ``limit`` requests per
  ``window`` seconds (rate-budget tests); ``busiest_window`` counts its fullest window.
- ``reply_chunks`` and ``reply_sse`` write a reply (``Said`` text, ``Called`` tools) the
  way each provider streams it, to cut or break as a test needs.
- Conformance checks: ``interrupt_when`` (an interrupt ends ``receive`` promptly and
  leaves the caller's task uncancelled), ``check_stream`` (the events of one call are well
  formed for the assembler), ``check_blank_text_before_tools`` (blank text before tool
  calls neither ends the turn nor hides the calls), and ``assemble``.
"""

from ._common.checks import Interrupted as Interrupted
from ._common.checks import assemble as assemble
from ._common.checks import check_blank_text_before_tools as check_blank_text_before_tools
from ._common.checks import check_stream as check_stream
from ._common.checks import interrupt_when as interrupt_when
from ._common.limited_server import LimitedServer as LimitedServer
from ._common.limited_server import busiest_window as busiest_window
from ._common.replay_server import RecordedRequest as RecordedRequest
from ._common.replay_server import ReplayServer as ReplayServer
from ._common.replay_server import ScriptedResponse as ScriptedResponse
from ._common.replay_server import rechunk as rechunk
from ._common.replay_server import sse_events as sse_events
from ._common.replay_server import sse_response as sse_response
from ._common.replies import PROVIDER_FORMATS as PROVIDER_FORMATS
from ._common.replies import Called as Called
from ._common.replies import Said as Said
from ._common.replies import reply_chunks as reply_chunks
from ._common.replies import reply_sse as reply_sse

__all__ = [
    "Called",
    "Interrupted",
    "LimitedServer",
    "PROVIDER_FORMATS",
    "RecordedRequest",
    "ReplayServer",
    "Said",
    "ScriptedResponse",
    "assemble",
    "busiest_window",
    "check_blank_text_before_tools",
    "check_stream",
    "interrupt_when",
    "rechunk",
    "reply_chunks",
    "reply_sse",
    "sse_events",
    "sse_response",
]
