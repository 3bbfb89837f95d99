"""The page as a chat product, in real headless Chromium (see test_page.py): a message
typed while the agent answers is queued or steers, shown at once and never lost; the
thread follows the newest reply unless the user scrolled up; the badge says when an
approval waits; earlier conversations are listed and reopen; replies are markdown,
rendered while they stream and sanitised; a run stopped by a limit says so and how to go
on. The embedded model echoes what it is sent, so a test chooses the reply by what it
types. Screenshots are kept in ``build/test-artifacts/serve/``.

Tests the private module ``agentcore._serve.app``: the static files the app serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import pathlib
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest
from playwright.async_api import Page, Request, async_playwright, expect

from agentcore._serve.app import STATIC

from .server_kit import serving
from .test_page import ARGS, CHROMIUM, _send, _shot

LONG = "tell me about " + "tides and moons " * 20  # echoed in about 45 deltas


@contextlib.asynccontextmanager
async def browsing(
    *, width: int = 1280, height: int = 800, **serve: Any
) -> AsyncIterator[tuple[str, Page]]:
    """A server (``serving(**serve)``) and a fresh Chromium page on it, opened at ``/``."""
    profile = tempfile.mkdtemp(prefix="agentcore-chromium-")
    try:
        async with serving(**serve) as base, async_playwright() as pw:
            browser = await pw.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                args=ARGS,
                headless=True,
                viewport={"width": width, "height": height},
            )
            page = await browser.new_page()
            await page.goto(base)
            yield base, page
            await browser.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def _run(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """An ``async def`` test run to its end in a fresh event loop."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


def _watch(page: Page, base: str) -> list[str]:
    """What the page sends that a strict server would refuse, as it happens: a request
    to anywhere but ``base``, a POST whose body is not declared JSON."""
    strays: list[str] = []

    def check(request: Request) -> None:
        if not request.url.startswith((base + "/", "data:")):
            strays.append(f"{request.method} {request.url}")
        elif request.method == "POST" and request.headers.get("content-type") != (
            "application/json"
        ):
            strays.append(f"POST {request.url} as {request.headers.get('content-type')}")

    page.on("request", check)
    return strays


def _reply(page: Page) -> Any:
    return page.get_by_test_id("assistant").last.get_by_test_id("text").last


