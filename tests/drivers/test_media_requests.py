"""Images, documents, audio and files through every driver (issue 28, item 2).

Each driver runs through its SDK's real HTTP path against a local ReplayServer; the
request body the server received is compared with the provider's documented shape. A
part the provider (or the model) does not take is refused before anything is sent: one
``error_received`` with ``UNSUPPORTED_CONTENT``, naming the part, the model and what the
API takes, and the server saw no request. A fallback chain passes such a call on to a
driver that takes the part.
"""

from __future__ import annotations

import asyncio
import base64
import pathlib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import FallbackDriver, ModelRequest
from agentcore.drivers.anthropic import AnthropicDriver
from agentcore.drivers.google import GoogleDriver
from agentcore.drivers.openai import OpenAIDriver
from agentcore.drivers.openai_responses import OpenAIResponsesDriver
from agentcore.drivers.testing import ReplayServer, sse_response
from agentcore.errors import ErrorCode, UnsupportedContentError
from agentcore.events import (
    AssistantMessage,
    AudioContent,
    ContentPart,
    DocumentContent,
    ErrorReceived,
    FileContent,
    ImageContent,
    MessageDelta,
    StreamEvent,
    TextContent,
    TextDelta,
    ToolCallPart,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from agentcore.testing import content_parts

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)
PDF = b"%PDF-1.7\n%fake\n"
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(16)
IMAGE = ImageContent.from_bytes(PNG)
REPORT = DocumentContent.from_bytes(PDF, title="report.pdf")
CITED = DocumentContent.from_bytes(PDF, title="report.pdf", citations=True)
NOTES = DocumentContent.from_text("Meeting at noon.", title="notes")
CLIP = AudioContent.from_bytes(WAV)
B64 = {name: base64.b64encode(data).decode() for name, data in [("png", PNG), ("pdf", PDF)]}
B64["wav"] = base64.b64encode(WAV).decode()

Make = Callable[[ReplayServer, str], Any]

DRIVERS: dict[str, tuple[Make, str]] = {
    "anthropic": (
        lambda s, m: AnthropicDriver(m, api_key="sk-ant-test", base_url=s.base_url),
        "anthropic/text.sse",
    ),
    "openai": (
        lambda s, m: OpenAIDriver(m, api_key="sk-test", base_url=s.base_url + "/v1"),
        "openai/text.sse",
    ),
    "openai_responses": (
        lambda s, m: OpenAIResponsesDriver(m, api_key="sk-test", base_url=s.base_url + "/v1"),
        "openai-responses/text.sse",
    ),
    "google": (
        lambda s, m: GoogleDriver(m, api_key="AIzaSy-test-key-0123456789", base_url=s.base_url),
        "google/text.sse",
    ),
}


def call(vendor: str, model: str, *messages: Any) -> tuple[list[StreamEvent], list[Any]]:
    """The events of one call and the requests the server received."""
    make, fixture = DRIVERS[vendor]

    async def main() -> tuple[list[StreamEvent], list[Any]]:
        async with ReplayServer([sse_response(FIXTURES / fixture)]) as server:
            driver = make(server, model)
            try:
                events = [e async for e in driver.receive(ModelRequest(messages=messages))]
            finally:
                await driver.aclose()
            return events, server.requests

    return asyncio.run(main())


def prompt(*parts: ContentPart) -> UserMessage:
    return UserMessage("u1", (TextContent("What is in these?"), *parts))


def sent(vendor: str, model: str, *messages: Any) -> Any:
    """The JSON body of the one request a call made (it answered with text)."""
    events, requests = call(vendor, model, *messages)
    assert [e for e in events if isinstance(e, ErrorReceived)] == []
    assert any(isinstance(e, TextDelta) for e in events)
    (request,) = requests
    return request.json


