"""get_driver: provider table, keys from the environment, base URLs, lazy SDK imports."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest

from agentcore import Driver, ModelRequest
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.registry import PROVIDERS, get_driver, split_model
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.errors import ConfigurationError
from agentcore.events import UserMessage

TEXT = pathlib.Path(__file__).parent / "fixtures" / "openai" / "text.sse"
REQUEST = ModelRequest(messages=(UserMessage(message_id="u", content="hi"),))


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for provider in PROVIDERS.values():
        monkeypatch.delenv(provider.api_key_env, raising=False)


def _calls(driver: Driver, n: int = 1) -> list[tuple[str, dict[str, object]]]:
    """Run ``n`` calls against a local server; return the auth headers and bodies received."""

    async def main() -> list[tuple[str, dict[str, object]]]:
        async with ReplayServer([sse_response(TEXT)] * n) as server:
            assert isinstance(driver, OpenAIDriver)
            driver._client = driver._client.with_options(base_url=server.base_url + "/v1")
            for _ in range(n):
                [e async for e in driver.receive(REQUEST)]
            return [(r.headers["authorization"], r.json) for r in server.requests]

    return asyncio.run(main())


def _sent(driver: Driver) -> tuple[str, dict[str, object]]:
    (sent,) = _calls(driver)
    return sent


def test_openai_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    driver = get_driver("openai/gpt-4.1")
    assert isinstance(driver, OpenAIDriver) and driver.name == "openai"
    auth, body = _sent(driver)
    assert (auth, body["model"]) == ("Bearer sk-env", "gpt-4.1")


def test_openrouter_keeps_the_vendor_in_the_model_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")
    driver = get_driver("openrouter/anthropic/claude-sonnet-4.5")
    assert isinstance(driver, OpenAIDriver)
    assert driver.base_url.startswith("https://openrouter.ai/api/v1")
    assert (driver.name, driver.model) == ("openrouter", "anthropic/claude-sonnet-4.5")
    auth, body = _sent(driver)
    assert auth == "Bearer or-key" and "max_tokens" not in body


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="OPENROUTER_API_KEY"):
        get_driver("openrouter/meta-llama/llama-4")


def test_local_servers_need_no_key() -> None:
    driver = get_driver("ollama/llama3.1", thinking_level="low")
    assert isinstance(driver, OpenAIDriver)
    assert driver.base_url.startswith("http://127.0.0.1:11434/v1")
    assert driver.thinking_level == "low"
    auth, body = _sent(driver)
    assert (auth, body["model"], body["reasoning_effort"]) == (
        "Bearer not-needed",
        "llama3.1",
        "low",
    )


def test_explicit_key_and_base_url_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "from-env")
    driver = get_driver("groq/llama-3.3-70b", api_key="explicit", base_url="http://10.0.0.9/v1")
    assert isinstance(driver, OpenAIDriver)
    assert driver.base_url.startswith("http://10.0.0.9/v1")
    assert _sent(driver)[0] == "Bearer explicit"


def test_get_api_key_is_passed_through() -> None:
    calls: list[int] = []

    def key() -> str:
        calls.append(1)
        return f"short-lived-{len(calls)}"

    driver = get_driver("together/Qwen/Qwen3-235B", get_api_key=key)
    assert [auth for auth, _ in _calls(driver, 2)] == [
        "Bearer short-lived-1",
        "Bearer short-lived-2",
    ]


def test_anthropic_driver_is_built_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    driver = get_driver("anthropic/claude-sonnet-4-5")
    from agentcore.drivers.anthropic import AnthropicDriver

    assert isinstance(driver, AnthropicDriver)


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="unknown provider 'acme'") as info:
        get_driver("acme/model-1")
    assert all(name in str(info.value) for name in PROVIDERS)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("gpt-4.1", ("openai", "gpt-4.1")),
        ("claude-haiku-4-5", ("anthropic", "claude-haiku-4-5")),
        ("vllm/org/model", ("vllm", "org/model")),
    ],
)
def test_split_model(spec: str, expected: tuple[str, str]) -> None:
    assert split_model(spec) == expected


@pytest.mark.parametrize("spec", ["llama3", "/gpt-4.1", "openai/", ""])
def test_split_model_rejects_specs_without_a_provider(spec: str) -> None:
    with pytest.raises(ConfigurationError, match="provider/model"):
        split_model(spec)


@pytest.mark.parametrize("spec", ["anthropic/claude-test", "openai/gpt-4.1"])
def test_aclose_closes_only_a_client_the_driver_built(spec: str) -> None:
    async def main() -> tuple[bool, bool]:
        built = get_driver(spec, api_key="k")
        await built.aclose()  # type: ignore[attr-defined]
        await built.aclose()  # type: ignore[attr-defined]  # idempotent
        if spec.startswith("openai"):
            import openai

            mine: Any = openai.AsyncOpenAI(api_key="k")
            passed = get_driver(spec, client=mine)
        else:
            import anthropic

            mine = anthropic.AsyncAnthropic(api_key="k")
            passed = get_driver(spec, client=mine)
        await passed.aclose()  # type: ignore[attr-defined]
        return built._client.is_closed(), mine.is_closed()  # type: ignore[attr-defined]

    built_closed, callers_closed = asyncio.run(main())
    assert built_closed and not callers_closed
