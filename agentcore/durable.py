"""Agents as durable workflows: DBOS on PostgreSQL, many workers. See docs/durable.md.

Needs the ``dbos`` extra (``pip install 'agentcore-engine[dbos]'``): ``dbos`` is imported when a
worker or a client is made, never by ``import agentcore.durable``.
"""

from ._durable.client import DurableClient as DurableClient
from ._durable.client import DurableRun as DurableRun
from ._durable.definitions import Definitions as Definitions
from ._durable.effects import idempotency_key as idempotency_key
from ._durable.remote import DurableAgent as DurableAgent
from ._durable.worker import Worker as Worker

__all__ = [
    "Definitions",
    "DurableAgent",
    "DurableClient",
    "DurableRun",
    "Worker",
    "idempotency_key",
]
