"""Presenters: sinks for the engine's outputs (logs, terminal, files, browsers, databases).

``ConsolePresenter`` is imported on first use, so ``import agentcore.presenters`` never imports
``rich`` (an optional dependency: ``pip install 'agentcore-engine[console]'``).
"""

from typing import TYPE_CHECKING, Any

from ._base import Filter as Filter
from .jsonl import JsonlPresenter as JsonlPresenter
from .logging import LoggingPresenter as LoggingPresenter
from .persistence import PersistencePresenter as PersistencePresenter
from .persistence import PostgresRows as PostgresRows
from .persistence import SqliteRows as SqliteRows
from .recording import RecordingPresenter as RecordingPresenter

if TYPE_CHECKING:
    from .console import ConsolePresenter as ConsolePresenter

__all__ = [
    "ConsolePresenter",
    "Filter",
    "JsonlPresenter",
    "LoggingPresenter",
    "PersistencePresenter",
    "PostgresRows",
    "RecordingPresenter",
    "SqliteRows",
]


def __getattr__(name: str) -> Any:
    if name == "ConsolePresenter":
        from .console import ConsolePresenter

        return ConsolePresenter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