@pytest.mark.timeout(120)
@_run
async def test_a_message_typed_while_the_agent_answers_is_queued_or_steers() -> None:
    async with browsing(delay=0.03) as (base, page):
        strays = _watch(page, base)
        await _send(page, LONG)
        await expect(_reply(page)).to_contain_text("You said")
        await expect(page.get_by_test_id("busy-choice")).to_be_visible()
        await expect(page.get_by_test_id("send")).to_have_text("Queue")

        # queued by default: shown at once, the box emptied, sent when the reply ends
        await _send(page, "and the second question")
        queued = page.get_by_test_id("queued")
        await expect(queued).to_contain_text("and the second question")
        await expect(queued).to_contain_text("queued")
        assert await page.get_by_test_id("footer").count() == 0  # the first still streams
        assert await page.get_by_test_id("input").input_value() == ""
        await _shot(page, "7-queued")
        await expect(page.get_by_test_id("footer")).to_have_count(2)
        await expect(queued).to_have_count(0)
        users = page.get_by_test_id("user")
        await expect(users).to_have_text([LONG.strip(), "and the second question"])
        await expect(_reply(page)).to_have_text("You said: and the second question")
        await expect(page.get_by_test_id("busy-choice")).to_be_hidden()

        # steering: read before the agent's next step, in the same run
        await _send(page, LONG)
        await expect(_reply(page)).to_contain_text("You said")
        await page.get_by_test_id("mode-steer").check()
        await expect(page.get_by_test_id("send")).to_have_text("Steer")
        await _send(page, "steer this way")
        steering = page.get_by_test_id("pending-message")
        await expect(steering).to_contain_text("steering")
        await expect(page.get_by_test_id("footer")).to_have_count(4)  # a turn each
        await expect(steering).to_have_count(0)
        await expect(users.last).to_have_text("steer this way")
        await expect(_reply(page)).to_have_text("You said: steer this way")

        # stopped with a message queued: the message is back in the box, not lost
        await _send(page, "tell me a story")
        await expect(_reply(page)).to_contain_text("Once upon a time")
        await expect(page.get_by_test_id("send")).to_have_text("Steer")  # the choice stays
        await page.get_by_test_id("mode-queue").check()
        await _send(page, "queued then stopped")
        await expect(queued).to_have_count(1)
        await page.get_by_test_id("interrupt").click()
        await expect(page.get_by_test_id("input")).to_have_value("queued then stopped")
        await expect(queued).to_have_count(0)
        await expect(page.get_by_test_id("composer-notice")).to_contain_text("back in the box")
        await expect(page.get_by_test_id("activity")).to_have_text("idle")

        # a queued message taken back to edit
        await _send(page, LONG)
        await expect(_reply(page)).to_contain_text("You said")
        await _send(page, "on second thoughts")
        await queued.get_by_test_id("edit-queued").click()
        await expect(queued).to_have_count(0)
        await expect(page.get_by_test_id("input")).to_have_value("on second thoughts")
        await expect(page.get_by_test_id("activity")).to_have_text("idle")

        # a run this page has not seen start (its stream is closed): the server refuses
        # the message as busy, and the page queues it instead of showing the refusal
        agent = await page.get_by_test_id("agent-id").inner_text()
        await page.evaluate("window.agentcoreSource.close()")
        started = await page.request.post(f"{base}/agents/{agent}/messages", data={"text": LONG})
        assert started.status == 202
        await _send(page, "sent behind its back")
        await expect(queued).to_contain_text("sent behind its back")

        # a reload replays the refusal the server journaled: not shown; what was queued
        # is back in the box, not sent unasked
        await page.reload()
        await expect(page.get_by_test_id("input")).to_have_value("sent behind its back")
        await expect(page.get_by_test_id("composer-notice")).to_contain_text("queued")
        await expect(page.get_by_test_id("activity")).to_have_text("idle", timeout=15_000)
        log = await page.get_by_test_id("log").inner_text()
        assert "steer(" not in log and "AGENT_BUSY" not in log
        assert "sent behind its back" not in log
        assert strays == []


@pytest.mark.timeout(120)
@_run
async def test_the_thread_follows_the_newest_reply_unless_scrolled_up() -> None:
    async with browsing(delay=0.01, width=1000, height=560) as (_, page):
        in_view = """() => {
            const composer = document.getElementById("composer").getBoundingClientRect();
            const last = document.querySelector("#log > :last-child").getBoundingClientRect();
            return composer.bottom <= innerHeight && last.bottom <= composer.top;
        }"""
        for n, text in enumerate(["weather in Paris", "weather in London", "research tides"]):
            await _send(page, text)
            await expect(page.get_by_test_id("footer")).to_have_count(n + 1)
            await page.wait_for_function(in_view, timeout=5_000)
        await _shot(page, "8-followed")

        thread = page.get_by_test_id("thread")
        await _send(page, "tell me a story")
        await expect(_reply(page)).to_contain_text("Once upon a time")
        box = await thread.bounding_box()
        assert box is not None
        await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        await page.mouse.wheel(0, -3000)  # the user scrolls up to read
        await expect(page.get_by_test_id("jump")).to_be_visible()
        await page.wait_for_function("document.getElementById('thread').scrollTop === 0")
        top = 0
        grown = await _reply(page).inner_text()
        await expect(_reply(page)).not_to_have_text(grown)  # the story goes on below...
        assert await thread.evaluate("t => t.scrollTop") == top  # ...and the view stays put

        await page.get_by_test_id("jump").click()
        at_bottom = "t => t.scrollHeight - t.scrollTop - t.clientHeight < 40"
        await page.wait_for_function(f"({at_bottom})(document.getElementById('thread'))")
        grown = await _reply(page).inner_text()
        await expect(_reply(page)).not_to_have_text(grown)
        assert await thread.evaluate(at_bottom)  # following again
        await expect(page.get_by_test_id("jump")).to_be_hidden()
        await page.get_by_test_id("interrupt").click()


