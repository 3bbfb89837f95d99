"""MCP servers as toolsets, against real SDK servers over stdio, streamable HTTP and SSE:
listing (with pagination and list_changed), calling, every kind of result, resources and
prompts, sampling and elicitation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import ImageContent, TextContent, UserMessage
from agentcore.mcp import (
    ElicitationAnswer,
    ElicitationRequest,
    MCPServer,
    MCPServerError,
    PromptMessage,
)
from agentcore.tools import AbortSignal, Tool, ToolContext, run_tool


def _ctx(name: str, updates: list[Any] | None = None) -> ToolContext:
    sink = updates.append if updates is not None else (lambda _: None)
    return ToolContext(f"call_{name}", name, AbortSignal(), (), sink)


async def _run(tools: list[Tool], name: str, args: dict[str, Any]) -> Any:
    tool = next(t for t in tools if t.name == name)
    return await run_tool(tool, args, _ctx(name))


def _server(kind: str, request: pytest.FixtureRequest, **options: Any) -> MCPServer:
    if kind == "stdio":
        make: Callable[..., MCPServer] = request.getfixturevalue("stdio")
        return make(env={"AGENTCORE_TEST_VALUE": "from-env"}, **options)
    fixture = "http_server" if kind == "http" else "sse_server"
    headers = {"X-Agentcore-Test": "from-header"}
    return request.getfixturevalue(fixture).server(headers=headers, **options)


@pytest.mark.parametrize("kind", ["stdio", "http", "sse"])
def test_tools_are_listed_and_called_with_every_kind_of_result(
    kind: str, request: pytest.FixtureRequest
) -> None:
    server = _server(kind, request)

    async def main() -> None:
        async with server:
            if kind == "stdio":  # the configured environment reaches the process
                env = await server.call_tool("env", {"name": "AGENTCORE_TEST_VALUE"})
                assert env.content == "from-env"
            else:  # the configured headers reach the server with every request
                header = await server.call_tool("header", {"name": "X-Agentcore-Test"})
                assert header.content == "from-header"

            tools = await server.tools()
            names = {t.name for t in tools}
            assert {"add", "echo", "image", "fail", "weather", "hang"} <= names
            add = next(t for t in tools if t.name == "add")
            assert add.description == "Add two integers."
            assert add.parameters["required"] == ["a", "b"]
            assert add.validation_errors({"a": 1}) != []  # the server's schema is enforced

            result = await _run(tools, "add", {"a": 2, "b": 40})
            assert (result.content, result.is_error) == ("42", False)
            assert result.details["structured_content"] == {"result": 42}

            image = await _run(tools, "image", {})
            caption, picture = image.content
            assert caption == TextContent("a red dot")
            assert isinstance(picture, ImageContent) and picture.media_type == "image/png"

            failed = await _run(tools, "fail", {"reason": "the disk is full"})
            assert failed.is_error and "the disk is full" in failed.content

            weather = await _run(tools, "weather", {"city": "Oslo"})
            assert weather.details["structured_content"] == {"city": "Oslo", "temp_c": 21}

            unknown = await server.call_tool("no_such_tool")
            assert unknown.is_error and "no_such_tool" in unknown.content

    asyncio.run(main())


def test_prefix_filters_and_approval_shape_the_toolset(http_server: Any) -> None:
    server = http_server.server(prefix="ev", include=["add", "echo", "fail"], exclude=["fail"])
    server.requires_approval = frozenset({"echo"})

    async def main() -> list[Tool]:
        async with server:
            tools = await server.tools()
            assert (await _run(tools, "ev_add", {"a": 1, "b": 2})).content == "3"
            return tools

    tools = asyncio.run(main())
    assert sorted(t.name for t in tools) == ["ev_add", "ev_echo"]
    assert {t.name: t.requires_approval for t in tools} == {"ev_add": False, "ev_echo": True}


def test_listing_follows_every_page(stdio: Callable[..., MCPServer], paged_script: str) -> None:
    async def main() -> list[str]:
        async with stdio(paged_script) as server:
            tools = await server.tools()
            assert (await _run(tools, "tool_6", {})).content == "called tool_6"
            return [t.name for t in tools]

    assert asyncio.run(main()) == [f"tool_{i}" for i in range(7)]


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_list_changed_makes_the_next_listing_fresh(protocol: str, http_server: Any) -> None:
    """2026-07-28 servers announce changes on a listen stream, 2025 ones with a
    notification; either way the cached listing is dropped and only then re-read."""
    server = http_server.server(protocol=protocol)
    late = f"late_{protocol}"

    async def main() -> None:
        async with server:
            assert server.protocol_version == ("2026-07-28" if protocol == "auto" else "2025-11-25")
            before = {t.name for t in await server.tools()}
            assert late not in before
            added = await server.call_tool("add_tool", {"name": late})
            assert added.content == f"added {late}"
            deadline = time.monotonic() + 5
            while late not in {t.name for t in await server.tools()}:
                assert time.monotonic() < deadline, "list_changed never arrived"
                await asyncio.sleep(0.02)
            tools = await server.tools()
            assert {t.name for t in tools} == before | {late}
            assert (await _run(tools, late, {})).content == f"I am {late}"

    asyncio.run(main())


def test_listing_is_cached_until_a_change(http_server: Any) -> None:
    server = http_server.server()

    async def main() -> None:
        async with server:
            first = await server.tools()
            again = await server.tools()
            assert [t.name for t in again] == [t.name for t in first]
            assert all(a is b for a, b in zip(first, again, strict=True))  # no re-listing

    asyncio.run(main())


def test_progress_notifications_reach_on_update(http_server: Any) -> None:
    updates: list[Any] = []

    async def main() -> Any:
        async with http_server.server() as server:
            tool = next(t for t in await server.tools() if t.name == "progress")
            return await run_tool(tool, {"steps": 3}, _ctx("progress", updates))

    assert asyncio.run(main()).content == "done"
    assert [u["progress"] for u in updates] == [1, 2, 3]
    assert updates[-1] == {"progress": 3, "total": 3, "message": "step 3"}


def test_resources_and_prompts_as_methods_and_as_tools(http_server: Any) -> None:
    server = http_server.server(prefix="ev", resource_tools=True, prompt_tools=True)

    async def main() -> None:
        async with server:
            resources = {r.uri: r for r in await server.list_resources()}
            assert resources["note://hello"].description == "A short note"
            assert await server.read_resource("note://hello") == "hello from a resource"
            (dot,) = await server.read_resource("img://dot")
            assert isinstance(dot, ImageContent) and dot.media_type == "image/png"

            (review,) = await server.list_prompts()
            assert review.name == "review" and review.arguments[0].name == "code"
            assert review.arguments[0].required
            messages = await server.get_prompt("review", {"code": "x = 1"})
            assert messages == (PromptMessage("user", "Please review: x = 1"),)

            tools = await server.tools()
            listed = await _run(tools, "ev_list_resources", {})
            assert '"uri": "note://hello"' in listed.content
            read = await _run(tools, "ev_read_resource", {"uri": "note://hello"})
            assert read.content == "hello from a resource"
            arguments = {"name": "review", "arguments": {"code": "y"}}
            filled = await _run(tools, "ev_get_prompt", arguments)
            assert filled.content == "[user]\nPlease review: y"
            assert '"name": "review"' in (await _run(tools, "ev_list_prompts", {})).content
            missing = await _run(tools, "ev_read_resource", {"uri": "note://nothing"})
            assert missing.is_error and missing.details["kind"] == "rejected"

            with pytest.raises(MCPServerError) as info:
                await server.get_prompt("no_such_prompt")
            assert info.value.kind == "rejected" and info.value.server == server.name

    asyncio.run(main())


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_sampling_is_answered_by_the_chosen_driver(protocol: str, http_server: Any) -> None:
    driver = ScriptedDriver([text_turn("four", model="tiny-model")])
    server = http_server.server(sampling=driver, protocol=protocol)

    async def main() -> Any:
        async with server:
            return await server.call_tool("ask", {"question": "What is 2 + 2?"})

    result = asyncio.run(main())
    assert (result.content, result.is_error) == ("model tiny-model said: four", False)
    (request,) = driver.requests
    assert request.messages == (UserMessage("mcp_sampling_0", "What is 2 + 2?"),)
    assert (request.system_prompt, request.max_tokens, request.temperature) == (
        "Answer briefly.",
        50,
        0.2,
    )
    assert request.tools == ()


def test_sampling_is_refused_unless_enabled(http_server: Any) -> None:
    async def main() -> Any:
        async with http_server.server() as server:
            return await server.call_tool("ask", {"question": "2 + 2?"})

    result = asyncio.run(main())
    assert result.is_error and "sampling" in result.content.lower()


def test_a_failing_sampling_driver_answers_the_server_with_an_error(http_server: Any) -> None:
    failure = RuntimeError("model down, key sk-abcdefghijklmnop1234")
    server = http_server.server(sampling=ScriptedDriver([[failure]]))

    async def main() -> Any:
        async with server:
            first = await server.call_tool("ask", {"question": "?"})
            second = await server.call_tool("add", {"a": 1, "b": 1})
            return first, second

    first, second = asyncio.run(main())
    assert first.is_error and "sk-abcdefghijklmnop1234" not in first.content
    assert second.content == "2"  # the session survived


def test_elicitation_goes_through_the_on_elicitation_seam(http_server: Any) -> None:
    asked: list[ElicitationRequest] = []

    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept", {"name": "Ada"})

    server = http_server.server(on_elicitation=answer, name="people")

    async def main() -> Any:
        async with server:
            return await server.call_tool("greet_someone", {"question": "Who are you?"})

    assert asyncio.run(main()).content == "hello Ada"
    (request,) = asked
    assert (request.source, request.message, request.mode) == ("people", "Who are you?", "form")
    assert request.schema is not None and request.schema["required"] == ["name"]