def refused(vendor: str, model: str, *messages: Any) -> str:
    """The message of the error that refused the call; nothing reached the server."""
    events, requests = call(vendor, model, *messages)
    assert requests == []
    (error,) = events
    assert isinstance(error, ErrorReceived)
    assert (error.code, error.retryable) == (ErrorCode.UNSUPPORTED_CONTENT, False)
    return error.message


# -- Anthropic -------------------------------------------------------------------------------


def test_anthropic_sends_images_pdfs_and_text_documents_as_documented() -> None:
    body = sent("anthropic", "claude-test", prompt(IMAGE, REPORT, NOTES))
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in these?"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": B64["png"]},
                },
                {
                    "type": "document",
                    "source": {
                        "type": "base64",
                        "media_type": "application/pdf",
                        "data": B64["pdf"],
                    },
                    "title": "report.pdf",
                },
                {
                    "type": "document",
                    "source": {
                        "type": "text",
                        "media_type": "text/plain",
                        "data": "Meeting at noon.",
                    },
                    "title": "notes",
                },
            ],
        }
    ]


def test_anthropic_citations_off_and_on() -> None:
    off, on = (
        sent("anthropic", "claude-test", prompt(doc))["messages"][0]["content"][1]
        for doc in (REPORT, CITED)
    )
    assert "citations" not in off
    assert on["citations"] == {"enabled": True}


def test_anthropic_takes_urls_and_file_ids_with_the_files_beta_header() -> None:
    parts = (
        FileContent.from_url("https://example.com/a.png", "image/png"),
        FileContent.from_url("https://example.com/a.pdf", "application/pdf", citations=True),
        FileContent.from_file_id("file_011", "application/pdf", provider="anthropic", title="T"),
        FileContent.from_file_id("file_012", "image/jpeg"),
    )
    _, requests = call("anthropic", "claude-test", prompt(*parts))
    (request,) = requests
    assert request.headers["anthropic-beta"] == "files-api-2025-04-14"
    assert request.json["messages"][0]["content"][1:] == [
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
        {
            "type": "document",
            "source": {"type": "url", "url": "https://example.com/a.pdf"},
            "citations": {"enabled": True},
        },
        {"type": "document", "source": {"type": "file", "file_id": "file_011"}, "title": "T"},
        {"type": "image", "source": {"type": "file", "file_id": "file_012"}},
    ]
    inline = sent("anthropic", "claude-test", prompt(IMAGE))
    assert "anthropic-beta" not in call("anthropic", "claude-test", prompt(IMAGE))[1][0].headers
    assert inline["messages"][0]["content"][1]["type"] == "image"


def test_anthropic_tool_results_carry_images_and_documents() -> None:
    history = (
        UserMessage("u1", "read it"),
        AssistantMessage("a1", "claude-test", (ToolCallPart("c1", "read", {}),)),
        ToolResultMessage("c1", "read", (TextContent("page 1"), REPORT)),
    )
    result = sent("anthropic", "claude-test", *history)["messages"][2]["content"][0]
    assert result["type"] == "tool_result"
    assert [b["type"] for b in result["content"]] == ["text", "document"]


def test_anthropic_refuses_audio_before_sending() -> None:
    message = refused("anthropic", "claude-test", prompt(IMAGE, CLIP))
    assert message.startswith(
        "Anthropic Messages (model 'claude-test') does not take message 1 (user), "
        "part 3: audio (audio/wav, 32 bytes inline): it takes no audio; it takes images "
        "(image/gif, image/jpeg, image/png, image/webp: inline, URL, file id), documents "
        "(application/pdf, text/plain: inline, file id; application/pdf: URL)"
    ), message


