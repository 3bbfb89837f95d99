"""The chat page shows a ``rate_limited`` notice (a model call waiting to keep within a
rate budget, docs/rate-budgets.md) as a note in the reply, as the console does, in real
headless Chromium (see test_page_chat.py)."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import RateLimited

from .test_page import _send
from .test_page_chat import _reply, _run, browsing


@pytest.mark.timeout(120)
@_run
async def test_a_rate_limited_wait_is_shown_in_the_reply() -> None:
    driver = ScriptedDriver(
        [text_turn("first"), [RateLimited("anthropic", "requests", 6_000), *text_turn("second")]]
    )
    async with browsing(agent={"model": driver}) as (_, page):
        await _send(page, "hello")
        await expect(_reply(page)).to_have_text("first")
        await expect(page.get_by_test_id("rate-limited")).to_have_count(0)
        await _send(page, "again")
        await expect(_reply(page)).to_have_text("second")
        note = page.get_by_test_id("rate-limited")
        await expect(note).to_have_count(1)
        await expect(note).to_have_text("[rate limited: waiting 6.0s for anthropic requests]")
