"""The page attaches files (the button and drag-and-drop), sends them as content parts,
and shows an image inline and a document as a chip in the transcript, in real headless
Chromium (see test_page.py); the files reach the agent's journal as blobs."""

from __future__ import annotations

import base64
import os
import pathlib

import pytest
from playwright.async_api import expect

from .server_kit import SERVERS
from .test_page import _shot
from .test_page_chat import _reply, _run, _watch, browsing

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)
PDF = b"%PDF-1.4\n" + os.urandom(2000) + b"\n%%EOF\n"


@pytest.mark.timeout(120)
@_run
async def test_files_attached_by_button_and_drop_are_sent_and_shown(
    tmp_path: pathlib.Path,
) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    async with browsing() as (base, page):
        strays = _watch(page, base)
        await page.get_by_test_id("attach-input").set_input_files(str(tmp_path / "shot.png"))
        await page.evaluate(
            """([name, b64]) => {
                const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
                const drop = new DataTransfer();
                drop.items.add(new File([bytes], name, { type: "application/pdf" }));
                const event = new DragEvent("drop", { dataTransfer: drop, bubbles: true });
                document.getElementById("composer").dispatchEvent(event);
            }""",
            ["report.pdf", base64.b64encode(PDF).decode()],
        )
        attached = page.get_by_test_id("attachment")
        await expect(attached).to_have_count(2)
        await expect(attached.last).to_contain_text("report.pdf")
        await page.get_by_test_id("input").fill("what are these")
        await page.get_by_test_id("send").click()

        user = page.get_by_test_id("user").last
        await expect(user).to_contain_text("what are these")
        image = user.get_by_test_id("media-image")
        await expect(image).to_have_count(1)
        assert await image.evaluate("(img) => img.complete && img.naturalWidth") == 1
        chip = user.get_by_test_id("media-chip")
        await expect(chip).to_contain_text("document")
        await expect(chip).to_contain_text("report.pdf")
        await expect(chip).to_contain_text(f"application/pdf, {len(PDF) / 1024:.1f} KB")
        await expect(_reply(page)).to_have_text("You said: what are these")
        await expect(page.get_by_test_id("attachment")).to_have_count(0)
        await _shot(page, "media-1-attached")
        assert strays == []

        # the parts reached the agent, and its journal keeps them as blobs
        host = SERVERS[base]
        (served,) = host.agents.values()
        prompt = next(m for m in served.agent.state.messages if m.type == "user_message")
        _text, sent_image, sent_pdf = prompt.content
        assert sent_image.to_bytes() == PNG and sent_pdf.to_bytes() == PDF
        assert sent_pdf.title == "report.pdf"

        # reloaded, the transcript shows them again (read back from the journal)
        await page.reload()
        await expect(page.get_by_test_id("user").last.get_by_test_id("media-image")).to_have_count(
            1
        )
        await expect(page.get_by_test_id("user").last.get_by_test_id("media-chip")).to_contain_text(
            "report.pdf"
        )