@pytest.mark.parametrize(
    ("part", "needle"),
    [
        (
            FileContent.from_url("https://example.com/a.txt", "text/plain"),
            "documents by URL must be application/pdf",
        ),
        (
            FileContent.from_file_id("file-abc", "application/pdf", provider="openai"),
            "the file id belongs to 'openai', not 'anthropic'",
        ),
        (
            FileContent.from_url("https://example.com/a.mp4", "video/mp4"),
            "it takes no other files",
        ),
        (
            ImageContent("image/png", "A" * (5 * 1024 * 1024 + 4)),
            "images may be at most 3.8 MB each",
        ),
    ],
)
def test_anthropic_refuses_what_it_does_not_take(part: ContentPart, needle: str) -> None:
    assert needle in refused("anthropic", "claude-test", prompt(part))


def test_anthropic_refuses_a_101st_image() -> None:
    message = refused("anthropic", "claude-test", prompt(*[IMAGE] * 101))
    assert "takes at most 100 images per request; message 1 (user), part 102" in message


# -- OpenAI Chat Completions -----------------------------------------------------------------


def test_openai_chat_sends_image_url_file_and_input_audio_as_documented() -> None:
    body = sent("openai", "gpt-4o-audio-preview", prompt(IMAGE, REPORT, CLIP, NOTES))
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in these?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64['png']}"}},
                {
                    "type": "file",
                    "file": {
                        "filename": "report.pdf",
                        "file_data": f"data:application/pdf;base64,{B64['pdf']}",
                    },
                },
                {"type": "input_audio", "input_audio": {"data": B64["wav"], "format": "wav"}},
                {"type": "text", "text": "[Document: notes]\nMeeting at noon."},
            ],
        }
    ]


def test_openai_chat_takes_image_urls_and_file_ids_and_text_documents_as_text() -> None:
    parts = (
        FileContent.from_url("https://example.com/a.jpg", "image/jpeg"),
        FileContent.from_file_id("file-abc", "application/pdf", provider="openai"),
    )
    content = sent("openai", "gpt-4.1", prompt(*parts))["messages"][0]["content"]
    assert content[1:] == [
        {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}},
        {"type": "file", "file": {"file_id": "file-abc"}},
    ]
    only_text = sent("openai", "gpt-4.1", UserMessage("u", (TextContent("Read:"), NOTES)))
    assert only_text["messages"][0]["content"] == "Read:\n[Document: notes]\nMeeting at noon."


def test_openai_chat_moves_the_media_a_tool_returned_into_a_user_message() -> None:
    history = (
        UserMessage("u1", "read it"),
        AssistantMessage("a1", "gpt-4.1", (ToolCallPart("c1", "read", {}),)),
        ToolResultMessage("c1", "read", (REPORT,)),
    )
    messages = sent("openai", "gpt-4.1", *history)["messages"]
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "(1 attachment(s) in the next user message)",
    }
    assert [p["type"] for p in messages[3]["content"]] == ["text", "file"]


def test_openai_chat_refuses_audio_for_a_model_without_audio_input() -> None:
    message = refused("openai", "gpt-4.1", prompt(CLIP))
    assert (
        "OpenAI Chat Completions (model 'gpt-4.1') does not take message 1 (user), part 2: "
        "audio (audio/wav, 32 bytes inline): only models named with 'audio' take audio; "
        "it takes images"
    ) in message


@pytest.mark.parametrize(
    ("part", "needle"),
    [
        (
            FileContent.from_url("https://example.com/a.pdf", "application/pdf"),
            "documents are taken inline, file id, not by URL",
        ),
        (
            AudioContent.from_bytes(b"OggS", "audio/ogg"),
            "audio by inline must be audio/mpeg, audio/wav",
        ),
        (
            FileContent.from_file_id("f", "image/png", provider="openai"),
            "images are taken inline, URL, not by file id",
        ),
    ],
)
def test_openai_chat_refuses_what_it_does_not_take(part: ContentPart, needle: str) -> None:
    assert needle in refused("openai", "gpt-4o-audio-preview", prompt(part))


# -- OpenAI Responses ------------------------------------------------------------------------


