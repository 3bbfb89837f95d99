"""Provider-side tools through the SDKs' real HTTP path: each driver's request shape, its
refusals, and the stream parts (from the providers' documented examples) assembled into a
message, sent back in the next request, and kept by the wire form."""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Callable
from typing import Any

import pytest

from agentcore import CodeExecution, ModelRequest, ToolSpec, WebFetch, WebSearch, from_dict, to_dict
from agentcore.drivers.anthropic import AnthropicDriver
from agentcore.drivers.google import GoogleDriver
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.openai_responses import OpenAIResponsesDriver
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.events import AssistantMessage, ErrorReceived, TextPart, UserMessage
from agentcore.processors import (
    create_initial_message_assembler_state,
    message_assembler_processor,
)
from agentcore.provider_tools import (
    CitationPart,
    ProviderToolError,
    ServerToolCallPart,
    ServerToolResultPart,
    UserLocation,
)

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
ASK = (UserMessage("u1", "What is the weather in New York?"),)
FUNCTION = ToolSpec("lookup", "Look something up", {"type": "object", "properties": {}})


def _sent(make: Callable[[str], Any], fixture: str, request: ModelRequest) -> tuple[Any, list[Any]]:
    """The JSON body the driver posted for ``request``, and the events it yielded."""

    async def main() -> tuple[Any, list[Any]]:
        async with ReplayServer([sse_response(FIXTURES / fixture)]) as server:
            driver = make(server.base_url)
            try:
                events = [e async for e in driver.receive(request)]
            finally:
                await driver.aclose()
        return (server.requests[0].json if server.requests else None), events

    return asyncio.run(main())


def _assembled(events: list[Any]) -> AssistantMessage:
    state = create_initial_message_assembler_state(strict=True)
    messages = []
    for event in events:
        state, outputs = message_assembler_processor(state, event)
        messages += [o for o in outputs if isinstance(o, AssistantMessage)]
    [message] = messages
    assert from_dict(to_dict(message)) == message  # the journal keeps it whole
    return message


def _anthropic(base_url: str) -> AnthropicDriver:
    return AnthropicDriver("claude-test", api_key="sk-ant-test", base_url=base_url)


def _responses(base_url: str) -> OpenAIResponsesDriver:
    return OpenAIResponsesDriver("gpt-5", api_key="sk-test", base_url=base_url + "/v1")


def _gemini(base_url: str) -> GoogleDriver:
    return GoogleDriver("gemini-2.5-flash", api_key="AIza-test", base_url=base_url)


# -- Anthropic ------------------------------------------------------------------------------


def test_anthropic_server_tools_in_the_request() -> None:
    tools = (
        WebSearch(
            max_uses=3,
            allowed_domains=["example.com"],
            user_location=UserLocation(city="Paris", country="FR", timezone="Europe/Paris"),
        ),
        CodeExecution(),
        WebFetch(blocked_domains=["private.example.com"], citations=True, max_content_tokens=5000),
    )
    request = ModelRequest(ASK, tools=(FUNCTION,), provider_tools=tools)
    body, _ = _sent(_anthropic, "anthropic/text.sse", request)
    assert body["tools"][0]["name"] == "lookup"
    assert body["tools"][1:] == [
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": 3,
            "allowed_domains": ["example.com"],
            "user_location": {
                "type": "approximate",
                "city": "Paris",
                "country": "FR",
                "timezone": "Europe/Paris",
            },
        },
        {"type": "code_execution_20250825", "name": "code_execution"},
        {
            "type": "web_fetch_20250910",
            "name": "web_fetch",
            "blocked_domains": ["private.example.com"],
            "citations": {"enabled": True},
            "max_content_tokens": 5000,
        },
    ]


def test_anthropic_web_search_stream_becomes_parts_and_goes_back() -> None:
    request = ModelRequest(ASK, provider_tools=(WebSearch(),))
    _, events = _sent(_anthropic, "anthropic/web_search.sse", request)
    message = _assembled(events)
    call = ServerToolCallPart(
        "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
        "web_search",
        {"query": "weather NYC today"},
        "anthropic",
    )
    result = message.parts[2]
    assert message.parts[:2] == (TextPart("I'll check the weather in New York."), call)
    assert isinstance(result, ServerToolResultPart) and result.tool_name == "web_search"
    assert result.content["type"] == "web_search_tool_result"  # type: ignore[index]
    assert not result.is_error
    assert message.parts[3:] == (
        TextPart("It is sunny, 75F."),
        CitationPart(
            "https://weather.example.com/nyc",
            "Weather in New York City today",
            "Sunny, high of 75F",
            "anthropic",
        ),
    )
    assert message.tool_calls == ()  # nothing for the loop to run
    follow_up = ModelRequest((*ASK, message, UserMessage("u2", "And tomorrow?")))
    body, _ = _sent(_anthropic, "anthropic/text.sse", follow_up)
    blocks = body["messages"][1]["content"]
    assert [b["type"] for b in blocks] == [
        "text",
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]
    assert blocks[1]["input"] == {"query": "weather NYC today"}
    assert blocks[2]["content"][0]["encrypted_content"] == "Ev0DCioIAxgCIiQ3NmU4ZmI4OC1k"


