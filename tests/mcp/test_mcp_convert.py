"""Conversion rules between MCP data and agentcore data, as properties (no server).

Tests the private modules ``agentcore._mcp`` and ``agentcore._core.secrets``: converting
MCP's types and callbacks, and the scrubber's mark."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import mcp_types as mt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore._core.secrets import REDACTED
from agentcore._mcp.callbacks import sampling_callback
from agentcore._mcp.convert import (
    error_output,
    object_schema,
    sampling_request,
    selected,
    to_content,
    to_output,
    tool_name,
)
from agentcore._mcp.toolset import build_tools
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.errors import (
    AgentError,
    ConfigurationError,
    ErrorCode,
    MCPServerError,
    error_from_code,
)
from agentcore.events import (
    AssistantMessage,
    AudioContent,
    DocumentContent,
    ErrorReceived,
    FileContent,
    ImageContent,
    TextContent,
)
from agentcore.mcp import MCPServer
from agentcore.redaction import Redactor
from agentcore.tools import define_tool

VALID = re.compile(r"[A-Za-z0-9_-]+")

_text_blocks = st.builds(lambda t: mt.TextContent(type="text", text=t), st.text(max_size=20))
_images = st.builds(
    lambda mime, data: mt.ImageContent(type="image", data=data, mime_type=mime),
    st.sampled_from(["image/png", "image/jpeg", "image/svg+xml", "image/bmp"]),
    st.text(alphabet="abcdef0123456789", min_size=1, max_size=12),
)
_blocks = st.lists(st.one_of(_text_blocks, _images), max_size=5)


@given(st.text(max_size=30), st.none() | st.text(max_size=8))
def test_tool_names_are_always_acceptable_to_define_tool(name: str, prefix: str | None) -> None:
    local = tool_name(name, prefix)
    assert VALID.fullmatch(local)
    define_tool(local, "d", {"type": "object", "properties": {}}, _noop)
    if prefix:
        assert local.startswith(tool_name(prefix, None) + "_") or local.startswith("_")


@given(st.from_regex(r"[A-Za-z0-9_-]{1,20}", fullmatch=True))
def test_valid_names_are_kept_as_they_are(name: str) -> None:
    assert tool_name(name) == name
    assert tool_name(name, "ns") == f"ns_{name}"


_names = st.text(max_size=10)


@given(_names, st.none() | st.frozensets(_names), st.frozensets(_names))
def test_filters_include_then_exclude(name: str, include: Any, exclude: frozenset[str]) -> None:
    expected = (include is None or name in include) and name not in exclude
    assert selected(name, include, exclude) is expected


@given(_blocks)
def test_content_blocks_keep_their_order_and_kind(blocks: list[Any]) -> None:
    content = to_content(blocks)
    if not blocks:
        assert content == ""
    elif len(blocks) == 1 and isinstance(blocks[0], mt.TextContent):
        assert content == blocks[0].text
    else:
        assert isinstance(content, tuple) and len(content) == len(blocks)
        for block, part in zip(blocks, content, strict=True):
            if isinstance(block, mt.TextContent):
                assert part == TextContent(block.text)
            elif block.mime_type in ("image/png", "image/jpeg"):
                assert part == ImageContent(block.mime_type, block.data)
            else:
                assert isinstance(part, TextContent) and block.mime_type in part.text


@given(_blocks, st.booleans(), st.none() | st.dictionaries(st.text(max_size=5), st.integers()))
def test_results_keep_the_error_flag_and_the_structured_content(
    blocks: list[Any], is_error: bool, structured: Any
) -> None:
    result = mt.CallToolResult(content=blocks, is_error=is_error, structured_content=structured)
    output = to_output(result, "srv")
    assert output.is_error is is_error
    assert output.details["server"] == "srv"
    if structured is None:
        assert "structured_content" not in output.details
        assert output.content == to_content(blocks)
    else:
        assert output.details["structured_content"] == structured
        if not blocks:
            assert json.loads(output.content) == structured


def test_audio_resources_and_links_become_media_parts() -> None:
    pdf = mt.BlobResourceContents(
        uri="file:///docs/a.pdf", mime_type="application/pdf", blob="JVBE"
    )
    png = mt.BlobResourceContents(uri="mem://shot", mime_type="image/png", blob="iVBO")
    text = mt.TextResourceContents(uri="file:///a.txt", text="inside")
    link = mt.ResourceLink(
        type="resource_link", uri="https://x.org/r.pdf", name="r", mime_type="application/pdf"
    )
    content = to_content(
        [
            mt.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
            mt.EmbeddedResource(type="resource", resource=pdf),
            mt.EmbeddedResource(type="resource", resource=png),
            mt.EmbeddedResource(type="resource", resource=text),
            link,
        ]
    )
    assert content == (
        AudioContent("audio/wav", "AAAA"),
        DocumentContent("application/pdf", "JVBE", "a.pdf"),
        ImageContent("image/png", "iVBO"),
        TextContent("inside"),
        FileContent.from_url("https://x.org/r.pdf", "application/pdf", title="r"),
    )


def test_what_no_model_takes_becomes_a_note() -> None:
    blob = mt.BlobResourceContents(uri="file:///a.zip", mime_type="application/zip", blob="AAAA")
    content = to_content(
        [
            mt.AudioContent(type="audio", data="AAAA", mime_type="audio/x-unknown"),
            mt.ImageContent(type="image", data="AAAA", mime_type="application/pdf"),
            mt.ResourceLink(type="resource_link", uri="file:///b", name="b", description="bee"),
            mt.EmbeddedResource(type="resource", resource=blob),
        ]
    )
    assert content == (
        TextContent("[audio (audio/x-unknown) omitted: not supported]"),
        TextContent("[image (application/pdf) omitted: not supported]"),
        TextContent("[resource file:///b (b): bee]"),
        TextContent("[binary resource file:///a.zip (application/zip) omitted: not supported]"),
    )


def test_object_schemas_get_their_type_and_others_are_refused() -> None:
    assert object_schema({"properties": {"a": {}}}) == {"type": "object", "properties": {"a": {}}}
    with pytest.raises(ValueError, match="type 'string'"):
        object_schema({"type": "string"})


_roles = st.sampled_from(["user", "assistant"])


@given(st.lists(st.tuples(_roles, st.text(max_size=10)), min_size=1, max_size=5))
def test_sampling_messages_become_a_model_request(turns: list[tuple[str, str]]) -> None:
    params = mt.CreateMessageRequestParams(
        messages=[
            mt.SamplingMessage(role=role, content=mt.TextContent(type="text", text=text))  # type: ignore[arg-type]
            for role, text in turns
        ],
        max_tokens=7,
    )
    request = sampling_request(params)
    assert request.max_tokens == 7 and request.tools == ()
    for (role, text), message in zip(turns, request.messages, strict=True):
        assert isinstance(message, AssistantMessage) is (role == "assistant")
        assert message.text == text if role == "assistant" else message.content == text


def test_sampling_refuses_tool_content() -> None:
    use = mt.ToolUseContent(type="tool_use", id="u1", name="t", input={})
    params = mt.CreateMessageRequestParams(
        messages=[mt.SamplingMessage(role="assistant", content=use)], max_tokens=5
    )
    with pytest.raises(ValueError, match="sampling message 0 holds 'tool_use' content"):
        sampling_request(params)


def test_the_sampling_callback_reports_driver_errors_to_the_server() -> None:
    params = mt.CreateMessageRequestParams(
        messages=[mt.SamplingMessage(role="user", content=mt.TextContent(type="text", text="hi"))],
        max_tokens=5,
    )
    fails = ScriptedDriver([[ErrorReceived("quota for sk-abcdefghijklmnopqrst", "RATE_LIMITED")]])
    works = ScriptedDriver([text_turn("hello", model="m1")])

    async def main() -> tuple[Any, Any]:
        bad = sampling_callback(fails, "srv", Redactor(()))
        good = sampling_callback(works, "srv", Redactor(()))
        return await bad(None, params), await good(None, params)  # type: ignore[arg-type]

    refused, answered = asyncio.run(main())
    assert isinstance(refused, mt.ErrorData) and "sk-abc" not in refused.message
    assert isinstance(answered, mt.CreateMessageResult)
    assert (answered.content.text, answered.model, answered.stop_reason) == (  # type: ignore[union-attr]
        "hello",
        "m1",
        "endTurn",
    )


@given(st.lists(st.text(min_size=6, max_size=12), max_size=4), st.text(max_size=40))
def test_the_redactor_removes_every_configured_secret(secrets: list[str], text: str) -> None:
    redact = Redactor(secrets)
    joined = " ".join([text, *secrets, text])
    cleaned = redact(joined)
    for secret in secrets:
        if REDACTED not in secret and secret not in REDACTED:
            assert secret not in cleaned.replace(REDACTED, "\0")


async def _noop(args: Any, ctx: Any) -> None:
    return None


def _listed(name: str, schema: dict[str, Any] | None = None) -> mt.Tool:
    return mt.Tool(name=name, description=f"tool {name}", input_schema=schema or {})


def test_a_faulty_tool_is_skipped_and_the_others_kept(caplog: pytest.LogCaptureFixture) -> None:
    server = MCPServer.stdio("unused", name="srv", include=["a.b", "a_b", "bad", "ghost"])
    listed = [
        _listed("a.b"),
        _listed("a_b"),  # the same name once made safe
        _listed("bad", {"type": "object", "properties": {"x": {"type": 12}}}),
        _listed("ignored"),
    ]
    tools = build_tools(server, listed)
    assert [t.name for t in tools] == ["a_b"]
    assert tools[0].description == "tool a.b"
    warnings = caplog.text
    assert "'a_b' skipped, its name 'a_b' is taken" in warnings
    assert "'bad' skipped" in warnings and "ghost" in warnings


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"protocol": "2024-01-01"}, "protocol must be 'auto', 'legacy'"),
        ({"timeout": 0}, "timeout must be > 0 seconds"),
        ({"connect_timeout": -1}, "connect_timeout must be > 0 seconds"),
    ],
)
def test_bad_options_are_configuration_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        MCPServer.stdio("unused", **options)


def test_params_must_say_where_the_server_is() -> None:
    with pytest.raises(ConfigurationError, match=r"MCPServer.stdio\(...\)"):
        MCPServer("python server.py")  # type: ignore[arg-type]


_kinds = st.sampled_from(["connect", "lost", "timeout", "rejected", "protocol", "closed"])


@given(_kinds, st.text(max_size=12), st.text(max_size=20))
def test_an_mcp_error_keeps_its_kind_through_its_code(kind: Any, server: str, text: str) -> None:
    """Each failure kind has its own code, so an error turned into a tool result's
    ``error_code`` (or an error event) comes back as the same ``MCPServerError`` kind."""
    error = MCPServerError(text, server=server, kind=kind)
    assert isinstance(error, AgentError) and error.code.value.startswith("MCP_")
    assert error.details == {"server": server, "kind": kind}
    output = error_output(error)
    assert output.is_error and output.details["error_code"] == error.code.value
    again = error_from_code(text, output.details["error_code"])
    assert type(again) is MCPServerError and again.kind == kind and again.code == error.code


def test_mcp_codes_are_mcp_errors_only() -> None:
    with pytest.raises(ValueError, match="TIMEOUT is not an MCP server error code"):
        MCPServerError("x", code=ErrorCode.TIMEOUT)