def test_openai_responses_sends_input_image_file_and_audio_as_documented() -> None:
    body = sent("openai_responses", "gpt-5", prompt(IMAGE, REPORT, CLIP, NOTES))
    assert body["input"] == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is in these?"},
                {
                    "type": "input_image",
                    "image_url": f"data:image/png;base64,{B64['png']}",
                    "detail": "auto",
                },
                {
                    "type": "input_file",
                    "filename": "report.pdf",
                    "file_data": f"data:application/pdf;base64,{B64['pdf']}",
                },
                {"type": "input_audio", "input_audio": {"data": B64["wav"], "format": "wav"}},
                {"type": "input_text", "text": "[Document: notes]\nMeeting at noon."},
            ],
        }
    ]


def test_openai_responses_takes_urls_and_file_ids() -> None:
    parts = (
        FileContent.from_url("https://example.com/a.png", "image/png"),
        FileContent.from_file_id("file-img", "image/png"),
        FileContent.from_url("https://example.com/a.pdf", "application/pdf"),
        FileContent.from_file_id("file-pdf", "application/pdf", provider="openai"),
    )
    content = sent("openai_responses", "gpt-5", prompt(*parts))["input"][0]["content"]
    assert content[1:] == [
        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"},
        {"type": "input_image", "file_id": "file-img", "detail": "auto"},
        {"type": "input_file", "file_url": "https://example.com/a.pdf"},
        {"type": "input_file", "file_id": "file-pdf"},
    ]


def test_openai_responses_tool_output_takes_files_but_not_audio() -> None:
    call_message = AssistantMessage("a1", "gpt-5", (ToolCallPart("c1", "read", {}),))
    history = (UserMessage("u1", "read"), call_message, ToolResultMessage("c1", "read", (REPORT,)))
    output = sent("openai_responses", "gpt-5", *history)["input"][2]
    assert output["type"] == "function_call_output"
    assert [p["type"] for p in output["output"]] == ["input_file"]
    clip = ToolResultMessage("c1", "read", (CLIP,))
    message = refused("openai_responses", "gpt-5", UserMessage("u1", "x"), call_message, clip)
    assert "message 3 (result of tool 'read'), part 1: audio" in message
    assert "a tool result cannot hold audio" in message


# -- Google ----------------------------------------------------------------------------------


def test_google_sends_inline_data_and_file_data_as_documented() -> None:
    parts = (
        IMAGE,
        REPORT,
        CLIP,
        AudioContent.from_bytes(b"ID3\x04", "audio/mpeg"),
        FileContent.from_url(
            "https://generativelanguage.googleapis.com/v1beta/files/x", "video/mp4"
        ),
        FileContent.from_url("gs://bucket/doc.pdf", "application/pdf"),
    )
    body = sent("google", "gemini-2.5-flash", prompt(*parts))
    assert body["contents"] == [
        {
            "role": "user",
            "parts": [
                {"text": "What is in these?"},
                {"inlineData": {"mimeType": "image/png", "data": B64["png"]}},
                {"inlineData": {"mimeType": "application/pdf", "data": B64["pdf"]}},
                {"inlineData": {"mimeType": "audio/wav", "data": B64["wav"]}},
                {"inlineData": {"mimeType": "audio/mp3", "data": "SUQzBA=="}},
                {
                    "fileData": {
                        "mimeType": "video/mp4",
                        "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/x",
                    }
                },
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/doc.pdf"}},
            ],
        }
    ]


def test_google_refuses_a_file_id_naming_what_it_takes() -> None:
    part = FileContent.from_file_id("files/abc", "application/pdf")
    message = refused("google", "gemini-2.5-flash", prompt(part))
    assert "Gemini (model 'gemini-2.5-flash') does not take message 1 (user), part 2" in message
    assert "documents are taken inline, URL, not by file id" in message
    assert "other files (any type: URL)" in message