# -- OpenAI Responses -----------------------------------------------------------------------


def test_responses_built_in_tools_in_the_request() -> None:
    tools = (
        WebSearch(allowed_domains=["example.com"], user_location=UserLocation(country="GB")),
        CodeExecution(),
    )
    body, _ = _sent(
        _responses, "openai-responses/text.sse", ModelRequest(ASK, provider_tools=tools)
    )
    assert body["tools"] == [
        {
            "type": "web_search",
            "filters": {"allowed_domains": ["example.com"]},
            "user_location": {"type": "approximate", "country": "GB"},
        },
        {"type": "code_interpreter", "container": {"type": "auto"}},
    ]


def test_responses_search_code_and_citation_become_parts() -> None:
    request = ModelRequest(ASK, provider_tools=(WebSearch(), CodeExecution()))
    _, events = _sent(_responses, "openai-responses/web_search.sse", request)
    message = _assembled(events)
    assert message.parts == (
        ServerToolCallPart(
            "ws_68e0search01",
            "web_search",
            {"type": "search", "query": "positive news today"},
            "openai",
        ),
        TextPart("A new park opened."),
        CitationPart("https://news.example.com/park", "Park opens", "", "openai"),
        ServerToolCallPart(
            "ci_68e0search01", "code_interpreter", {"code": "print(2 + 2)"}, "openai"
        ),
        ServerToolResultPart(
            "ci_68e0search01",
            "code_interpreter",
            {"outputs": [{"type": "logs", "logs": "4\n"}]},
            False,
            "openai",
        ),
    )


# -- Gemini ---------------------------------------------------------------------------------


def test_gemini_built_in_tools_in_the_request() -> None:
    tools = (WebSearch(), CodeExecution(), WebFetch())
    request = ModelRequest(ASK, tools=(FUNCTION,), provider_tools=tools)
    body, _ = _sent(_gemini, "google/text.sse", request)
    assert body["tools"][1:] == [{"googleSearch": {}}, {"codeExecution": {}}, {"urlContext": {}}]
    assert body["tools"][0]["functionDeclarations"][0]["name"] == "lookup"


def test_gemini_code_execution_and_grounding_become_parts_and_code_goes_back() -> None:
    request = ModelRequest(ASK, provider_tools=(WebSearch(), CodeExecution()))
    _, events = _sent(_gemini, "google/code_and_search.sse", request)
    message = _assembled(events)
    code = {"language": "PYTHON", "code": "print(sum(range(101)))"}
    assert message.parts == (
        TextPart("Let me compute it."),
        ServerToolCallPart("code_1", "code_execution", code, "google"),
        ServerToolResultPart(
            "code_1",
            "code_execution",
            {"outcome": "OUTCOME_OK", "output": "5050\n"},
            False,
            "google",
        ),
        TextPart("The sum is 5050."),
        ServerToolCallPart("search_4", "google_search", {"queries": ["sum of 1 to 100"]}, "google"),
        CitationPart("https://math.example.com/gauss", "math.example.com", "", "google"),
    )
    body, _ = _sent(_gemini, "google/text.sse", ModelRequest((*ASK, message, ASK[0])))
    parts = body["contents"][1]["parts"]
    assert parts == [
        {"text": "Let me compute it."},
        {"executableCode": code},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "5050\n"}},
        {"text": "The sum is 5050."},
    ]


# -- refusals -------------------------------------------------------------------------------


def _refusal(make: Callable[[str], Any], fixture: str, tool: Any) -> str:
    body, events = _sent(make, fixture, ModelRequest(ASK, provider_tools=(tool,)))
    assert body is None  # nothing was sent
    [error] = [e for e in events if isinstance(e, ErrorReceived)]
    assert error.code == "CONFIGURATION_ERROR" and not error.retryable
    return error.message


@pytest.mark.parametrize(
    ("make", "fixture", "tool", "words"),
    [
        (
            lambda url: OpenAIDriver("gpt-4.1", api_key="sk-test", base_url=url + "/v1"),
            "openai/text.sse",
            WebSearch(),
            ["WebSearch", "OpenAI Chat Completions", "gpt-4.1", "openai_responses"],
        ),
        (
            _responses,
            "openai-responses/text.sse",
            WebFetch(),
            ["WebFetch", "WebSearch and CodeExecution"],
        ),
        (_responses, "openai-responses/text.sse", WebSearch(max_uses=2), ["max_uses"]),
        (
            _gemini,
            "google/text.sse",
            WebSearch(blocked_domains=["x.com"]),
            ["blocked_domains", "Gemini"],
        ),
    ],
)
def test_a_driver_refuses_what_it_lacks_by_name(
    make: Any, fixture: str, tool: Any, words: list[str]
) -> None:
    message = _refusal(make, fixture, tool)
    for word in words:
        assert word in message


def test_the_scripted_driver_refuses_unless_it_plays_the_tool() -> None:
    request = ModelRequest(ASK, provider_tools=(CodeExecution(),))
    with pytest.raises(ProviderToolError, match=r"CodeExecution .*provider_tools="):
        ScriptedDriver([text_turn("hi")]).receive(request)
    driver = ScriptedDriver([text_turn("hi")], provider_tools=["code_execution"])
    driver.receive(request)
    assert driver.requests == [request]