@pytest.mark.timeout(120)
@_run
async def test_approval_badge_conversations_and_inspector() -> None:
    async with browsing(delay=0.01) as (base, page):
        strays = _watch(page, base)
        activity = page.get_by_test_id("activity")
        await _send(page, "delete notes.txt")
        await expect(activity).to_have_text("waiting for approval")
        first = await page.get_by_test_id("agent-id").inner_text()
        await page.reload()  # the badge is a fold of the stream too
        await expect(activity).to_have_text("waiting for approval")
        await page.get_by_test_id("approve").click()
        await expect(page.get_by_test_id("footer")).to_have_count(1)
        await expect(activity).to_have_text("idle")

        await page.get_by_test_id("new-chat").click()
        await expect(page.get_by_test_id("welcome")).to_be_visible()
        await expect(page.get_by_test_id("log")).to_be_empty()
        await _send(page, "weather in Paris")
        await expect(page.get_by_test_id("footer")).to_have_count(1)
        second = await page.get_by_test_id("agent-id").inner_text()
        assert second != first

        listed = page.get_by_test_id("conversation")
        await expect(listed).to_have_count(2)  # opening "/" made no empty conversation
        await expect(listed.first).to_contain_text("weather in Paris")  # newest first
        await expect(listed.first).to_have_attribute("aria-current", "page")
        await expect(listed.last).to_contain_text("delete notes.txt")
        await _shot(page, "9-conversations")
        await listed.last.click()
        await expect(page).to_have_url(re.compile(f"agent={first}$"))
        await expect(page.get_by_test_id("user")).to_have_text(["delete notes.txt"])
        await expect(_reply(page)).to_contain_text("The tool delete_file returned")
        response = await page.request.get(f"{base}/agents")
        assert len((await response.json())["agents"]) == 2

        # the inspector shares the window with the chat: nothing past its right edge
        await page.get_by_test_id("inspect").click()
        await expect(page.get_by_test_id("timeline").locator("tbody tr").first).to_be_visible()
        right = await page.evaluate(
            "Math.max(...[...document.querySelectorAll('#inspector, #inspector table')]"
            ".map(e => e.getBoundingClientRect().right))"
        )
        assert right <= 1280
        assert await page.evaluate("document.documentElement.scrollWidth") <= 1280
        await expect(page.get_by_test_id("input")).to_be_in_viewport()
        await _shot(page, "10-inspector")
        assert strays == []


MARKDOWN = """Here is code:
```python
def greet(name: str) -> str:
    return f"hello {name}"
```
- one **bold**
- two [docs](https://example.com/docs)

| a | b |
|---|---|
| 1 | 2 |
"""
HOSTILE = (
    '<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> '
    "[click](javascript:window.pwned=3) ![pic](https://example.com/track.png)"
)