def test_google_refuses_more_inline_media_than_a_request_takes() -> None:
    big = DocumentContent("application/pdf", "A" * (60 * 1024 * 1024))
    message = refused("google", "gemini-2.5-flash", prompt(big, big))
    assert "at most 75.0 MB of inline media per request; this request has 90.0 MB" in message


# -- a fallback chain ------------------------------------------------------------------------


def test_a_fallback_chain_passes_a_refused_part_to_a_driver_that_takes_it() -> None:
    async def main() -> tuple[list[StreamEvent], list[Any], list[Any]]:
        async with (
            ReplayServer([sse_response(FIXTURES / "anthropic/text.sse")]) as first,
            ReplayServer([sse_response(FIXTURES / "openai/text.sse")]) as second,
        ):
            chain = FallbackDriver(
                [
                    DRIVERS["anthropic"][0](first, "claude-test"),
                    DRIVERS["openai"][0](second, "gpt-4o-audio-preview"),
                ]
            )
            request = ModelRequest(messages=(prompt(CLIP),))
            events = [e async for e in chain.receive(request)]
            return events, first.requests, second.requests

    events, to_anthropic, to_openai = asyncio.run(main())
    assert to_anthropic == []
    assert to_openai[0].json["messages"][0]["content"][1]["type"] == "input_audio"
    assert not [e for e in events if isinstance(e, ErrorReceived)]


def test_a_fallback_chain_where_no_driver_takes_a_part_names_every_refusal() -> None:
    async def main() -> list[StreamEvent]:
        async with ReplayServer([]) as first, ReplayServer([]) as second:
            chain = FallbackDriver(
                [
                    DRIVERS["anthropic"][0](first, "claude-test"),
                    DRIVERS["openai"][0](second, "gpt-4.1"),
                ]
            )
            return [e async for e in chain.receive(ModelRequest(messages=(prompt(CLIP),)))]

    (error,) = asyncio.run(main())
    assert isinstance(error, ErrorReceived)
    assert error.code == ErrorCode.UNSUPPORTED_CONTENT
    assert "OpenAI Chat Completions (model 'gpt-4.1') does not take" in error.message
    assert "fell back after anthropic: UNSUPPORTED_CONTENT: Anthropic Messages" in error.message


# -- usage: the media tokens the providers report --------------------------------------------


def _usage(vendor: str, model: str, fixture: str) -> Usage:
    make, _ = DRIVERS[vendor]

    async def main() -> list[StreamEvent]:
        async with ReplayServer([sse_response(FIXTURES / fixture)]) as server:
            driver = make(server, model)
            try:
                request = ModelRequest(messages=(prompt(IMAGE, CLIP),))
                return [e async for e in driver.receive(request)]
            finally:
                await driver.aclose()

    (delta,) = [e for e in asyncio.run(main()) if isinstance(e, MessageDelta)]
    return delta.usage


def test_openai_chat_reports_the_prompts_image_and_audio_tokens() -> None:
    usage = _usage("openai", "gpt-4o-audio-preview", "openai/usage_media.sse")
    assert usage == Usage(input_tokens=1400, output_tokens=6, image_tokens=765, audio_tokens=310)
    assert usage.total_tokens == 1406  # a breakdown, not added


def test_gemini_reports_tokens_by_modality() -> None:
    usage = _usage("google", "gemini-2.5-flash", "google/usage_media.sse")
    assert usage == Usage(
        input_tokens=1360,
        output_tokens=6,
        cache_read_tokens=1000,
        image_tokens=258,
        audio_tokens=800,
        document_tokens=1290,
    )


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["TEXT", "IMAGE", "AUDIO", "DOCUMENT", "VIDEO"]), st.integers(0, 10**6)
        )
    )
)
def test_gemini_modalities_sum_per_kind(details: list[tuple[str, int]]) -> None:
    from agentcore.drivers.google.stream import usage_from

    meta = {"promptTokensDetails": [{"modality": m, "tokenCount": n} for m, n in details]}
    usage = usage_from(meta)
    total = {m: sum(n for k, n in details if k == m) for m in ("IMAGE", "AUDIO", "DOCUMENT")}
    assert (usage.image_tokens, usage.audio_tokens, usage.document_tokens) == (
        total["IMAGE"],
        total["AUDIO"],
        total["DOCUMENT"],
    )


