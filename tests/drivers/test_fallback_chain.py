"""Fallback chains through the official SDKs' HTTP path, each vendor on its own local
ReplayServer: Anthropic answering 529 (overloaded) hands the request to OpenAI; a chain
crossing Anthropic, OpenAI and Gemini runs a tool loop in which each provider gets the
history in its own shape (thinking only for the model that produced it, foreign
signatures never sent, tool ids kept paired); the journal holds only the answers."""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import Sequence
from typing import Any

from agentcore import Agent, FallbackDriver, ModelRequest, define_tool
from agentcore.drivers.anthropic import AnthropicDriver, RetryPolicy
from agentcore.drivers.google import SKIP_SIGNATURE, GoogleDriver
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.testing import (
    ReplayServer,
    ScriptedResponse,
    check_stream,
    interrupt_when,
    sse_events,
    sse_response,
)
from agentcore.events import (
    AssistantMessage,
    ErrorReceived,
    MessageStart,
    TextDelta,
    UserMessage,
)
from agentcore.journal import MemoryJournal

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
RATE_LIMITED = {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}
REQUEST = ModelRequest(messages=(UserMessage("u1", "hi"),))


async def _no_sleep(_: float) -> None:
    return None


def fixture(vendor: str, name: str) -> ScriptedResponse:
    return sse_response(FIXTURES / vendor / name)


def weather_tool() -> Any:
    async def execute(args: dict[str, Any], ctx: Any) -> str:
        return f"sunny in {args.get('city') or args.get('location')}"

    place = {"type": "string"}
    schema = {"type": "object", "properties": {"city": place, "location": place}}
    return define_tool("get_weather", "Weather in a city", schema, execute)


class Vendors:
    """Three ReplayServers and a driver on each (one retry at most, no waiting)."""

    def __init__(self, anthropic: Sequence[Any], openai: Sequence[Any], google: Sequence[Any]):
        self.servers = {
            "anthropic": ReplayServer(anthropic),
            "openai": ReplayServer(openai),
            "google": ReplayServer(google),
        }

    async def __aenter__(self) -> Vendors:
        for server in self.servers.values():
            await server.__aenter__()
        fast: dict[str, Any] = {"retry": RetryPolicy(max_retries=1), "sleep": _no_sleep}
        url = {name: server.base_url for name, server in self.servers.items()}
        self.drivers = [
            AnthropicDriver("claude-test", api_key="k", base_url=url["anthropic"], **fast),
            OpenAIDriver("gpt-4.1", api_key="k", base_url=url["openai"] + "/v1", **fast),
            GoogleDriver("gemini-3-pro-preview", api_key="k", base_url=url["google"], **fast),
        ]
        return self

    async def __aexit__(self, *exc: object) -> None:
        for driver in self.drivers:
            await driver.aclose()
        for server in self.servers.values():
            await server.__aexit__(None, None, None)

    def sent(self, vendor: str) -> list[Any]:
        return [request.json for request in self.servers[vendor].requests]


def _models(journal: MemoryJournal) -> list[str]:
    return [e.event.model for e in journal.entries() if type(e.event) is MessageStart]


def test_a_529_from_anthropic_falls_back_to_openai_through_both_sdks() -> None:
    async def main() -> tuple[str, Vendors, MemoryJournal]:
        overloaded = ScriptedResponse.json(529, OVERLOADED)
        async with Vendors([overloaded, overloaded], [fixture("openai", "text.sse")], []) as v:
            journal = MemoryJournal()
            seen: list[tuple[str, str]] = []
            chain = FallbackDriver(v.drivers, on_fallback=lambda n, e: seen.append((n, e.code)))
            agent = Agent(chain, journal=journal)
            result = await agent.run("hi")
            await agent.aclose()
            assert seen == [("anthropic", "OVERLOADED")]
            return result.output, v, journal

    output, vendors, journal = asyncio.run(main())
    assert output == "Hello, world!"
    assert len(vendors.sent("anthropic")) == 2  # its own retry, then the chain moved on
    assert vendors.sent("openai")[0]["messages"] == [{"role": "user", "content": "hi"}]
    assert _models(journal) == ["gpt-4.1-2025-04-14"]  # nothing of the failed attempts
    assert not any(type(e.event) is ErrorReceived for e in journal.entries())


def test_an_overloaded_error_right_after_message_start_still_falls_back() -> None:
    """Anthropic answers 200, sends ``message_start``, then an ``overloaded_error`` event."""
    start = sse_events(FIXTURES / "anthropic" / "text.sse")[0]
    error = b"event: error\ndata: " + json.dumps(OVERLOADED).encode() + b"\n\n"

    async def main() -> tuple[str, MemoryJournal]:
        in_band = sse_response((start, error))
        async with Vendors([in_band], [fixture("openai", "text.sse")], []) as v:
            journal = MemoryJournal()
            agent = Agent(FallbackDriver(v.drivers), journal=journal)
            result = await agent.run("hi")
            await agent.aclose()
            return result.output, journal

    output, journal = asyncio.run(main())
    assert output == "Hello, world!" and _models(journal) == ["gpt-4.1-2025-04-14"]


