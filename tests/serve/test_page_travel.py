"""Time travel in the page, in real headless Chromium: move the slider over a session and
check the whole state shown at three points (the prompt, the pause for approval, the
end), branch at the prompt and go on live in the branch (approve, then send a message),
then open the two sessions side by side with their layer diff. Screenshots are kept in
``build/test-artifacts/serve/``."""

from __future__ import annotations

import asyncio
import shutil
import tempfile

import httpx2
import pytest
from playwright.async_api import Page, async_playwright, expect

from .server_kit import serving
from .test_page import ARGS, CHROMIUM, _send, _shot


async def _seq_of(page: Page, text: str) -> int:
    """The entry number of the first timeline item containing ``text``."""
    item = page.get_by_test_id("travel-timeline").locator("li", has_text=text).first
    return int(await item.get_attribute("data-seq") or 0)


async def _move(page: Page, seq: int) -> None:
    await page.get_by_test_id("travel-slider").fill(str(seq))
    await expect(page.get_by_test_id("travel-seq")).to_have_text(str(seq))


@pytest.mark.timeout(120)
def test_slider_branch_and_side_by_side() -> None:
    async def main() -> None:
        profile = tempfile.mkdtemp(prefix="agentcore-chromium-")
        try:
            async with serving(delay=0.005) as base, async_playwright() as pw:
                browser = await pw.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, args=ARGS, headless=True
                )
                page = await browser.new_page()
                await page.goto(base)
                await _send(page, "delete notes.txt")
                card = page.get_by_test_id("tool-card").last
                await card.get_by_test_id("approve").click()
                await expect(page.get_by_test_id("assistant").last).to_contain_text(
                    "The tool delete_file returned"
                )
                original = await page.get_by_test_id("agent-id").inner_text()

                await page.get_by_test_id("travel-open").click()
                # the only session: nothing to compare it with (never itself)
                compare_with = page.get_by_test_id("travel-compare-with").locator("option")
                await expect(page.get_by_test_id("travel-session")).to_have_value(original)
                await expect(compare_with).to_have_count(0)
                await expect(page.get_by_test_id("travel-compare")).to_be_disabled()
                state = page.get_by_test_id("travel-state")
                messages = page.get_by_test_id("travel-messages").get_by_test_id("travel-message")
                # the end: the whole exchange, nothing waiting, the usage and cost counted
                await expect(messages.last).to_contain_text("The tool delete_file returned")
                await expect(page.get_by_test_id("travel-activity")).to_have_text("idle")
                await expect(page.get_by_test_id("travel-approvals")).to_have_text("none")
                await expect(page.get_by_test_id("travel-usage")).not_to_have_text("0 in / 0 out")
                await expect(page.get_by_test_id("travel-cost")).to_contain_text("$")
                last = int(await page.get_by_test_id("travel-seq").inner_text())
                assert await page.get_by_test_id("travel-slider").get_attribute("max") == str(last)
                await _shot(page, "travel-1-end")

                # the pause for approval: the call waits, the result is not there yet
                approval = await _seq_of(page, "tool_approval")
                await _move(page, approval - 1)
                await expect(page.get_by_test_id("travel-approvals")).to_contain_text(
                    'delete_file({"path":"notes.txt"})'
                )
                await expect(page.get_by_test_id("travel-activity")).to_have_text(
                    "awaiting_tool_result"
                )
                await expect(state).not_to_contain_text("The tool delete_file returned")
                await _shot(page, "travel-2-approval")

                # the prompt: one message, the model asked
                prompt = await _seq_of(page, "agent_prompt")
                await _move(page, prompt)
                await expect(messages).to_have_count(1)
                await expect(messages.first).to_contain_text("delete notes.txt")
                await expect(page.get_by_test_id("travel-approvals")).to_have_text("none")
                await expect(page.get_by_test_id("travel-entry")).to_contain_text("agent_prompt")

                # branch here: a new session from the prompt, going on live in the chat
                await page.get_by_test_id("travel-branch").click()
                await page.wait_for_url(lambda url: "agent=" in url and original not in url)
                branch = await page.get_by_test_id("agent-id").inner_text()
                assert branch != original
                card = page.get_by_test_id("tool-card").last
                await card.get_by_test_id("approve").click()
                await expect(page.get_by_test_id("assistant").last).to_contain_text(
                    "The tool delete_file returned"
                )
                await _send(page, "hello branch")
                await expect(page.get_by_test_id("assistant").last).to_contain_text(
                    "You said: hello branch"
                )
                await _shot(page, "travel-3-branch")

                # side by side: the original and its branch, with the layer diff
                await page.get_by_test_id("travel-open").click()
                await expect(page.get_by_test_id("travel-session")).to_have_value(branch)
                await expect(compare_with).to_have_text([original])  # not the branch itself
                await page.get_by_test_id("travel-compare-with").select_option(original)
                await page.get_by_test_id("travel-compare").click()
                diff = page.get_by_test_id("travel-diff")
                await expect(diff).to_be_visible()
                await expect(page.get_by_test_id("travel-left-id")).to_have_text(branch)
                await expect(page.get_by_test_id("travel-right-id")).to_have_text(original)
                await expect(page.get_by_test_id("travel-left")).to_contain_text("hello branch")
                await expect(page.get_by_test_id("travel-right")).not_to_contain_text(
                    "hello branch"
                )
                await expect(page.get_by_test_id("travel-divergence")).to_contain_text(
                    "first divergence"
                )
                await expect(page.get_by_test_id("travel-diff-text")).to_contain_text(
                    "--- layer messages ---"
                )
                await _shot(page, "travel-4-side-by-side")
                await browser.close()
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    asyncio.run(main())


