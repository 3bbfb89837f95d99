"""The chat page shows a ``cache_bust`` (a request that could not reuse the provider's
prompt cache) as a note in the reply, in real headless Chromium (see test_page_chat.py)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import expect

from agentcore import Cache

from .test_page import _send
from .test_page_chat import _reply, _run, browsing


def _last_only(messages: tuple[Any, ...]) -> list[Any]:
    """Send only the newest message: every request rewrites what the one before sent."""
    return list(messages[-1:])


@pytest.mark.timeout(120)
@_run
async def test_a_cache_bust_is_shown_in_the_reply() -> None:
    agent = {"cache": Cache(), "transform_context": _last_only}
    async with browsing(agent=agent) as (_, page):
        await _send(page, "hello")
        await expect(_reply(page)).to_have_text("You said: hello")
        await expect(page.get_by_test_id("cache-bust")).to_have_count(0)
        await _send(page, "again")
        await expect(_reply(page)).to_have_text("You said: again")
        note = page.get_by_test_id("cache-bust")
        await expect(note).to_have_count(1)
        await expect(note).to_contain_text("the history sent changed at message 0 of 1")
