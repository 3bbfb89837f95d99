"""Structured output through the provider drivers: what the SDKs send in each mode, and
the typed answer an Agent gets back from the streamed reply (a local ReplayServer).

Tests the private module ``agentcore.drivers._common.output``: the strict schema a provider
is sent."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest

from agentcore import Agent, ModelRequest, OutputSpec
from agentcore.drivers._common.output import closed_schema, is_strict_schema
from agentcore.drivers.anthropic import AnthropicDriver
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.openai_responses import OpenAIResponsesDriver
from agentcore.drivers.testing import (
    Called,
    ReplayServer,
    Said,
    reply_chunks,
    reply_sse,
    sse_response,
)
from agentcore.errors import ConfigurationError
from agentcore.events import UserMessage
from agentcore.loop import OutputRetry


@dataclasses.dataclass
class Forecast:
    """Tomorrow's weather."""

    city: str
    high_c: int
    rain: bool = False


ANSWER = {"city": "Paris", "high_c": 21, "rain": True}
SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "high_c": {"type": "integer"},
        "rain": {"type": "boolean", "default": False},
    },
    "required": ["city", "high_c"],
    "additionalProperties": False,
    "description": "Tomorrow's weather.",
}
PROVIDERS = ("anthropic", "openai", "openai-responses")


def _driver(provider: str, base_url: str) -> Any:
    if provider == "anthropic":
        return AnthropicDriver("claude-test", api_key="k", base_url=base_url)
    if provider == "openai":
        return OpenAIDriver("gpt-4.1", api_key="sk-test", base_url=base_url + "/v1")
    return OpenAIResponsesDriver("gpt-5", api_key="sk-test", base_url=base_url + "/v1")


def _reply(provider: str, mode: str, answer: Any) -> Any:
    text = json.dumps(answer)
    pieces = tuple(text[i : i + 7] for i in range(0, len(text), 7))
    block = Called("call_1", "Forecast", pieces) if mode == "tool" else Said(pieces)
    return sse_response(reply_sse(provider, reply_chunks(provider, [block])))


def _run(provider: str, mode: str, answers: list[Any]) -> tuple[Any, list[Any], list[Any]]:
    """The run's result, the bodies the SDK sent, and the events delivered."""

    async def main() -> tuple[Any, list[Any], list[Any]]:
        replies = [_reply(provider, mode, a) for a in answers]
        async with ReplayServer(replies) as server:
            delivered: list[Any] = []
            agent = Agent(_driver(provider, server.base_url), system_prompt="Be exact.")
            agent.subscribe(delivered.append)
            result = await agent.run(
                "Weather in Paris tomorrow?", output_type=Forecast, output_mode=mode
            )
            await agent.aclose()
            return result, [r.json for r in server.requests], delivered

    return asyncio.run(main())


@pytest.mark.parametrize("provider", PROVIDERS)
def test_native_mode_uses_the_providers_own_field(provider: str) -> None:
    result, bodies, _ = _run(provider, "native", [ANSWER])
    assert result.output == Forecast("Paris", 21, True)
    body = bodies[0]
    if provider == "anthropic":
        assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    else:
        expected = {
            "name": "Forecast",
            "schema": SCHEMA,
            "strict": False,  # "rain" is optional: strict mode would reject the schema
            "description": "Tomorrow's weather.",
        }
        if provider == "openai":
            assert body["response_format"] == {"type": "json_schema", "json_schema": expected}
        else:
            assert body["text"] == {"format": {"type": "json_schema", **expected}}
    assert "tools" not in body


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tool_mode_adds_the_final_answer_tool(provider: str) -> None:
    result, bodies, delivered = _run(provider, "tool", [{"city": "Paris"}, ANSWER])
    assert result.output == Forecast("Paris", 21, True)
    assert [type(o) for o in delivered].count(OutputRetry) == 1
    tools = bodies[0]["tools"]
    assert len(tools) == 1
    if provider == "anthropic":
        assert tools[0]["name"] == "Forecast" and tools[0]["input_schema"] == SCHEMA
        answered = bodies[1]["messages"][-1]["content"][0]
        assert answered["type"] == "tool_result" and answered["is_error"] is True
    elif provider == "openai":
        assert tools[0]["function"]["name"] == "Forecast"
        assert tools[0]["function"]["parameters"] == SCHEMA
        assert bodies[1]["messages"][-1]["role"] == "tool"
    else:
        assert tools[0]["name"] == "Forecast" and tools[0]["parameters"] == SCHEMA
        assert bodies[1]["input"][-1]["type"] == "function_call_output"
    assert all(k not in bodies[0] for k in ("response_format", "output_config", "text"))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_prompted_mode_asks_in_the_system_prompt(provider: str) -> None:
    fenced = {"city": "Paris", "high_c": 21}
    result, bodies, _ = _run(provider, "prompted", [fenced])
    assert result.output == Forecast("Paris", 21)
    body = bodies[0]
    system = body.get("system") or body.get("instructions") or body["messages"][0]["content"]
    assert system.startswith("Be exact.\n\nGive your final answer")
    assert json.loads(system.split("\n")[-1]) == SCHEMA
    assert all(k not in body for k in ("response_format", "output_config", "text", "tools"))


def test_openai_strict_mode_when_the_schema_allows_it() -> None:
    strict = {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
        },
        "required": ["a"],
        "additionalProperties": False,
    }
    assert is_strict_schema(strict)
    assert not is_strict_schema({**strict, "required": []})
    assert not is_strict_schema({**strict, "additionalProperties": True})
    request = ModelRequest((UserMessage("u", "hi"),), output=OutputSpec(strict, "thing"))
    body = OpenAIDriver("gpt-4.1", api_key="sk-test").build_body(request)
    assert body["response_format"]["json_schema"]["strict"] is True
    tool = ModelRequest((UserMessage("u", "hi"),), output=OutputSpec(strict, mode="tool"))
    assert "response_format" not in OpenAIDriver("gpt-4.1", api_key="sk-test").build_body(tool)


def test_anthropic_gets_every_object_closed() -> None:
    free = {
        "type": "object",
        "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "properties": {"type": "array", "items": {"properties": {"x": {"type": "integer"}}}},
        },
        "default": {"type": "object"},
        "$defs": {"P": {"type": "object", "properties": {}}},
    }
    assert closed_schema(free) == {
        "type": "object",
        "properties": {
            "tags": {"type": "object", "additionalProperties": False},
            "properties": {
                "type": "array",
                "items": {"properties": {"x": {"type": "integer"}}, "additionalProperties": False},
            },
        },
        "default": {"type": "object"},  # data, not a schema
        "$defs": {"P": {"type": "object", "properties": {}, "additionalProperties": False}},
        "additionalProperties": False,
    }


def test_drivers_declare_their_modes() -> None:
    assert AnthropicDriver("claude-test", api_key="k").output_modes[0] == "native"
    assert OpenAIResponsesDriver("gpt-5", api_key="k").output_modes[0] == "native"
    assert OpenAIDriver("gpt-4.1", api_key="k").output_modes[0] == "native"
    local = OpenAIDriver("llama", base_url="http://127.0.0.1:1/v1", provider="ollama")
    assert local.output_modes == ("tool", "prompted")
    assert OpenAIDriver("m", api_key="k", provider="x", output_modes=["native"]).output_modes == (
        "native",
    )
    with pytest.raises(ConfigurationError, match="output_modes"):
        OpenAIDriver("m", api_key="k", output_modes=["json"])  # type: ignore[list-item]