def test_usage_adds_the_media_tokens() -> None:
    one = Usage(input_tokens=1, image_tokens=2, audio_tokens=3, document_tokens=4)
    assert one + one == Usage(input_tokens=2, image_tokens=4, audio_tokens=6, document_tokens=8)


def test_a_compatible_server_takes_audio_on_any_model_and_media_can_be_set() -> None:
    """``provider`` other than ``openai``: OpenAI's model rule and limits do not apply;
    ``media=`` sets what a server takes."""
    import attrs

    from agentcore.drivers.openai import MEDIA

    async def main(**options: Any) -> list[Any]:
        async with ReplayServer([sse_response(FIXTURES / "openai/text.sse")]) as server:
            url = server.base_url + "/v1"
            driver = OpenAIDriver("qwen2-omni", api_key="sk-test", base_url=url, **options)
            request = ModelRequest(messages=(prompt(CLIP),))
            assert not [e async for e in driver.receive(request) if isinstance(e, ErrorReceived)]
            await driver.aclose()
            return server.requests

    for options in ({"provider": "vllm"}, {"media": attrs.evolve(MEDIA, models={})}):
        (request,) = asyncio.run(main(**options))
        assert request.json["messages"][0]["content"][1]["type"] == "input_audio"
    assert "only models named with 'audio'" in refused("openai", "qwen2-omni", prompt(CLIP))
    openai_id = FileContent.from_file_id("file-1", "application/pdf", provider="openai")
    compatible = OpenAIDriver("m", base_url="http://127.0.0.1:1/v1", provider="vllm")
    with pytest.raises(UnsupportedContentError, match="belongs to 'openai', not 'vllm'"):
        compatible.build_body(ModelRequest(messages=(prompt(openai_id),)))


# -- every builder, any mix of parts: a body or a named refusal, never a crash ---------------


def _builders() -> dict[str, Callable[[ModelRequest], Any]]:
    from agentcore.drivers.anthropic.request import build_params
    from agentcore.drivers.google.request import build_body as google_body
    from agentcore.drivers.openai.request import build_body as chat_body
    from agentcore.drivers.openai_responses.request import build_body as responses_body

    off = {"thinking_level": "off"}
    return {
        "anthropic": lambda r: build_params(r, model="claude-test", max_tokens=64, **off),
        "openai": lambda r: chat_body(r, model="gpt-4o-audio-preview", max_tokens=None, **off),
        "openai_responses": lambda r: responses_body(r, model="gpt-5", max_tokens=None, **off),
        "google": lambda r: google_body(r, model="gemini-2.5-flash", max_tokens=None, **off),
    }


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(DRIVERS)),
    st.lists(content_parts(), min_size=1, max_size=4),
    st.booleans(),
)
def test_any_parts_build_a_json_body_or_are_refused_by_name(
    vendor: str, parts: list[ContentPart], in_tool_result: bool
) -> None:
    import json

    from agentcore.errors import InvalidEventError

    messages: tuple[Any, ...] = (UserMessage("u1", tuple(parts)),)
    if in_tool_result:
        call_message = AssistantMessage("a1", "m", (ToolCallPart("c1", "read", {}),))
        result = ToolResultMessage("c1", "read", tuple(parts))
        messages = (UserMessage("u1", "go"), call_message, result)
    try:
        body = _builders()[vendor](ModelRequest(messages=messages))
    except UnsupportedContentError as error:
        assert "does not take message" in error.message and "it takes" in error.message
        return
    except InvalidEventError as error:  # a plain-text document whose data is not base64
        assert "not valid base64" in error.message
        return
    json.dumps(body)
