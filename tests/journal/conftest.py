"""Fixtures shared by the journal tests."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the children this test forks (other children, such as the session's
    PostgreSQL server, are not the reader's business)."""
    pids: list[int] = []
    real_fork = os.fork

    def recording_fork() -> int:
        pid = real_fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording_fork)
    return pids
