"""The ``agentcore serve`` page shows which agent speaks after a handoff, in real
headless Chromium (the page tests' setup, tests/serve/test_page.py)."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from typing import Any

import pytest
import uvicorn
from playwright.async_api import async_playwright, expect

from agentcore import ModelRequest
from agentcore.agents import AgentDefinition, AgentRegistry
from agentcore.drivers.scripted import FunctionDriver, text_turn, tool_turn
from agentcore.serve import ServeConfig, create_app
from tests.serve.server_kit import free_port
from tests.serve.test_page import ARGS, CHROMIUM, _send


def _triage(request: ModelRequest) -> Any:
    if request.messages[-1].type == "user_message":
        return tool_turn([("h1", "transfer_to_billing", {})])
    return text_turn("?")


MODELS = {"t/triage": _triage, "t/billing": lambda request: text_turn("Billing here.")}


async def _page_shows_the_speaker() -> None:
    registry = AgentRegistry(
        [
            AgentDefinition("triage", "t/triage", handoffs=["billing"]),
            AgentDefinition("billing", "t/billing"),
        ],
        driver_factory=lambda model: FunctionDriver(MODELS[model], delay=0.01),
    )
    app = create_app(ServeConfig(lambda model: {}, registry=registry, agent_type="triage"))
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    profile = tempfile.mkdtemp(prefix="agentcore-chromium-")
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=ARGS, headless=True
            )
            page = await browser.new_page()
            await page.goto(f"http://127.0.0.1:{port}")
            speaking = page.get_by_test_id("speaking")
            await expect(speaking).to_be_hidden()
            await _send(page, "I want a refund")
            await expect(page.get_by_test_id("handoff")).to_have_text(
                "triage handed over to billing"
            )
            await expect(speaking).to_have_text("speaking: billing")
            await expect(page.get_by_test_id("assistant").last).to_contain_text("Billing here.")
            await page.reload()  # the stream replays from the journal: same label
            await expect(page.get_by_test_id("speaking")).to_have_text("speaking: billing")
            await browser.close()
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.timeout(120)
def test_the_page_shows_who_speaks() -> None:
    asyncio.run(_page_shows_the_speaker())
