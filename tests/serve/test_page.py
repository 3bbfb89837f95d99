"""The web page, used as a person would, in real headless Chromium (Debian's ``chromium``
driven by Playwright; never a downloaded browser): type a message and watch the text
stream, see thinking collapsed and the turn footer, interrupt a long reply, approve a tool
call, lose the connection mid-reply and get it back without a gap or a repeat, reload and
see the history, open the inspector and drag its slider. Screenshots are kept in
``build/test-artifacts/serve/``.

Tests the private module ``agentcore._app.serve_model``: the demo's story.
"""

from __future__ import annotations

import asyncio
import pathlib
import re
import shutil
import tempfile

import pytest
from playwright.async_api import Page, async_playwright, expect

from agentcore._app.serve_model import _STORY

from .server_kit import SERVERS, serving

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = pathlib.Path(__file__).resolve().parents[2] / "build" / "test-artifacts" / "serve"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def test_chromium_is_installed() -> None:
    assert shutil.which(CHROMIUM), "Debian's chromium is needed: see .ci/system-packages.txt"


async def _send(page: Page, text: str) -> None:
    await page.get_by_test_id("input").fill(text)
    await page.get_by_test_id("send").click()


async def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.mark.timeout(120)
def test_the_page_as_a_person_uses_it() -> None:
    async def main() -> None:
        profile = tempfile.mkdtemp(prefix="agentcore-chromium-")
        try:
            async with serving(delay=0.01, retry_ms=200) as base, async_playwright() as pw:
                browser = await pw.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, args=ARGS, headless=True
                )  # a fresh --user-data-dir, as Playwright passes it
                page = await browser.new_page()
                await page.goto(base)
                await expect(page.get_by_test_id("welcome")).to_be_visible()
                assert "agent=" not in page.url  # no agent until the first message

                # a message streams in; thinking is collapsed; the footer shows the turn
                await _send(page, "hello there")
                await expect(page.get_by_test_id("connection")).to_have_text("connected")
                agent_id = await page.get_by_test_id("agent-id").inner_text()
                assert agent_id and f"agent={agent_id}" in page.url
                assistant = page.get_by_test_id("assistant").last
                await expect(assistant.get_by_test_id("text")).to_have_text("You said: hello there")
                thinking = assistant.get_by_test_id("thinking")
                assert await thinking.get_attribute("open") is None
                await expect(assistant.get_by_test_id("footer")).to_contain_text("tokens")
                await expect(assistant.get_by_test_id("footer")).to_contain_text("$")
                await _shot(page, "1-chat")

                # a long reply, interrupted while it streams
                await _send(page, "tell me a story")
                story = page.get_by_test_id("assistant").last.get_by_test_id("text")
                await expect(story).to_contain_text("Once upon a time")
                await page.get_by_test_id("interrupt").click()
                await expect(page.get_by_test_id("interrupted")).to_be_visible()
                cut = await story.inner_text()
                assert 0 < len(cut) < len(_STORY)
                # the model reported no usage before the stop: the footer counts what came
                footer = page.get_by_test_id("assistant").last.get_by_test_id("footer")
                await expect(footer).to_contain_text("interrupted before the model reported")
                said = re.search(r"tokens ≈([\d,]+) out", await footer.inner_text())
                state = await (await page.request.get(f"{base}/agents/{agent_id}/state")).json()
                kept = state["messages"][-1]["data"]["parts"][0]["text"]  # the cut reply
                assert kept.strip() == cut
                assert said and int(said[1].replace(",", "")) == -(-len(kept) // 4)
                await _shot(page, "2-interrupted")

                # a tool call that needs approval
                await _send(page, "delete notes.txt")
                card = page.get_by_test_id("tool-card").last
                await expect(card).to_contain_text("delete_file")
                await card.get_by_test_id("approve").click()
                await expect(card).to_contain_text("deleted notes.txt")
                await expect(page.get_by_test_id("assistant").last).to_contain_text(
                    "The tool delete_file returned"
                )
                await _shot(page, "3-approved")

                # the connection drops mid-reply: the browser reconnects with its
                # Last-Event-ID and the reply comes out whole, nothing repeated
                await _send(page, "tell me another story")
                story = page.get_by_test_id("assistant").last.get_by_test_id("text")
                await expect(story).to_contain_text("Once upon a time")
                server = SERVERS[base]
                for served in server.agents.values():
                    served.feed.close()  # every SSE response ends, as when a proxy drops them
                await expect(page.get_by_test_id("connection")).to_have_text("connected")
                await expect(page.get_by_test_id("footer")).to_have_count(4, timeout=30_000)
                assert await story.inner_text() == _STORY.strip()

                # reload: the history is all there again
                before = await page.get_by_test_id("log").inner_text()
                await page.reload()
                await expect(page.get_by_test_id("footer")).to_have_count(4)
                assert await page.get_by_test_id("log").inner_text() == before
                await _shot(page, "4-reloaded")

                # the inspector: five layers on one timeline, a slider over the entries
                await page.get_by_test_id("inspect").click()
                rows = page.get_by_test_id("timeline").locator("tbody tr")
                await expect(rows.first).to_be_visible()
                count = await rows.count()
                slider = page.get_by_test_id("slider")
                assert await slider.get_attribute("max") == str(count)
                last_state = await page.get_by_test_id("state-at").inner_text()
                box = await slider.bounding_box()
                assert box is not None
                await page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
                await page.mouse.down()
                await page.mouse.move(box["x"] + 2, box["y"] + box["height"] / 2, steps=5)
                await page.mouse.up()
                await expect(page.get_by_test_id("slider-value")).to_have_text("1")
                await expect(page.get_by_test_id("state-at")).not_to_have_text(last_state)
                await expect(page.locator("tr.current")).to_have_count(1)
                href = await page.get_by_test_id("download").get_attribute("href")
                assert href == f"/agents/{agent_id}/journal"
                journal = await page.request.get(base + href)
                assert journal.ok and len((await journal.text()).splitlines()) == count
                await _shot(page, "5-inspector")
                await browser.close()
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_a_sub_agent_shows_in_its_own_panel() -> None:
    """The demo model hands "research ..." to its researcher through the ``task`` tool: the
    child's run streams into its own panel inside the spawning call's card, with its
    thinking collapsed and its status, apart from the parent's text; a reload shows the
    same."""

    async def main() -> None:
        profile = tempfile.mkdtemp(prefix="agentcore-chromium-")
        try:
            async with serving(delay=0.01) as base, async_playwright() as pw:
                browser = await pw.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, args=ARGS, headless=True
                )
                page = await browser.new_page()
                await page.goto(base)
                await _send(page, "research tides")
                card = page.get_by_test_id("tool-card").last
                await expect(card).to_contain_text("tool call: task")
                panel = card.get_by_test_id("subagent")
                await expect(panel).to_have_count(1)
                await expect(panel).to_contain_text("sub-agent: Researcher")
                await expect(panel.get_by_test_id("subagent-status")).to_have_text("done")
                await expect(panel.get_by_test_id("subagent-text")).to_have_text(
                    "Findings on tides: three sources agree."
                )
                assert await panel.locator("details").get_attribute("open") is None
                run_id = await panel.get_attribute("data-run-id")
                assert run_id is not None and run_id.endswith("#1")
                parent_text = page.get_by_test_id("assistant").last.get_by_test_id("text")
                await expect(parent_text.last).to_contain_text("The tool task returned")
                await expect(parent_text.first).to_have_text("Asking the researcher.")
                await expect(page.get_by_test_id("footer")).to_have_count(1)  # the run ended
                await _shot(page, "6-subagent")
                before = await page.get_by_test_id("log").inner_text()
                await page.reload()
                await expect(page.get_by_test_id("subagent-status")).to_have_text("done")
                await expect(page.get_by_test_id("footer")).to_have_count(1)
                assert await page.get_by_test_id("log").inner_text() == before
                await browser.close()
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    asyncio.run(main())