def test_the_travel_routes_refuse_what_they_cannot_do() -> None:
    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            await client.post(f"{base}/agents", json={"agent_id": "a1"})
            empty = await client.get(f"{base}/agents/a1/view")
            assert empty.status_code == 200 and empty.json()["last_seq"] == 1  # configured
            assert (await client.get(f"{base}/agents/a1/view?seq=x")).status_code == 400
            far = await client.get(f"{base}/agents/a1/view?seq=9")
            assert far.status_code == 400 and "from 1 to 1" in far.json()["error"]
            bad = await client.post(f"{base}/agents/a1/branch", json={"seq": "2"})
            assert bad.status_code == 400 and "'seq'" in bad.json()["error"]
            made = await client.post(f"{base}/agents/a1/branch", json={"seq": 1})
            assert made.status_code == 201
            twin = made.json()["agent_id"]
            same = await client.get(f"{base}/agents/a1/compare?with={twin}")
            assert same.json()["diff"]["divergence"] is None
            missing = await client.get(f"{base}/agents/a1/compare?with=nobody")
            assert missing.status_code == 404
            unnamed = await client.get(f"{base}/agents/a1/compare")
            assert unnamed.status_code == 400
            assert unnamed.json()["error"] == "?with= must name the session to compare with"

    asyncio.run(main())


def test_the_view_lists_the_sub_agents_spawned_so_far() -> None:
    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            await client.post(f"{base}/agents", json={"agent_id": "r1"})
            await client.post(f"{base}/agents/r1/messages", json={"text": "research tides"})
            for _ in range(200):
                state = (await client.get(f"{base}/agents/r1/state")).json()
                if not state["running"] and len(state["messages"]) >= 4:
                    break
                await asyncio.sleep(0.05)
            view = (await client.get(f"{base}/agents/r1/view")).json()
            (child,) = view["subagents"]
            assert child["agent_id"] == "r1/call_1" and child["entries"] > 3
            first = (await client.get(f"{base}/agents/r1/view?seq=2")).json()
            assert first["subagents"] == [] and first["messages"][0]["text"] == "research tides"

    asyncio.run(main())
