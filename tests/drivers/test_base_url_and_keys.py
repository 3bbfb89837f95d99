"""A key in a driver's ``base_url`` (its query or user info) never reaches a log record
of the SDKs, the Anthropic driver takes a loopback server without a key as the OpenAI one
does, and ``Agent("provider/model", base_url=..., api_key=...)`` passes both to the
driver (the repros: provider_key_in_base_url_logged, anthropic_loopback_needs_key)."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from agentcore import Agent
from agentcore.drivers.anthropic import AnthropicDriver, RetryPolicy
from agentcore.drivers.registry import get_driver
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.errors import ConfigurationError

KEY = "sk-ant-api03-AAAABBBBCCCCDDDDEEEE1234"
ODD = "localsecret77"  # a key of no known shape: only the exact-value redaction catches it


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-responses", "google"])
def test_a_key_in_the_base_url_never_reaches_the_sdk_logs(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for env in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(env, raising=False)
    records = _Records()
    root = logging.getLogger()
    level = root.level
    root.addHandler(records)
    root.setLevel(logging.DEBUG)
    url = f"http://user:{ODD}@127.0.0.1:{_free_port()}/?key={KEY}"  # nothing listens

    async def main() -> None:
        driver = get_driver(f"{provider}/m", api_key=KEY, base_url=url)
        driver.retry = RetryPolicy(max_retries=0, timeout=5)  # type: ignore[attr-defined]
        agent = Agent(driver)
        await agent.prompt("hello")
        await agent.aclose()
        await driver.aclose()
        assert agent.state.error is not None  # connection refused, reported

    try:
        asyncio.run(main())
    finally:
        root.removeHandler(records)
        root.setLevel(level)
    assert any("127.0.0.1" in line for line in records.lines)  # the SDKs did log the URL
    leaked = [line for line in records.lines if KEY in line or ODD in line]
    assert leaked == []


def test_the_anthropic_driver_needs_no_key_for_a_loopback_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for url in ("http://127.0.0.1:8093", "http://localhost:8080"):
        assert isinstance(get_driver("anthropic/local", base_url=url), AnthropicDriver)
    with pytest.raises(ConfigurationError, match="no Anthropic API key"):
        get_driver("anthropic/remote", base_url="https://proxy.example.com")


def test_agent_passes_base_url_and_api_key_to_the_driver_it_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    agent = Agent("anthropic/local", base_url="http://127.0.0.1:8093", api_key="sk-local-12345678")
    driver = agent._resolve_driver()
    assert isinstance(driver, AnthropicDriver)
    assert str(driver._client.base_url).startswith("http://127.0.0.1:8093")
    assert driver._client.api_key == "sk-local-12345678"
    loopback = Agent("anthropic/local", base_url="http://127.0.0.1:8093")._resolve_driver()
    assert isinstance(loopback, AnthropicDriver)
    with pytest.raises(ConfigurationError, match="base_url apply to a 'provider/model' string"):
        Agent(ScriptedDriver([text_turn("hi")]), base_url="http://127.0.0.1:1")
