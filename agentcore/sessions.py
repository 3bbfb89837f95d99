"""Sessions that survive: a conversation kept in a journal, continued, listed, forked,
priced; the seed's memory provider over a journal. See docs/sessions.md."""

from ._sessions.session import JournalMemory as JournalMemory
from ._sessions.session import Session as Session
from ._sessions.sessions import SessionInfo as SessionInfo
from ._sessions.sessions import Sessions as Sessions
from ._sessions.sessions import UsageBy as UsageBy
from ._sessions.sessions import UsageRow as UsageRow

__all__ = [
    "JournalMemory",
    "Session",
    "SessionInfo",
    "Sessions",
    "UsageBy",
    "UsageRow",
]