def test_a_tool_loop_across_three_vendors_sends_each_the_history_in_its_own_shape() -> None:
    """Call 1: Anthropic 529, OpenAI 429, Gemini 3 calls the tool twice (signed). Call 2:
    Anthropic is back and answers, given Gemini's turn without Gemini's signature."""
    overloaded = ScriptedResponse.json(529, OVERLOADED)
    limited = ScriptedResponse.json(429, RATE_LIMITED)

    async def main() -> tuple[Any, Vendors, MemoryJournal]:
        async with Vendors(
            [overloaded, overloaded, fixture("anthropic", "text.sse")],
            [limited, limited],
            [fixture("google", "parallel_tools.sse")],
        ) as v:
            journal = MemoryJournal()
            agent = Agent(v.drivers, tools=[weather_tool()], journal=journal)
            result = await agent.run("Weather in Paris and Tokyo?")
            await agent.aclose()
            return result, v, journal

    result, vendors, journal = asyncio.run(main())
    assert result.output == "Hello, world!"
    assert _models(journal) == ["gemini-3-pro-preview", "claude-sonnet-4-5"]
    claude = vendors.sent("anthropic")[-1]["messages"]
    assert claude[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "I'll check both cities."},  # Gemini's thought, as text
            {
                "type": "tool_use",
                "id": "9f2c1a7b",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
            {
                "type": "tool_use",
                "id": "4d8e0b16",
                "name": "get_weather",
                "input": {"city": "Tokyo", "units": "metric"},
            },
        ],
    }
    assert [(b["tool_use_id"], b["content"]) for b in claude[2]["content"]] == [
        ("9f2c1a7b", "sunny in Paris"),
        ("4d8e0b16", "sunny in Tokyo"),
    ]
    assert "EpsCCpgC" not in json.dumps(vendors.sent("anthropic"))
    assert len(vendors.sent("google")) == 1 and len(vendors.sent("openai")) == 2


def test_claudes_signed_thinking_stays_with_claude_when_gemini_takes_over() -> None:
    """Call 1: Claude thinks (signed) and calls the tool. Call 2: Anthropic and OpenAI are
    overloaded; Gemini 3 answers, given Claude's thinking as text and the placeholder
    signature on Claude's call; OpenAI, asked first, got the thinking as text too."""
    overloaded = ScriptedResponse.json(529, OVERLOADED)
    busy = ScriptedResponse.json(503, {"error": {"message": "busy", "type": "server_error"}})

    async def main() -> tuple[Any, Vendors]:
        async with Vendors(
            [fixture("anthropic", "thinking_text_tool.sse"), overloaded, overloaded],
            [busy, busy],
            [fixture("google", "text.sse")],
        ) as v:
            agent = Agent(v.drivers, tools=[weather_tool()])
            result = await agent.run("Weather in Paris?")
            await agent.aclose()
            return result, v

    result, vendors = asyncio.run(main())
    assert result.output == "Hello, world!"
    claude_turn = next(m for m in result.messages if isinstance(m, AssistantMessage))
    assert claude_turn.model == "claude-sonnet-4-5"
    (call,) = claude_turn.tool_calls
    gemini = vendors.sent("google")[0]["contents"]
    assert gemini[1] == {
        "role": "model",
        "parts": [
            {"text": "The user wants the weather in Paris."},
            {"text": "Let me check the weather."},
            {
                "functionCall": {
                    "id": call.tool_call_id,
                    "name": "get_weather",
                    "args": {"location": "Paris, France"},
                },
                "thoughtSignature": SKIP_SIGNATURE,
            },
        ],
    }
    response = gemini[2]["parts"][0]["functionResponse"]
    assert response == {
        "id": call.tool_call_id,
        "name": "get_weather",
        "response": {"output": "sunny in Paris, France"},
    }
    openai = vendors.sent("openai")[0]["messages"]
    assert openai[1]["content"] == "The user wants the weather in Paris.Let me check the weather."
    assert openai[1]["tool_calls"][0]["id"] == call.tool_call_id
    assert "EqQBCgIYAhIM" not in json.dumps([vendors.sent("openai"), vendors.sent("google")])


# -- interrupts reach the driver answering, through the SDKs ---------------------------------


def test_an_interrupt_during_the_fallbacks_request_is_prompt_and_leaves_the_chain_usable() -> None:
    overloaded = ScriptedResponse.json(529, OVERLOADED)
    slow = sse_response(FIXTURES / "openai" / "text.sse", pause=5.0)

    async def main() -> tuple[Any, str]:
        async with Vendors(
            [overloaded, overloaded, fixture("anthropic", "text.sse")], [slow], []
        ) as v:
            chain = FallbackDriver(v.drivers)
            openai = v.servers["openai"]
            seen = await interrupt_when(chain, REQUEST, lambda _: len(openai.requests) == 1)
            again = [e async for e in chain.receive(REQUEST)]
            return seen, "".join(e.text for e in again if isinstance(e, TextDelta))

    seen, again = asyncio.run(main())
    assert (seen.events, seen.cancelling, again) == ([], 0, "Hello, world!")
    assert seen.delay < 0.5


def test_an_interrupt_from_another_thread_mid_answer_stops_it() -> None:
    overloaded = ScriptedResponse.json(529, OVERLOADED)
    slow = sse_response(FIXTURES / "google" / "text.sse", pause=0.5)

    async def main() -> Any:
        async with Vendors([overloaded, overloaded], [overloaded, overloaded], [slow]) as v:
            chain = FallbackDriver(v.drivers)

            async def from_thread() -> None:
                await asyncio.to_thread(chain.interrupt)

            streaming = lambda events: any(isinstance(e, TextDelta) for e in events)  # noqa: E731
            return await interrupt_when(chain, REQUEST, streaming, from_thread)

    seen = asyncio.run(main())
    check_stream([*seen.events, ErrorReceived("cut", "ABORTED")])  # a well-formed beginning
    assert [type(e) for e in seen.events] == [MessageStart, TextDelta]
    assert (seen.delay < 0.5, seen.cancelling) == (True, 0)
