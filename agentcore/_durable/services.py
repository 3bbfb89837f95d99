"""What a worker's durable workflows share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._edges.clock import ms_clock
from .._journal.sql.postgres import PostgresJournal
from .store import Store

__all__ = ["Services"]


class Services:
    """What a worker's workflows share: definitions, the store, the journal, the clock."""

    def __init__(
        self,
        definitions: Any,
        store: Store,
        journal: PostgresJournal,
        *,
        clock: Callable[[], int] = ms_clock,
        live: bool = True,
    ) -> None:
        self.definitions = definitions
        self.store = store
        self.journal = journal
        self.clock = clock
        self.live = live
