"""Hypothesis strategies for agentcore event streams and a processor conformance check.

Requires the ``testing`` extra (``pip install agentcore-engine[testing]``). Example::

    from hypothesis import given
    from agentcore.testing import assistant_streams, check_processor

    @given(assistant_streams())
    def test_my_processor_is_pure(stream):
        check_processor(my_processor, my_initial_state(), stream.events)
"""

from ._testing.journal_conformance import check_journal as check_journal
from ._testing.journal_conformance import check_snapshot_store as check_snapshot_store
from ._testing.postgres import PostgresServer as PostgresServer
from ._testing.postgres import find_postgres_bin as find_postgres_bin
from ._testing.replay_check import assert_replays as assert_replays
from ._testing.strategies import AssistantStream as AssistantStream
from ._testing.strategies import Turn as Turn
from ._testing.strategies import assistant_streams as assistant_streams
from ._testing.strategies import broken_streams as broken_streams
from ._testing.strategies import caches as caches
from ._testing.strategies import check_processor as check_processor
from ._testing.strategies import chunked as chunked
from ._testing.strategies import content_parts as content_parts
from ._testing.strategies import events as events
from ._testing.strategies import garbage as garbage
from ._testing.strategies import instances as instances
from ._testing.strategies import json_objects as json_objects
from ._testing.strategies import json_values as json_values
from ._testing.strategies import output_specs as output_specs
from ._testing.strategies import rechunked as rechunked
from ._testing.strategies import registered_events as registered_events
from ._testing.strategies import stream_events as stream_events
from ._testing.strategies import turns as turns
from ._testing.strategies import unchecked as unchecked
from ._testing.strategies import usages as usages

__all__ = [
    "AssistantStream",
    "PostgresServer",
    "Turn",
    "assert_replays",
    "assistant_streams",
    "broken_streams",
    "caches",
    "check_journal",
    "check_processor",
    "check_snapshot_store",
    "chunked",
    "content_parts",
    "events",
    "find_postgres_bin",
    "garbage",
    "instances",
    "json_objects",
    "json_values",
    "output_specs",
    "rechunked",
    "registered_events",
    "stream_events",
    "turns",
    "unchecked",
    "usages",
]