@pytest.mark.timeout(120)
@_run
async def test_a_markdown_reply_renders_while_it_streams_and_is_sanitised() -> None:
    async with browsing(delay=0.05) as (base, page):
        strays = _watch(page, base)
        await page.reload()
        await _send(page, MARKDOWN)
        reply = _reply(page)
        code = reply.locator("pre code.language-python")
        await expect(code.locator(".token.keyword").first).to_have_text("def")
        assert await page.get_by_test_id("footer").count() == 0  # still streaming
        await expect(page.get_by_test_id("footer")).to_have_count(1)
        await expect(code).to_contain_text('return f"hello {name}"')
        await expect(reply.locator("li")).to_have_text(["one bold", "two docs"])
        await expect(reply.locator("li strong")).to_have_text("bold")
        link = reply.locator("a", has_text="docs")
        await expect(link).to_have_attribute("href", "https://example.com/docs")
        await expect(link).to_have_attribute("rel", "noopener noreferrer nofollow")
        await expect(reply.locator("table td")).to_have_text(["1", "2"])
        await _shot(page, "11-markdown")

        # HTML in a reply is text; a javascript: link loses its target; an image is a
        # link, never fetched
        await _send(page, HOSTILE)
        await expect(page.get_by_test_id("footer")).to_have_count(2)
        reply = _reply(page)
        await expect(reply).to_contain_text('<img src=x onerror="window.pwned=1">')
        await expect(reply).to_contain_text("<script>window.pwned=2</script>")
        log = page.get_by_test_id("log")
        assert await log.locator("img, script, iframe, [onerror]").count() == 0
        assert await reply.locator("a", has_text="click").get_attribute("href") is None
        await expect(reply.locator("a", has_text="image: pic")).to_have_attribute(
            "href", "https://example.com/track.png"
        )
        assert await page.evaluate("window.pwned") is None
        await page.reload()  # replayed from the journal: the same, still inert
        await expect(page.get_by_test_id("footer")).to_have_count(2)
        assert await log.locator("img, script, iframe, [onerror]").count() == 0
        assert await page.evaluate("window.pwned") is None
        assert strays == []  # nothing loaded from anywhere but the server


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("limit", "prompt", "why"),
    [
        ({"max_iterations": 1}, "weather in Paris", "max iterations"),
        ({"max_tokens": 10}, "weather in Paris", "max tokens"),
        ({"max_cost": 0.0001}, "weather in Paris", "max cost"),
        ({"timeout": 0.5}, "tell me a story", "timeout"),
    ],
)
@_run
async def test_a_run_stopped_by_a_limit_says_so_and_how_to_go_on(
    limit: dict[str, float], prompt: str, why: str
) -> None:
    async with browsing(delay=0.01, agent=limit) as (_, page):
        await _send(page, prompt)
        stopped = page.get_by_test_id("stopped")
        await expect(stopped).to_contain_text("Stopped")
        await expect(stopped).to_contain_text(f"({why})")
        await expect(stopped).to_contain_text("Continue")
        await expect(page.get_by_test_id("activity")).to_have_text("idle")
        await expect(page.get_by_test_id("send")).to_have_text("Send")
        assert "continue_()" not in await page.get_by_test_id("log").inner_text()
        await _shot(page, f"12-stopped-{why.replace(' ', '-')}")
        if "max_iterations" in limit:
            await expect(stopped).to_contain_text("Used 1 model call, ")
            await stopped.get_by_test_id("continue").click()
            await expect(page.get_by_test_id("user").last).to_have_text("Continue.")
            await expect(_reply(page)).to_have_text("You said: Continue.")
            await expect(page.get_by_test_id("activity")).to_have_text("idle")


def test_the_vendored_files_are_the_ones_third_party_names() -> None:
    """Every script the page loads is ours or listed, byte for byte, in THIRD_PARTY.md."""
    listed = (STATIC / "THIRD_PARTY.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([\w.]+)` \|.*\| `([0-9a-f]{64})` \|$", listed, re.M))
    assert set(rows) == {"marked.umd.js", "purify.min.js", "prism.min.js"}
    for name, digest in rows.items():
        assert hashlib.sha256((STATIC / name).read_bytes()).hexdigest() == digest, name
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r'<script src="/static/([^"]+)"', page)
    assert set(scripts) == {*rows, "app.js", "travel.js"}
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)


def test_the_page_files_are_package_data() -> None:
    pyproject = (pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"_serve/static/*"' in pyproject
    assert not [p for p in STATIC.iterdir() if p.is_dir()]  # the glob takes no folders
