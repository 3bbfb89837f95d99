"""The per-agent event log (memory, JSONL, SQLite, PostgreSQL), replaying it, and snapshots
for fast resume: see docs/journal.md and docs/sessions.md."""

import importlib

from ._journal.blobs import BlobStore as BlobStore
from ._journal.blobs import FolderBlobs as FolderBlobs
from ._journal.blobs import MemoryBlobs as MemoryBlobs
from ._journal.blobs import blob_folder as blob_folder
from ._journal.blobs import extract_blobs as extract_blobs
from ._journal.blobs import resolve_blobs as resolve_blobs
from ._journal.journal import FsyncPolicy as FsyncPolicy
from ._journal.journal import Journal as Journal
from ._journal.journal import JournalEntry as JournalEntry
from ._journal.journal import JournalError as JournalError
from ._journal.journal import JsonlJournal as JsonlJournal
from ._journal.journal import LaneBusyError as LaneBusyError
from ._journal.journal import MemoryJournal as MemoryJournal
from ._journal.journal import read_jsonl as read_jsonl
from ._journal.journal import scrub as scrub
from ._journal.journal import scrub_event as scrub_event
from ._journal.read import MissingBlobError as MissingBlobError
from ._journal.replay import JournalSource as JournalSource
from ._journal.replay import ReplayMachine as ReplayMachine
from ._journal.replay import entries_of as entries_of
from ._journal.replay import replay as replay
from ._journal.replay import replay_steps as replay_steps
from ._journal.replay import state_at as state_at
from ._journal.resume import dump_state as dump_state
from ._journal.resume import load_state as load_state
from ._journal.snapshots import FileSnapshots as FileSnapshots
from ._journal.snapshots import MemorySnapshots as MemorySnapshots
from ._journal.snapshots import SnapshotStore as SnapshotStore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._journal.sql.journal import SqlJournal as SqlJournal
    from ._journal.sql.postgres import PostgresJournal as PostgresJournal
    from ._journal.sql.schema import SCHEMA_VERSION as SCHEMA_VERSION
    from ._journal.sql.snapshots import SqlSnapshots as SqlSnapshots
    from ._journal.sql.sqlite import SqliteJournal as SqliteJournal

_SQL = {
    "SqlJournal": "journal",
    "PostgresJournal": "postgres",
    "SCHEMA_VERSION": "schema",
    "SqlSnapshots": "snapshots",
    "SqliteJournal": "sqlite",
}
"""The SQL journals' names, imported on first use (PEP 562): ``sqlite3`` (with
``datetime``) and the SQL layer are 10 ms a JSONL or memory journal never needs."""


def __getattr__(name: str) -> object:
    module = _SQL.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"._journal.sql.{module}", "agentcore"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "BlobStore",
    "FileSnapshots",
    "FolderBlobs",
    "FsyncPolicy",
    "Journal",
    "JournalEntry",
    "JournalError",
    "JournalSource",
    "JsonlJournal",
    "LaneBusyError",
    "MemoryBlobs",
    "MemoryJournal",
    "MemorySnapshots",
    "MissingBlobError",
    "PostgresJournal",
    "ReplayMachine",
    "SCHEMA_VERSION",
    "SnapshotStore",
    "SqlJournal",
    "SqlSnapshots",
    "SqliteJournal",
    "blob_folder",
    "dump_state",
    "entries_of",
    "extract_blobs",
    "load_state",
    "read_jsonl",
    "replay",
    "replay_steps",
    "resolve_blobs",
    "scrub",
    "scrub_event",
    "state_at",
]
