"""The per-agent event log, and replaying it: see docs/journal.md."""

from ._journal import FsyncPolicy as FsyncPolicy
from ._journal import Journal as Journal
from ._journal import JournalEntry as JournalEntry
from ._journal import JournalError as JournalError
from ._journal import JsonlJournal as JsonlJournal
from ._journal import MemoryJournal as MemoryJournal
from ._journal import read_jsonl as read_jsonl
from ._journal import scrub as scrub
from ._journal import scrub_event as scrub_event
from ._replay import JournalSource as JournalSource
from ._replay import ReplayMachine as ReplayMachine
from ._replay import entries_of as entries_of
from ._replay import replay as replay
from ._replay import replay_steps as replay_steps
from ._replay import state_at as state_at

__all__ = [
    "FsyncPolicy",
    "Journal",
    "JournalEntry",
    "JournalError",
    "JournalSource",
    "JsonlJournal",
    "MemoryJournal",
    "ReplayMachine",
    "entries_of",
    "read_jsonl",
    "replay",
    "replay_steps",
    "scrub",
    "scrub_event",
    "state_at",
]
