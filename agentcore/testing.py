"""Hypothesis strategies for agentcore event streams and a processor conformance check.

Requires the ``testing`` extra (``pip install agentcore[testing]``). Example::

    from hypothesis import given
    from agentcore.testing import assistant_streams, check_processor

    @given(assistant_streams())
    def test_my_processor_is_pure(stream):
        check_processor(my_processor, my_initial_state(), stream.events)
"""

from ._strategies import AssistantStream as AssistantStream
from ._strategies import Turn as Turn
from ._strategies import assistant_streams as assistant_streams
from ._strategies import broken_streams as broken_streams
from ._strategies import check_processor as check_processor
from ._strategies import chunked as chunked
from ._strategies import events as events
from ._strategies import garbage as garbage
from ._strategies import json_objects as json_objects
from ._strategies import rechunked as rechunked
from ._strategies import stream_events as stream_events
from ._strategies import turns as turns
from ._strategies import usages as usages

__all__ = [
    "AssistantStream",
    "Turn",
    "assistant_streams",
    "broken_streams",
    "check_processor",
    "chunked",
    "events",
    "garbage",
    "json_objects",
    "rechunked",
    "stream_events",
    "turns",
    "usages",
]
