"""``get_driver("openai-responses/...")``: the Responses driver, OpenAI's key and endpoint."""

from __future__ import annotations

import asyncio
import pathlib

import pytest

from agentcore import ModelRequest
from agentcore.drivers.openai_responses import OpenAIResponsesDriver
from agentcore.drivers.registry import PROVIDERS, get_driver
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.errors import ConfigurationError
from agentcore.events import TextDelta, UserMessage

TEXT = pathlib.Path(__file__).parent / "fixtures" / "openai-responses" / "text.sse"


def test_provider_shares_openais_key_variable_and_default_endpoint() -> None:
    entry = PROVIDERS["openai-responses"]
    assert (entry.driver, entry.api_key_env, entry.base_url) == (
        "openai-responses",
        PROVIDERS["openai"].api_key_env,
        PROVIDERS["openai"].base_url,
    )


def test_get_driver_builds_the_responses_driver_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    driver = get_driver("openai-responses/gpt-5", thinking_level="low")
    assert isinstance(driver, OpenAIResponsesDriver)
    assert (driver.name, driver.model, driver.thinking_level) == (
        "openai-responses",
        "gpt-5",
        "low",
    )
    assert driver.build_body(ModelRequest(messages=()))["reasoning"]["effort"] == "low"


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        get_driver("openai-responses/gpt-5")


def test_base_url_and_key_reach_the_server() -> None:
    async def main() -> tuple[str, str, list[str]]:
        async with ReplayServer([sse_response(TEXT)]) as server:
            driver = get_driver(
                "openai-responses/gpt-5", base_url=server.base_url + "/v1", api_key="sk-x"
            )
            request = ModelRequest(messages=(UserMessage(message_id="u", content="hi"),))
            texts = [e.text async for e in driver.receive(request) if isinstance(e, TextDelta)]
            (sent,) = server.requests
            return sent.path, sent.headers["authorization"], texts

    assert asyncio.run(main()) == ("/v1/responses", "Bearer sk-x", ["Hello", ", wor", "ld!"])
